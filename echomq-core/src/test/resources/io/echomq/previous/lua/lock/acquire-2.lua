-- acquire-2.lua: the fenced acquire. One atomic step: SET <lock> <token> NX PX <ttl>, and only
-- when that SET succeeds, INCR the fence counter kept beside the lock (same hash slot). The fence
-- therefore rises by exactly one per grant, forever; a refused acquire never touches it.
--
-- KEYS[1] lock          <ns>{<resource>}:lock   STRING holding the holder's token, with a PX ttl
-- KEYS[2] fence         <ns>{<resource>}:fence  STRING integer, the last fence granted (never expires)
-- ARGV[1] token         the acquisition's token (128 random bits, as text)
-- ARGV[2] ttl           lease ttl in milliseconds, a positive integer
--
-- Returns a two-element array:
--   {1, fence}  granted: this caller holds the lock; fence is the new counter value (>= 1)
--   {0, pttl}   held by someone else; pttl is the lock's remaining ttl in ms
--               (-1 when the holder set it without an expiry, the SETNX-then-crash deadlock)
local lockKey = KEYS[1]
local fenceKey = KEYS[2]
local token = ARGV[1]
local ttl = ARGV[2]

if redis.call('SET', lockKey, token, 'NX', 'PX', ttl) then
  return {1, redis.call('INCR', fenceKey)}
end
return {0, redis.call('PTTL', lockKey)}
