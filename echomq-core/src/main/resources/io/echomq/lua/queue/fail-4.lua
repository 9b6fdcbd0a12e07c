-- fail-4.lua: the fenced failure of an attempt. If the attempt is still current and its lease
-- still runs, the job either waits in delayed for a retry (exponential backoff with jitter, on the
-- server clock) or, once it has spent max_attempts or the caller forbids a retry, goes to dead.
-- Either way the error is kept in last_error and, with the attempt and the server time, in the job's
-- bounded 'errors' field, and counted in the queue's error groups (includes/error-log.lua: the keys
-- <prefix>errors and <prefix>errors:seen); a grouped job frees its group's place
-- (includes/groups.lua); a retried one goes back to its group when promoted. A move to dead then applies the dead set's caps
-- (includes/dead-cap.lua: the queue's dead_max and dead_age_ms in <prefix>retention).
-- Either way it writes an event to <prefix>events (includes/events.lua): 'retrying' with reason
-- (the error) and delay_ms, or 'dead' with reason (dead_reason) and error.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type
-- (includes/type-guard.lua). The fence check and its codes are includes/fence-check.lua.
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks a queue that has data as protocol 2 first (the key <prefix>delayed,
-- includes/protocol.lua).
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] delayed   emq:{q}:due      ZSET, score = due time in server ms
-- KEYS[3] dead      emq:{q}:dead     ZSET, score = time of death in server ms
-- KEYS[4] stats     emq:{q}:stats    HASH of counters (failed)
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] attempt   the attempt the caller was granted
-- ARGV[4] error     the error text to keep (the caller bounds its length)
-- ARGV[5] jitter    a number in [0, 1]: the retry waits d/2 + jitter * d/2, where
--                   d = min(backoff_max_ms, backoff_ms * 2^(spent - 1))
-- ARGV[6] retry     1 to allow a retry, 0 to send the job to dead now
-- ARGV[7] delay     optional: the retry's exact delay in ms from the server's now, bounded to
--                   0..31536000000 (365 days, as an enqueue's delay); absent, empty or not a
--                   number: the hash's backoff above (older callers send six ARGV)
-- ARGV[8] publish   optional: SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or
--                   absent) PUBLISH. When the fail brings the job's group back to the rotation
--                   (includes/groups.lua), 1 is published on <prefix>wake.
--
-- Returns a two-element array {code, delay_ms}:
--    2  RETRYING    the job waits in delayed for delay_ms
--    3  DEAD        the job is in dead (delay_ms is 0)
--   -1  SUPERSEDED  attempts moved on: another worker holds a newer attempt
--   -2  EXPIRED     the lease deadline passed; the reaper owns the job now
--   -3  NOT_ACTIVE  the job is not in state active
--   -4  MISSING     the job hash does not exist
--   -6  CANCELLED   an operator cancelled this attempt (cancel-7.lua); nothing changed
local active, delayed, dead, stats = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, id, attempt = ARGV[1], ARGV[2], ARGV[3]
local jk = prefix .. 'job:' .. id

--@include server-time
--@include protocol
--@include type-guard
--@include fence-check
--@include dead-cap
--@include events
--@include groups
--@include publish
--@include error-log
local now = serverNow()
local laterProtocol = protocolRefusal(prefix)
if laterProtocol then return laterProtocol end

local refused = guard(active, 'zset') or guard(delayed, 'zset') or guard(dead, 'zset') or guard(stats, 'hash')
  or guardDeadCap(prefix) or guardErrorLog(prefix)
if refused then return refused end

local h = redis.call('HMGET', jk, 'state', 'attempts', 'spent', 'max_attempts', 'backoff_ms', 'backoff_max_ms', 'group', 'errors')
local code = fenceCheck(h, attempt, active, id, now)
if code ~= 1 then return {code, 0} end
if h[7] then
  refused = groupGuard(prefix, h[7])
  if refused then return refused end
end

redis.call('ZREM', active, id)
redis.call('DEL', jk .. ':lock')
redis.call('HINCRBY', stats, 'failed', 1)
local errors = attemptErrors(h[8], attempt, now, ARGV[4])
countError(prefix, ARGV[4], now)
if h[7] then
  groupRelease(prefix, h[7])
  if groupsFreed > 0 then publishOn(ARGV[8], prefix .. 'wake', groupsFreed) end
end
local spent = tonumber(h[3] or '0')
local maxAttempts = tonumber(h[4] or '3')
if ARGV[6] ~= '1' or spent >= maxAttempts then
  local reason = 'failed on attempt ' .. spent .. ' of ' .. maxAttempts
  if ARGV[6] ~= '1' then reason = 'failed without retry on attempt ' .. spent end
  redis.call('HSET', jk, 'state', 'dead', 'last_error', ARGV[4], 'errors', errors, 'dead_reason', reason, 'finished_at', now)
  redis.call('ZADD', dead, now, id)
  capDead(dead, prefix, now, 1)
  emitEvent(prefix, 'dead', id, attempt, 'reason', reason, 'error', ARGV[4])
  return {3, 0}
end

local delay = tonumber(ARGV[7] or '')
if delay then
  delay = math.floor(math.min(math.max(delay, 0), 31536000000))
else
  local base = tonumber(h[5] or '1000')
  local cap = tonumber(h[6] or '3600000')
  local d = base * 2 ^ math.min(math.max(spent - 1, 0), 40)
  if d > cap then d = cap end
  delay = math.floor(d / 2 + tonumber(ARGV[5]) * d / 2)
end
redis.call('HSET', jk, 'state', 'delayed', 'last_error', ARGV[4], 'errors', errors)
redis.call('ZADD', delayed, now + delay, id)
emitEvent(prefix, 'retrying', id, attempt, 'reason', ARGV[4], 'delay_ms', delay)
return {2, delay}
