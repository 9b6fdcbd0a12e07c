-- schedule-remove-1.lua: removes one recurring schedule of a queue: its hash and its next fire
-- time, in one step. Jobs it already fired stay in the queue.
--
-- KEYS[1] schedules  emq:{q}:schedules  ZSET, member = schedule id, score = its next fire time
-- ARGV[1] prefix     emq:{q}:  (the schedule's hash is <prefix>schedule:<id>)
-- ARGV[2] id         the schedule id
--
-- Returns 1 REMOVED (there was a hash or a next fire time) or 0 MISSING.
local schedules = KEYS[1]
local hash = ARGV[1] .. 'schedule:' .. ARGV[2]
local n = redis.call('ZREM', schedules, ARGV[2]) + redis.call('DEL', hash)
if n > 0 then return 1 end
return 0
