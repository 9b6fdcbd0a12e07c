-- layout.lua: the queue's pending layout, the STRING <prefix>layout that layout-4.lua sets. 'zset':
-- every pending job, priority 0 included, waits in the pending ZSET at seq - priority * 2^42, so a
-- consumer that only pops the ZSET's head (ZPOPMIN) sees them all, in claim order. Absent, or any
-- other value: the LIST layout, where priority 0 waits in the wait LIST. Includes wrong-type.
-- A script that makes a job pending reads it before its first write, and then puts a job of
-- priority 0 in the LIST only when this answers false.
-- The layout also says whether a claim writes the per-job lock subkey <prefix>job:<id>:lock:
-- the ZSET layout does, the LIST layout does not (there the job's score in <prefix>active, the
-- lease deadline, is the one record of a running lease).
-- Defines:
--   leaseSubkeys(prefix) -> true when the queue is in the ZSET layout, so a claim writes the lock
--     subkey and a complete deletes it; false in the LIST layout, and also when <prefix>layout
--     holds another type than a string (a claim or a complete never refuses for it). One GET of
--     <prefix>layout, made at the first call of a script run; later calls answer from it.
--   zsetLayout(key) -> true for the ZSET layout, false for the LIST layout; or nil and the error
--     reply when key (<prefix>layout) holds another type than a string
--@include wrong-type
local function zsetLayout(key)
  local ok, v = pcall(redis.call, 'GET', key)
  if not ok then return nil, refuse(key, 'string', v) end
  return v == 'zset'
end
local leaseSubkeysOn = nil   -- nil: <prefix>layout not read yet in this script run
local function leaseSubkeys(prefix)
  if leaseSubkeysOn == nil then
    local ok, v = pcall(redis.call, 'GET', prefix .. 'layout')
    leaseSubkeysOn = ok and v == 'zset'
  end
  return leaseSubkeysOn
end
