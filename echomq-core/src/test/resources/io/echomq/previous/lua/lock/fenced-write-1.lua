-- fenced-write-1.lua: a store guarded by fencing tokens. Writes the value only when the caller's
-- fence is at least the fence of the last accepted write, so a stale holder (a lower fence) is
-- refused once a newer holder has written. A holder may write many times under one fence.
--
-- KEYS[1] guarded       a HASH with fields "value" and "fence", owned by this script
-- ARGV[1] fence         the writer's fence, a positive integer
-- ARGV[2] value         the value to store
--
-- Returns a two-element array:
--   {1, fence}    WRITTEN: the value is stored; fence is the fence now recorded (ARGV[1])
--   {0, stored}   STALE: refused; stored is the higher fence already recorded
local guardedKey = KEYS[1]
local fence = tonumber(ARGV[1])
local value = ARGV[2]

local stored = tonumber(redis.call('HGET', guardedKey, 'fence') or '0')
if fence < stored then
  return {0, stored}
end
redis.call('HSET', guardedKey, 'value', value, 'fence', fence)
return {1, fence}
