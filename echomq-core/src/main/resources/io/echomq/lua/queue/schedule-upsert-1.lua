-- schedule-upsert-1.lua: creates or replaces one recurring schedule of a queue, in one step. The
-- caller computes the first fire time from the spec (cron needs a parser; Lua has none), after a
-- server time it read with schedule-due-1. When the stored spec and zone equal the new ones and a
-- next fire time is stored, that time is kept: re-declaring a schedule (as every process may do at
-- start) never skips a fire time that is due but not yet fired. The version rises on every call, so
-- that a scheduler which read the schedule before this call cannot move its next fire time.
--
-- Fails with a WRONGTYPE error, having changed nothing, when a key holds another type.
--
-- KEYS[1] schedules     emq:{q}:schedules  ZSET, member = schedule id, score = its next fire time, server
--                                          epoch ms, or inf when it never fires again
-- ARGV[1] prefix        emq:{q}:  (the schedule's hash is <prefix>schedule:<id>)
-- ARGV[2] id            the schedule id
-- ARGV[3] spec          every:<ISO-8601 duration> or cron:<expression>
-- ARGV[4] zone          the time-zone id the spec is read in (UTC for every)
-- ARGV[5] next          the first fire time after the server's now, epoch ms, computed by the caller; '' for none
-- ARGV[6] payload       the payload of every job fired
-- ARGV[7] missed        skip, once or all
-- ARGV[8] max_missed    the most missed fire times 'all' fires, >= 1
-- ARGV[9] priority      of every job fired, -1000..1000
-- ARGV[10] max_attempts of every job fired, 0 for the default
--
-- Returns {next, version}: the next fire time stored after the call (a decimal string, or inf when
-- it never fires again) and the schedule's new version.
local schedules = KEYS[1]
local prefix, id = ARGV[1], ARGV[2]
local hash = prefix .. 'schedule:' .. id

--@include server-time
--@include type-guard
local refused = guard(schedules, 'zset') or guard(hash, 'hash')
if refused then return refused end

local old = redis.call('HMGET', hash, 'spec', 'zone')
local stored = redis.call('ZSCORE', schedules, id)
local nextFire = ARGV[5]
if stored and old[1] == ARGV[3] and old[2] == ARGV[4] then
  nextFire = stored
else
  if nextFire == '' then nextFire = 'inf' end
  redis.call('ZADD', schedules, nextFire, id)
end
redis.call('HSET', hash, 'spec', ARGV[3], 'zone', ARGV[4], 'payload', ARGV[6], 'missed', ARGV[7],
  'max_missed', ARGV[8], 'priority', ARGV[9], 'max_attempts', ARGV[10],
  'updated_at', string.format('%d', serverNow()))
local version = redis.call('HINCRBY', hash, 'version', 1)
return {nextFire, version}
