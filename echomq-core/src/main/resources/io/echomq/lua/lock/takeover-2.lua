-- takeover-2.lua: an operator's guarded takeover. While the lock is still held by the holder the
-- operator saw (its value starts with the expected prefix, and, when one is given, the last fence
-- is still the expected one), it is given at once to a new holder: the new token, a fresh ttl
-- counted from now on the server, and the next fence, exactly as handoff-2.lua grants it. The old
-- holder is not told: its release and renewal then answer NOT_OWNER or EXPIRED, and its fenced
-- writes are refused by their fence (fenced-write-1.lua); its plain writes are not stopped. Nothing
-- is published: the lock is never free in between. A changed holder or fence changes nothing.
--
-- KEYS[1] lock          <ns>{<resource>}:lock
-- KEYS[2] fence         <ns>{<resource>}:fence
-- ARGV[1] expected      a prefix of the holder's value as the operator saw it (at least 8 characters)
-- ARGV[2] fence_seen    the last fence the operator saw, or "0": not checked
-- ARGV[3] new_token     the new holder's token
-- ARGV[4] ttl           the new lease's ttl in milliseconds, a positive integer
-- ARGV[5] mark_all      optional, as in acquire-2.lua ("1": every fence granted is stored as the mark)
--
-- Returns a two-element array:
--   {1, fence}  TAKEN: the lock is the new token's; fence is the new fence (> every earlier one)
--   {0, fence}  CHANGED: another holder, or another last fence (answered), than the operator saw; nothing was changed
--   {-1, 0}     FREE: nobody holds the lock; nothing was changed
-- or the error "WRONGTYPE <fence> is not an integer; nothing was changed", or "EMQPROTOCOL <fence>
-- holds data of protocol <N>; this client speaks protocol 2; nothing was changed" (a later protocol's
-- fence key, docs/protocol.md "Versions").
local lockKey = KEYS[1]
local fenceKey = KEYS[2]
local expected = ARGV[1]
local fenceSeen = tonumber(ARGV[2])
local newToken = ARGV[3]
local ttl = ARGV[4]
local markAll = ARGV[5] == '1'

--@include fence
local current = redis.call('GET', lockKey)
if not current then return {-1, 0} end
local last, mark, refusal = readFence(fenceKey)
if refusal then return refusal end
if string.sub(current, 1, #expected) ~= expected or (fenceSeen > 0 and last ~= fenceSeen) then
  return {0, last}
end
redis.call('SET', lockKey, newToken, 'PX', ttl)
return {1, grantFence(fenceKey, last, ttl, mark or markAll)}
