-- schedule-advance-1.lua: claims a schedule's fire time by moving its next fire time on, as a
-- compare-and-set. A scheduler first enqueues the jobs of the fire times it read (each keyed by the
-- schedule id and its fire time, so a second enqueue of one fire time adds nothing), then calls
-- this. Only the first caller for one stored fire time and version moves it: another scheduler that
-- read the same fire time, or one that read the schedule before an upsert, is refused and changes
-- nothing.
--
-- KEYS[1] schedules  emq:{q}:schedules  ZSET, member = schedule id, score = its next fire time, server epoch ms
-- ARGV[1] prefix     emq:{q}:  (the schedule's hash is <prefix>schedule:<id>)
-- ARGV[2] id         the schedule id
-- ARGV[3] fire       the fire time the caller read (schedule-due-1's value), epoch ms
-- ARGV[4] version    the version the caller read
-- ARGV[5] next       the new next fire time, epoch ms, or '' when the schedule never fires again
--
-- Returns 1 ADVANCED (the next fire time is now ARGV[5], or inf) or 0 MOVED (the stored fire time or
-- version differs from the caller's, or the schedule is gone: nothing changed).
local schedules = KEYS[1]
local id = ARGV[2]
local score = redis.call('ZSCORE', schedules, id)
if not score or tonumber(score) ~= tonumber(ARGV[3]) then return 0 end
if redis.call('HGET', ARGV[1] .. 'schedule:' .. id, 'version') ~= ARGV[4] then return 0 end
local nextFire = ARGV[5]
if nextFire == '' then nextFire = 'inf' end
redis.call('ZADD', schedules, nextFire, id)
return 1
