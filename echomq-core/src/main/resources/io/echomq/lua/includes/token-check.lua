-- token-check.lua: the compare of the lock scripts that act for a holder (release-3, renew-2,
-- handoff-2): they change the lock only while it still holds the caller's token, so a late
-- holder never touches a lock that expired and was granted to someone else.
-- Defines tokenCheck(lockKey, token), one GET of the lock:
--    1  the lock holds token: the caller holds it
--    0  NOT_OWNER  the lock is held under another token
--   -1  EXPIRED    nobody holds the lock
local function tokenCheck(lockKey, token)
  local current = redis.call('GET', lockKey)
  if current == token then return 1 end
  if current then return 0 end
  return -1
end
