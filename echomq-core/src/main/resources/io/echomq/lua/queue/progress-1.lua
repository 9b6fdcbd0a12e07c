-- progress-1.lua: the fenced progress report. Stores the caller's progress value in the job hash
-- while its attempt is still current and its lease still runs, and writes a 'progress' event with
-- the value to <prefix>events (includes/events.lua).
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] attempt   the attempt the caller was granted
-- ARGV[4] progress  the value to store in the field progress
--
-- Returns an integer:
--    1  RECORDED
--   -1  SUPERSEDED  attempts moved on
--   -2  EXPIRED     the lease deadline passed
--   -3  NOT_ACTIVE  the job is not in state active
--   -4  MISSING     the job hash does not exist
--   -6  CANCELLED   an operator cancelled this attempt (cancel-7.lua); nothing changed
local active = KEYS[1]
local prefix, id, attempt = ARGV[1], ARGV[2], ARGV[3]
local jk = prefix .. 'job:' .. id

--@include server-time
--@include fence-check
--@include events
local now = serverNow()

local h = redis.call('HMGET', jk, 'state', 'attempts')
local code = fenceCheck(h, attempt, active, id, now)
if code ~= 1 then return code end
redis.call('HSET', jk, 'progress', ARGV[4])
emitEvent(prefix, 'progress', id, attempt, 'progress', ARGV[4])
return 1
