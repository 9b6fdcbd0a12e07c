-- handoff-2.lua: release and grant in one step. While the lock still holds the releasing holder's
-- token, it is given at once to a new acquisition: the new token, a fresh ttl counted from now on
-- the server, and the next fence, exactly as acquire-2.lua would have granted it after a
-- release-2.lua. A client sends it only when one of its own threads waits for the lock, so the
-- lock is never free in between and no release is published: nobody else could have taken it.
-- When the lock no longer holds the old token, nothing changes, as with release-2.lua.
--
-- KEYS[1] lock          <ns>{<resource>}:lock
-- KEYS[2] fence         <ns>{<resource>}:fence
-- ARGV[1] old_token     the token the releasing holder was granted
-- ARGV[2] new_token     the new acquisition's token (128 random bits, as text)
-- ARGV[3] ttl           the new lease's ttl in milliseconds, a positive integer
--
-- Returns a two-element array:
--   {1, fence}  RELEASED, and granted to the new token; fence is the new counter value (>= 1)
--   {0, 0}      NOT_OWNER: the lock is held under another token; nothing was changed
--   {-1, 0}     EXPIRED: nobody holds the lock; nothing was changed (and it stays free)
local lockKey = KEYS[1]
local fenceKey = KEYS[2]
local oldToken = ARGV[1]
local newToken = ARGV[2]
local ttl = ARGV[3]

local current = redis.call('GET', lockKey)
if current == oldToken then
  redis.call('SET', lockKey, newToken, 'PX', ttl)
  return {1, redis.call('INCR', fenceKey)}
end
if current then
  return {0, 0}
end
return {-1, 0}
