-- acquire-2.lua: the fenced acquire. One atomic step: SET <lock> <token> NX PX <ttl>, and only
-- when that SET succeeds, the next fence, max(last + 1, server now in microseconds), stored in
-- the fence key beside the lock (same hash slot) with an expiry of at least the ttl (see
-- includes/fence.lua). Fences therefore rise strictly in grant order, also across idle periods
-- and data loss while the server's clock does not step back; a refused acquire changes nothing.
--
-- KEYS[1] lock          <ns>{<resource>}:lock   STRING holding the holder's token, with a PX ttl
-- KEYS[2] fence         <ns>{<resource>}:fence  STRING integer, the last fence granted, with a PX
--                                               expiry; v2:<fence> with none on a resource that a
--                                               protocol-1 client locks (includes/fence.lua)
-- ARGV[1] token         the acquisition's token (128 random bits, as text)
-- ARGV[2] ttl           lease ttl in milliseconds, a positive integer
-- ARGV[3] mark_all      optional, the upgrade mode (docs/protocol.md, "How to upgrade"): "1" stores every
--                       fence granted here as the mark v2:<fence>; absent or anything else: only
--                       where includes/fence.lua says so
--
-- Returns a two-element array:
--   {1, fence}  granted: this caller holds the lock; fence is the new fence (> every earlier one)
--   {0, pttl}   held by someone else; pttl is the lock's remaining ttl in ms
--               (-1 when the holder set it without an expiry, the SETNX-then-crash deadlock)
-- or the error "WRONGTYPE <fence> is not an integer; nothing was changed", or "EMQPROTOCOL <fence>
-- holds data of protocol <N>; this client speaks protocol 2; nothing was changed" (a later protocol's
-- fence key, docs/protocol.md "Versions").
local lockKey = KEYS[1]
local fenceKey = KEYS[2]
local token = ARGV[1]
local ttl = ARGV[2]
local markAll = ARGV[3] == '1'

--@include grant
if redis.call('SET', lockKey, token, 'NX', 'PX', ttl) then
  -- the fence key is read only for a grant: a refused acquire costs one SET and one PTTL
  return grantLock(lockKey, fenceKey, ttl, markAll)
end
return {0, redis.call('PTTL', lockKey)}
