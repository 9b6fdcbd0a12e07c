-- handoff-2.lua: release and grant in one step. While the lock still holds the releasing holder's
-- token, it is given at once to a new acquisition: the new token, a fresh ttl counted from now on
-- the server, and the next fence, exactly as acquire-2.lua would have granted it after a
-- release-3.lua (includes/fence.lua). A client sends it only when one of its own threads waits for
-- the lock, so the lock is never free in between and no release is published: nobody else could
-- have taken it. When the lock no longer holds the old token, nothing changes, as with release-3.lua.
--
-- KEYS[1] lock          <ns>{<resource>}:lock
-- KEYS[2] fence         <ns>{<resource>}:fence
-- ARGV[1] old_token     the token the releasing holder was granted
-- ARGV[2] new_token     the new acquisition's token (128 random bits, as text)
-- ARGV[3] ttl           the new lease's ttl in milliseconds, a positive integer
-- ARGV[4] mark_all      optional, as in acquire-2.lua ("1": every fence granted is stored as the mark)
--
-- Returns a two-element array:
--   {1, fence}  RELEASED, and granted to the new token; fence is the new fence (> every earlier one)
--   {0, 0}      NOT_OWNER: the lock is held under another token; nothing was changed
--   {-1, 0}     EXPIRED: nobody holds the lock; nothing was changed (and it stays free)
-- or the error "WRONGTYPE <fence> is not an integer; nothing was changed", or "EMQPROTOCOL <fence>
-- holds data of protocol <N>; this client speaks protocol 2; nothing was changed" (a later protocol's
-- fence key, docs/protocol.md "Versions").
local lockKey = KEYS[1]
local fenceKey = KEYS[2]
local oldToken = ARGV[1]
local newToken = ARGV[2]
local ttl = ARGV[3]
local markAll = ARGV[4] == '1'

--@include token-check
--@include fence
local held = tokenCheck(lockKey, oldToken)
if held ~= 1 then return {held, 0} end
local last, mark, refusal = readFence(fenceKey)
if refusal then return refusal end
redis.call('SET', lockKey, newToken, 'PX', ttl)
return {1, grantFence(fenceKey, last, ttl, mark or markAll)}
