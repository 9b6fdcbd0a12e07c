-- fail-4.lua: the fenced failure of an attempt. If the attempt is still current and its lease
-- still runs, the job either waits in delayed for a retry (exponential backoff with jitter, on the
-- server clock) or, once it has spent max_attempts or the caller forbids a retry, goes to dead.
-- Either way the error is kept in last_error.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type
-- (includes/type-guard.lua). The fence check and its codes are includes/fence-check.lua.
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] delayed   emq:{q}:delayed  ZSET, score = due time in server ms
-- KEYS[3] dead      emq:{q}:dead     ZSET, score = time of death in server ms
-- KEYS[4] stats     emq:{q}:stats    HASH of counters (failed)
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] attempt   the attempt the caller was granted
-- ARGV[4] error     the error text to keep (the caller bounds its length)
-- ARGV[5] jitter    a number in [0, 1]: the retry waits d/2 + jitter * d/2, where
--                   d = min(backoff_max_ms, backoff_ms * 2^(spent - 1))
-- ARGV[6] retry     1 to allow a retry, 0 to send the job to dead now
--
-- Returns a two-element array {code, delay_ms}:
--    2  RETRYING    the job waits in delayed for delay_ms
--    3  DEAD        the job is in dead (delay_ms is 0)
--   -1  SUPERSEDED  attempts moved on: another worker holds a newer attempt
--   -2  EXPIRED     the lease deadline passed; the reaper owns the job now
--   -3  NOT_ACTIVE  the job is not in state active
--   -4  MISSING     the job hash does not exist
local active, delayed, dead, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, id, attempt = ARGV[1], ARGV[2], ARGV[3]
local jk = prefix .. 'job:' .. id

--@include server-time
--@include type-guard
--@include fence-check
local now = serverNow()

local refused = guard(active, 'zset') or guard(delayed, 'zset') or guard(dead, 'zset') or guard(stats, 'hash')
if refused then return refused end

local h = redis.call('HMGET', jk, 'state', 'attempts', 'spent', 'max_attempts', 'backoff_ms', 'backoff_max_ms')
local code = fenceCheck(h, attempt, active, id, now)
if code ~= 1 then return {code, 0} end

redis.call('ZREM', active, id)
redis.call('DEL', jk .. ':lock')
redis.call('HINCRBY', stats, 'failed', 1)
local spent = tonumber(h[3] or '0')
local maxAttempts = tonumber(h[4] or '3')
if ARGV[6] ~= '1' or spent >= maxAttempts then
  local reason = 'failed on attempt ' .. spent .. ' of ' .. maxAttempts
  if ARGV[6] ~= '1' then reason = 'failed without retry on attempt ' .. spent end
  redis.call('HSET', jk, 'state', 'dead', 'last_error', ARGV[4], 'dead_reason', reason, 'finished_at', now)
  redis.call('ZADD', dead, now, id)
  return {3, 0}
end

local base = tonumber(h[5] or '1000')
local cap = tonumber(h[6] or '3600000')
local d = base * 2 ^ math.min(math.max(spent - 1, 0), 40)
if d > cap then d = cap end
local delay = math.floor(d / 2 + tonumber(ARGV[5]) * d / 2)
redis.call('HSET', jk, 'state', 'delayed', 'last_error', ARGV[4])
redis.call('ZADD', delayed, now + delay, id)
return {2, delay}
