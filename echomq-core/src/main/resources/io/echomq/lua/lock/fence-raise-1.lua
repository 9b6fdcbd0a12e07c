-- fence-raise-1.lua: Redlock's fence write-back. After a Redlock grant, the client raises the
-- fence on every master to at least the lease's fence (the largest fence among the masters that
-- granted it), never lowering it. The key it writes is kept as a granting script keeps it
-- (includes/fence.lua): at least the ttl, and until this master's clock has passed the fence, so
-- a master whose clock is behind the one that granted the fence still counts on from it. The next
-- grant's quorum overlaps this grant's masters, so its fence is higher.
--
-- KEYS[1] fence         <ns>{<resource>}:fence  STRING integer, the last fence granted, with a PX expiry
-- ARGV[1] fence         the lease's fence, a positive integer
-- ARGV[2] ttl           the lease's ttl in milliseconds, a positive integer
-- ARGV[3] mark_all      optional, as in acquire-2.lua ("1": the raised fence is stored as the mark)
--
-- Returns the fence after the call: max(stored fence, ARGV[1]),
-- or the error "WRONGTYPE <fence> is not an integer; nothing was changed", or "EMQPROTOCOL <fence>
-- holds data of protocol <N>; this client speaks protocol 2; nothing was changed" (a later protocol's
-- fence key, docs/protocol.md "Versions").
local fenceKey = KEYS[1]
local fence = tonumber(ARGV[1])
local ttl = ARGV[2]
local markAll = ARGV[3] == '1'

--@include server-time
--@include fence
local current, mark, refusal = readFence(fenceKey)
if refusal then return refusal end
if fence > current then
  keepFence(fenceKey, fence, serverMicros(), ttl, mark or markAll)
  return fence
end
return current
