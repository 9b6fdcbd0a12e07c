-- return-4.lua: gives a lease back without spending an attempt (graceful shutdown). The job goes
-- back to pending where it was claimed from, so it keeps its place: a priority-0 job to the FRONT
-- of the wait LIST (LPUSH), any other to the pending ZSET at the score it was claimed with; spent drops by one,
-- while attempts (the fence) is left alone, so the returning worker's attempt stays stale forever.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[3] wake      emq:{q}:wake     pub/sub channel, told that a job is ready
-- KEYS[4] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] attempt   the attempt the caller was granted
-- ARGV[4] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
--
-- Returns an integer:
--    1  RETURNED
--   -1  SUPERSEDED  attempts moved on
--   -2  EXPIRED     the lease deadline passed; the reaper owns the job (and charges the attempt)
--   -3  NOT_ACTIVE  the job is not in state active
--   -4  MISSING     the job hash does not exist
local active, pending, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, id, attempt = ARGV[1], ARGV[2], ARGV[3]
local publish = 'PUBLISH'
if ARGV[4] == 'SPUBLISH' then publish = 'SPUBLISH' end
local jk = prefix .. 'job:' .. id

--@include server-time
--@include type-guard
--@include fence-check
--@include job-fields
local now = serverNow()

local refused = guard(active, 'zset') or guard(pending, 'zset') or guard(wait, 'list')
if refused then return refused end

local h = redis.call('HMGET', jk, 'state', 'attempts', 'score', 'priority')
local code = fenceCheck(h, attempt, active, id, now)
if code ~= 1 then return code end

redis.call('ZREM', active, id)
redis.call('DEL', jk .. ':lock')
redis.call('HINCRBY', jk, 'spent', -1)
redis.call('HSET', jk, 'state', 'pending')
local priority = tonumber(h[4] or '0') or 0
if priority == 0 then
  redis.call('LPUSH', wait, id)
else
  redis.call('ZADD', pending, tonumber(h[3] or '') or -priority * SHIFT, id)
end
redis.call(publish, wake, 1)
return 1
