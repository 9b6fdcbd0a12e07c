-- fence-raise-1.lua: Redlock's fence write-back. After a Redlock grant, the client raises the
-- fence counter on every master to at least the lease's fence (the largest counter among the
-- masters that granted it), never lowering it. The next grant's quorum overlaps this grant's
-- masters, so its INCR counts on from here and its fence is higher.
--
-- KEYS[1] fence         <ns>{<resource>}:fence  STRING integer, the last fence granted (never expires)
-- ARGV[1] fence         the lease's fence, a positive integer
--
-- Returns the counter after the call: max(stored counter, ARGV[1]).
local fenceKey = KEYS[1]
local fence = tonumber(ARGV[1])

local current = tonumber(redis.call('GET', fenceKey) or '0')
if fence > current then
  redis.call('SET', fenceKey, ARGV[1])
  return fence
end
return current
