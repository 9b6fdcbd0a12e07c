-- claim-8.lua: the worker's one step. In this order, all atomic:
--   1. optionally complete the job the caller just finished (fenced by its attempt);
--   2. promote delayed jobs that are due, at most a bounded number;
--   3. claim up to N pending jobs, in the documented order (docs/protocol.md, "Claim order"):
--      the pending ZSET's head while its score is below 2^42 (priority > 0, then priority-0
--      entries an older version left there), else LPOP the wait LIST (priority 0, FIFO), else
--      the ZSET's head (priority < 0). Then attempts + 1 (the fence),
--      spent + 1, state=active (one HSET), ZADD active now + lease, SET the lock subkey with
--      the same deadline. A malformed job hash is moved to dead with a reason instead, and so
--      is an id holding ':' (it would alias another job's keys), whose keys are not touched.
-- Complete alone is this script with N = 0 and no promotion; promote alone is N = 0, no ack.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- KEYS[1] pending   emq:{q}:pending  ZSET, priority != 0, score = seq - priority * 2^42
-- KEYS[2] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[3] delayed   emq:{q}:delayed  ZSET, score = due time in server ms
-- KEYS[4] dead      emq:{q}:dead     ZSET, score = time of death in server ms
-- KEYS[5] seq       emq:{q}:seq      STRING integer (promotion gives a job a fresh place)
-- KEYS[6] stats     emq:{q}:stats    HASH of counters (completed)
-- KEYS[7] wake      emq:{q}:wake     pub/sub channel, told when promotion readies jobs nobody took
-- KEYS[8] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first (LPOP claims)
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] lease     lease in ms for the jobs claimed
-- ARGV[3] claim     how many jobs to claim at most (0 = none)
-- ARGV[4] promote   how many due delayed jobs to promote at most (0 = none)
-- ARGV[5] ack id    id of the job to complete first, or '' for none
-- ARGV[6] ack att   the attempt that job was granted
-- ARGV[7] retain    ms to keep a completed job's hash (state=done); 0 deletes it at once
-- ARGV[8] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
--
-- Returns an array: {ack, next_due, dead, promoted, id1, payload1, attempt1, spent1, max1, id2, ...}
--   ack       1 COMPLETED · 0 no ack asked · -1 SUPERSEDED (attempts moved on) · -2 EXPIRED
--             (lease deadline passed) · -3 NOT_ACTIVE (job not in state active) · -4 MISSING
--   next_due  ms until the earliest delayed job is due, when pending ran dry; -1 otherwise
--   dead      how many malformed jobs were moved to dead during this call
--   promoted  how many delayed jobs were promoted to pending (wait or the pending ZSET) during this call
--   then five values per claimed job: id, payload, attempt (the fence), spent attempts, max attempts
local pending, active, delayed, dead, seqKey, stats, wake =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local wait = KEYS[8]
local prefix = ARGV[1]
local lease = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local promoteMax = tonumber(ARGV[4])
local ackId = ARGV[5]
local publish = 'PUBLISH'
if ARGV[8] == 'SPUBLISH' then publish = 'SPUBLISH' end
local SHIFT = 4398046511104

local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)

-- Refuse, before any write, keys that another client replaced with another type: a job taken
-- from one set whose ZADD into the next then failed would be lost from every set.
local function wrongType(key, want)
  local got = redis.call('TYPE', key)['ok']
  if got ~= want and got ~= 'none' then
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. got .. ', not a ' .. want
      .. '; nothing was changed')
  end
  if want == 'string' and got == 'string' and not string.match(redis.call('GET', key), '^%-?%d+$') then
    return redis.error_reply('WRONGTYPE ' .. key .. ' is not an integer; nothing was changed')
  end
end
local refused = wrongType(pending, 'zset') or wrongType(active, 'zset') or wrongType(delayed, 'zset') or wrongType(dead, 'zset') or wrongType(seqKey, 'string') or wrongType(stats, 'hash')
  or wrongType(wait, 'list')
if refused then return refused end

local function isInt(v)
  return v == false or v == nil or string.match(v, '^%-?%d+$') ~= nil
end

-- a counter HINCRBY can add 1 to: Redis's own integer syntax (no leading zero, no -0), at most
-- 15 digits. Anything else would fail HINCRBY after the pop took the job, losing it from every set.
local function isCounter(v)
  return v == false or v == nil or ((v == '0' or string.match(v, '^%-?[1-9]%d*$') ~= nil) and #v <= 16)
end

-- 1. complete
local ack = 0
if ackId ~= '' then
  local jk = prefix .. 'job:' .. ackId
  local h = redis.call('HMGET', jk, 'state', 'attempts')
  local deadline = redis.call('ZSCORE', active, ackId)
  if not h[1] and not h[2] then ack = -4
  elseif h[2] ~= ARGV[6] then ack = -1
  elseif h[1] ~= 'active' then ack = -3
  elseif not deadline or tonumber(deadline) <= now then ack = -2
  else
    redis.call('ZREM', active, ackId)
    redis.call('DEL', jk .. ':lock')
    local retain = tonumber(ARGV[7])
    if retain > 0 then
      redis.call('HSET', jk, 'state', 'done', 'finished_at', now)
      redis.call('PEXPIRE', jk, retain)
    else
      redis.call('DEL', jk)
    end
    redis.call('HINCRBY', stats, 'completed', 1)
    ack = 1
  end
end

-- 2. promote due delayed jobs, each to the back of its priority band (RPUSH for priority 0)
local promoted = 0
if promoteMax > 0 then
  local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, promoteMax)
  for _, id in ipairs(due) do
    local jk = prefix .. 'job:' .. id
    local ok, p = pcall(redis.call, 'HGET', jk, 'priority')
    local priority = 0
    if ok and p and isInt(p) then priority = tonumber(p) end
    redis.call('ZREM', delayed, id)
    if priority == 0 then
      redis.call('RPUSH', wait, id)
    else
      local seq = redis.call('INCR', seqKey)
      redis.call('ZADD', pending, seq - priority * SHIFT, id)
    end
    if ok then redis.call('HSET', jk, 'state', 'pending') end
    promoted = promoted + 1
  end
end

-- 3. claim. The next pending id, in claim order: the ZSET's head while its score is below 2^42
-- (priority > 0, or a priority-0 entry an older version left in the ZSET: older than the LIST),
-- else the LIST's head (priority 0), else the ZSET's head (priority < 0). O(1) for the LIST,
-- O(log n) for the ZSET. score is nil for an id from the LIST.
local function popNext()
  local head = redis.call('ZRANGE', pending, 0, 0, 'WITHSCORES')
  if head[1] and tonumber(head[2]) < SHIFT then
    redis.call('ZREM', pending, head[1])
    return head[1], head[2]
  end
  local id = redis.call('LPOP', wait)
  if id then return id, nil end
  if head[1] then
    redis.call('ZREM', pending, head[1])
    return head[1], head[2]
  end
  return nil, nil
end

local out = {ack, -1, 0, promoted}
local claimed = 0
local deadCount = 0
local pops = 0
while claimed < want and pops < want + 64 do
  pops = pops + 1
  local id, score = popNext()
  if not id then break end
  local jk = prefix .. 'job:' .. id
  local ok, h = false, nil
  local reason = nil
  if string.find(id, ':', 1, true) then
    reason = "job id contains ':'"
  else
    ok, h = pcall(redis.call, 'HMGET', jk, 'payload', 'attempts', 'spent', 'max_attempts',
      'priority', 'backoff_ms', 'backoff_max_ms')
  end
  if reason then
    -- an id holding ':' names another job's keys ('7:lock' is job 7's lock subkey): touch none
  elseif not ok then
    reason = 'job key is not a hash'
  elseif not h[1] then
    if not h[2] and not h[3] then reason = 'job hash is missing' else reason = 'job hash has no payload' end
  elseif not isCounter(h[2]) then reason = 'attempts is not an integer: ' .. h[2]
  elseif not isCounter(h[3]) then reason = 'spent is not an integer: ' .. h[3]
  elseif not isInt(h[4]) or (h[4] and tonumber(h[4]) < 1) then reason = 'max_attempts is not a positive integer: ' .. h[4]
  elseif not isInt(h[5]) or (h[5] and math.abs(tonumber(h[5])) > 1000) then reason = 'priority is not an integer in -1000..1000: ' .. h[5]
  elseif not isInt(h[6]) or not isInt(h[7]) then reason = 'backoff_ms or backoff_max_ms is not an integer'
  end
  if reason then
    if ok then redis.call('HSET', jk, 'state', 'dead', 'dead_reason', reason, 'finished_at', now) end
    redis.call('ZADD', dead, now, id)
    deadCount = deadCount + 1
  else
    local attempt, spent
    if #(h[2] or '') <= 14 and #(h[3] or '') <= 14 then
      -- checked integers below 10^14: adding 1 in Lua is exact, and one HSET does the work of
      -- HINCRBY attempts, HINCRBY spent and the HSET below (one call per claim instead of three)
      attempt = (tonumber(h[2]) or 0) + 1
      spent = (tonumber(h[3]) or 0) + 1
      if score then
        redis.call('HSET', jk, 'attempts', string.format('%d', attempt), 'spent', string.format('%d', spent),
          'state', 'active', 'score', score, 'claimed_at', now)
      else
        redis.call('HSET', jk, 'attempts', string.format('%d', attempt), 'spent', string.format('%d', spent),
          'state', 'active', 'claimed_at', now)
      end
    else
      attempt = redis.call('HINCRBY', jk, 'attempts', 1)
      spent = redis.call('HINCRBY', jk, 'spent', 1)
      if score then
        redis.call('HSET', jk, 'state', 'active', 'score', score, 'claimed_at', now)
      else
        redis.call('HSET', jk, 'state', 'active', 'claimed_at', now)
      end
    end
    redis.call('SET', jk .. ':lock', attempt, 'PX', lease)
    redis.call('ZADD', active, now + lease, id)
    out[#out + 1] = id
    out[#out + 1] = h[1]
    out[#out + 1] = attempt
    out[#out + 1] = spent
    out[#out + 1] = tonumber(h[4] or '3')
    claimed = claimed + 1
  end
end
out[3] = deadCount

if claimed < want then
  local first = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if first[2] then out[2] = math.max(0, tonumber(first[2]) - now) end
end
if promoted > claimed then redis.call(publish, wake, promoted - claimed) end
return out
