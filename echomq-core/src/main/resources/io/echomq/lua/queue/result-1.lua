-- result-1.lua: the fenced store of an attempt's result. While the attempt is still current and
-- its lease still runs, stores the caller's bytes in the job hash's field result, where the
-- complete of that attempt finds it: the job keeps it as long as its hash is kept, and the
-- completed event carries it (includes/complete.lua), so that it can be read even when the hash
-- is deleted at once. Writes no event of its own. The caller bounds the length (16 KiB in Java).
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] attempt   the attempt the caller was granted
-- ARGV[4] result    the bytes to store in the field result
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
local now = serverNow()

local h = redis.call('HMGET', jk, 'state', 'attempts')
local code = fenceCheck(h, attempt, active, id, now)
if code ~= 1 then return code end
redis.call('HSET', jk, 'result', ARGV[4])
return 1
