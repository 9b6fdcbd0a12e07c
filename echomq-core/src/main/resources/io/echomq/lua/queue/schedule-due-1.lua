-- schedule-due-1.lua: the schedules of a queue whose next fire time has come, on the server's
-- clock, with their definitions, read in one step. Changes nothing, except that an id whose hash
-- is gone (no scheduler could fire it) is dropped from the ZSET. With limit 0 it only reads the
-- server's now and the earliest next fire time: the time source of an upsert.
--
-- KEYS[1] schedules  emq:{q}:schedules  ZSET, member = schedule id, score = its next fire time, server epoch ms
-- ARGV[1] prefix     emq:{q}:  (the schedule's hash is <prefix>schedule:<id>)
-- ARGV[2] limit      the most due schedules returned, >= 0
--
-- Returns {now, next_ms, id1, fire1, spec1, zone1, payload1, missed1, max_missed1, priority1,
-- max_attempts1, version1, id2, ...}: now = the server's epoch ms; next_ms = the earliest next fire
-- time after now, when a scheduler should look again (-1 for none; a schedule that never fires
-- again has the score inf); then, for each due schedule (fire time <= now, earliest first), ten
-- values: its id, the stored fire time (a decimal string, the value to pass to
-- schedule-advance-1) and eight fields of its hash (nil when absent).
local schedules = KEYS[1]
local prefix = ARGV[1]
local limit = tonumber(ARGV[2])

--@include server-time
local now = serverNow()
local out = {now, -1}
local later = redis.call('ZRANGEBYSCORE', schedules, '(' .. string.format('%d', now), '+inf', 'WITHSCORES',
  'LIMIT', 0, 1)
if #later > 0 and later[2] ~= 'inf' then out[2] = tonumber(later[2]) end
if limit <= 0 then return out end

local due = redis.call('ZRANGEBYSCORE', schedules, '-inf', string.format('%d', now), 'WITHSCORES',
  'LIMIT', 0, limit)
for i = 1, #due, 2 do
  local id = due[i]
  local h = redis.call('HMGET', prefix .. 'schedule:' .. id, 'spec', 'zone', 'payload', 'missed', 'max_missed',
    'priority', 'max_attempts', 'version')
  if not h[1] then
    redis.call('ZREM', schedules, id)
  else
    out[#out + 1] = id
    out[#out + 1] = due[i + 1]
    for j = 1, 8 do out[#out + 1] = h[j] end
  end
end
return out
