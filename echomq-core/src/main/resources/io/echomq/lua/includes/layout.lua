-- layout.lua: the queue's pending layout, the STRING <prefix>layout that layout-4.lua sets. 'zset':
-- every pending job, priority 0 included, waits in the pending ZSET at seq - priority * 2^42, so a
-- consumer that only pops the ZSET's head (ZPOPMIN) sees them all, in claim order. Absent, or any
-- other value: the LIST layout, where priority 0 waits in the wait LIST. Includes wrong-type.
-- A script that makes a job pending reads it before its first write, and then puts a job of
-- priority 0 in the LIST only when this answers false.
-- Defines:
--   zsetLayout(key) -> true for the ZSET layout, false for the LIST layout; or nil and the error
--     reply when key (<prefix>layout) holds another type than a string
--@include wrong-type
local function zsetLayout(key)
  local ok, v = pcall(redis.call, 'GET', key)
  if not ok then return nil, refuse(key, 'string', v) end
  return v == 'zset'
end
