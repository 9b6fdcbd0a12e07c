-- renew-1.lua: compare-and-PEXPIRE. Extends the lease only while the lock still holds our token.
-- It never revives a lost lease: an absent key stays absent, another holder's key is untouched.
--
-- KEYS[1] lock       <ns>{<resource>}:lock
-- ARGV[1] token      the token the caller was granted
-- ARGV[2] ttl        the new ttl in milliseconds, counted from now on the server
--
-- Returns an integer:
--    1  RENEWED    the lock held our token; its ttl is now ARGV[2] ms
--    0  NOT_OWNER  the lock is held under another token; nothing was changed
--   -1  EXPIRED    nobody holds the lock; nothing was changed
local lockKey = KEYS[1]
local token = ARGV[1]
local ttl = ARGV[2]

local current = redis.call('GET', lockKey)
if current == token then
  redis.call('PEXPIRE', lockKey, ttl)
  return 1
end
if current then
  return 0
end
return -1
