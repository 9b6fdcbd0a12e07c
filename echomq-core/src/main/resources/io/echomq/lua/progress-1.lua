-- progress-1.lua: the fenced progress report. Stores the caller's progress value in the job hash
-- while its attempt is still current and its lease still runs.
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
local active = KEYS[1]
local prefix, id, attempt = ARGV[1], ARGV[2], ARGV[3]
local jk = prefix .. 'job:' .. id

local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)

local h = redis.call('HMGET', jk, 'state', 'attempts')
if not h[1] and not h[2] then return -4 end
if h[2] ~= attempt then return -1 end
if h[1] ~= 'active' then return -3 end
local deadline = redis.call('ZSCORE', active, id)
if not deadline or tonumber(deadline) <= now then return -2 end
redis.call('HSET', jk, 'progress', ARGV[4])
return 1
