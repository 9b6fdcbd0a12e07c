-- renew-2.lua: compare-and-PEXPIRE. Extends the lease only while the lock still holds our token.
-- It never revives a lost lease: an absent key stays absent, another holder's key is untouched.
-- A renewal keeps the fence key at least as long as the lock (never shortening it, see
-- includes/fence.lua), so that the fence of a lease held past its first ttl is still there to be
-- counted on and inspected. A fence key with no expiry (an old counter) is left to the next grant.
--
-- KEYS[1] lock       <ns>{<resource>}:lock
-- KEYS[2] fence      <ns>{<resource>}:fence
-- ARGV[1] token      the token the caller was granted
-- ARGV[2] ttl        the new ttl in milliseconds, counted from now on the server
--
-- Returns an integer:
--    1  RENEWED    the lock held our token; its ttl is now ARGV[2] ms
--    0  NOT_OWNER  the lock is held under another token; nothing was changed
--   -1  EXPIRED    nobody holds the lock; nothing was changed
local lockKey = KEYS[1]
local fenceKey = KEYS[2]
local token = ARGV[1]
local ttl = ARGV[2]

--@include token-check
local held = tokenCheck(lockKey, token)
if held ~= 1 then return held end
redis.call('PEXPIRE', lockKey, ttl)
local left = redis.call('PTTL', fenceKey)
if left >= 0 and left < tonumber(ttl) then
  redis.call('PEXPIRE', fenceKey, ttl)
end
return 1
