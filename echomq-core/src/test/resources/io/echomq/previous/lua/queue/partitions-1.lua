-- partitions-1.lua: declare a sharded queue's partition count; the stored count only ever rises.
-- The mark is the number of partitions that may hold jobs, so every consumer spans all of them:
-- a producer declares its count here before its first enqueue, and a consumer reads the mark.
--
-- KEYS[1] mark     emq:{q}:partitions  STRING, a decimal integer >= 1
-- ARGV[1] count    the partition count the caller uses, >= 1, or 0 to only read the mark
--
-- Returns an integer:
--   n >= 1   the mark after this call: max(stored mark, ARGV[1])
--   0        no mark is stored and ARGV[1] was 0
--   -1       the stored value is not a positive integer; nothing was changed
local markKey = KEYS[1]
local count = tonumber(ARGV[1])

local stored = redis.call('GET', markKey)
local current = 0
if stored then
  current = tonumber(stored)
  if current == nil or current < 1 or current ~= math.floor(current) then
    return -1
  end
end
if count > current then
  redis.call('SET', markKey, count)
  return count
end
return current
