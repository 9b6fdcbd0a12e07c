-- wait-acquire-3.lua: the try of an acquire that waits, after its first one was refused. It grants
-- exactly as acquire-2.lua (fenced) or the plain SET NX PX would; when the lock is held, it also
-- marks the resource as waited for, in the same atomic step, so that every release from then on
-- publishes (release-3.lua). The waiting key is a STRING "1" whose ttl is raised, never lowered, to
-- the caller's remaining wait: a waiter that gives up or dies lets it expire, and the releases
-- stop publishing. Since the mark and the refusal are one step, no release can fall between them:
-- a waiter subscribed to the channel before this try either gets the lock here, or hears the
-- next release.
--
-- KEYS[1] lock          <ns>{<resource>}:lock     STRING holding the holder's token, with a PX ttl
-- KEYS[2] fence         <ns>{<resource>}:fence    as in acquire-2.lua; read and written only when fenced
-- KEYS[3] waiting       <ns>{<resource>}:waiting  STRING "1", kept while a waiter may still be waiting
-- ARGV[1] token         the acquisition's token (128 random bits, as text)
-- ARGV[2] ttl           lease ttl in milliseconds, a positive integer
-- ARGV[3] fenced        "1": take a fence as acquire-2.lua does; anything else: a plain grant, fence 0
-- ARGV[4] wait          the caller's remaining wait in milliseconds, a positive integer
-- ARGV[5] mark_all      optional, as in acquire-2.lua ("1": every fence granted is stored as the mark)
--
-- Returns a two-element array:
--   {1, fence}  granted: this caller holds the lock; fence is the new fence (0 when not fenced)
--   {0, pttl}   held by someone else; pttl is the lock's remaining ttl in ms (-1: no expiry);
--               the waiting key now lives at least ARGV[4] ms
-- or the error "WRONGTYPE <fence> is not an integer; nothing was changed", or "EMQPROTOCOL <fence>
-- holds data of protocol <N>; this client speaks protocol 2; nothing was changed" (a later protocol's
-- fence key, docs/protocol.md "Versions").
local lockKey = KEYS[1]
local fenceKey = KEYS[2]
local waitingKey = KEYS[3]
local token = ARGV[1]
local ttl = ARGV[2]
local wait = tonumber(ARGV[4])
local markAll = ARGV[5] == '1'

--@include grant
--@include fence
if redis.call('SET', lockKey, token, 'NX', 'PX', ttl) then
  if ARGV[3] ~= '1' then
    return {1, 0}
  end
  return grantLock(lockKey, fenceKey, ttl, markAll)
end
if redis.call('PTTL', waitingKey) < wait then
  redis.call('SET', waitingKey, '1', 'PX', num(wait))
end
return {0, redis.call('PTTL', lockKey)}
