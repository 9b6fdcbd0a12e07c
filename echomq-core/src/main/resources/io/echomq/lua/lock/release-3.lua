-- release-3.lua: compare-and-delete. Deletes the lock only while it still holds our token, so a
-- release never removes a lock that expired and was granted to someone else (the blind-DEL bug).
-- On a real release it publishes on the lock's release channel to wake waiters at once, but only
-- when someone may be waiting: the waiting key exists (a waiting acquire refreshes it in the same
-- script as each refused try, wait-acquire-3.lua, for as long as it may still wait), or the caller
-- says that it has waiters of its own. A release with nobody waiting costs no PUBLISH.
--
-- KEYS[1] lock             <ns>{<resource>}:lock
-- KEYS[2] channel          <ns>{<resource>}:released  (a pub/sub channel, declared for its slot)
-- KEYS[3] waiting          <ns>{<resource>}:waiting   (exists while a waiter may still be waiting)
-- ARGV[1] token            the token the caller was granted
-- ARGV[2] publish          "SPUBLISH" for sharded pub/sub (Redis 7+), anything else PUBLISH
-- ARGV[3] local_waiters    "1": the caller has waiters of its own, publish in any case; optional
--
-- Returns an integer:
--    1  RELEASED   the lock held our token and is now deleted; waiters were notified
--    0  NOT_OWNER  the lock is held under another token; nothing was changed
--   -1  EXPIRED    nobody holds the lock; nothing was changed
local lockKey = KEYS[1]
local channel = KEYS[2]
local waitingKey = KEYS[3]
local token = ARGV[1]
local publishMode = ARGV[2]

--@include token-check
--@include publish
local held = tokenCheck(lockKey, token)
if held ~= 1 then return held end
redis.call('DEL', lockKey)
if ARGV[3] == '1' or redis.call('EXISTS', waitingKey) == 1 then
  publishOn(publishMode, channel, 'released')
end
return 1
