-- release-2.lua: compare-and-delete. Deletes the lock only while it still holds our token, so a
-- release never removes a lock that expired and was granted to someone else (the blind-DEL bug).
-- On a real release it publishes on the lock's release channel to wake waiters at once.
--
-- KEYS[1] lock             <ns>{<resource>}:lock
-- KEYS[2] channel          <ns>{<resource>}:released  (a pub/sub channel, declared for its slot)
-- ARGV[1] token            the token the caller was granted
-- ARGV[2] publish          "SPUBLISH" for sharded pub/sub (Redis 7+), anything else PUBLISH
--
-- Returns an integer:
--    1  RELEASED   the lock held our token and is now deleted; waiters were notified
--    0  NOT_OWNER  the lock is held under another token; nothing was changed
--   -1  EXPIRED    nobody holds the lock; nothing was changed
local lockKey = KEYS[1]
local channel = KEYS[2]
local token = ARGV[1]
local publish = 'PUBLISH'
if ARGV[2] == 'SPUBLISH' then publish = 'SPUBLISH' end

local current = redis.call('GET', lockKey)
if current == token then
  redis.call('DEL', lockKey)
  redis.call(publish, channel, 'released')
  return 1
end
if current then
  return 0
end
return -1
