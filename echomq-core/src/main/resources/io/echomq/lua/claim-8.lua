-- claim-8.lua: the worker's one step. In this order, all atomic:
--   1. complete the k jobs the caller finished (k = 0..256, a group commit), each fenced by its
--      own attempt and answered with its own code;
--   2. promote delayed jobs that are due, at most a bounded number;
--   3. claim up to N pending jobs, in the documented order (docs/protocol.md, "Claim order"):
--      the pending ZSET's head while its score is below 2^42 (priority > 0, then priority-0
--      entries an older version left there), else LPOP the wait LIST (priority 0, FIFO), else
--      the ZSET's head (priority < 0). Then attempts + 1 (the fence),
--      spent + 1, state=active (one HSET), ZADD active now + lease, SET the lock subkey with
--      the same deadline. A malformed job hash is moved to dead with a reason instead, and so
--      is an id holding ':' (it would alias another job's keys), whose keys are not touched.
-- Complete alone is this script with N = 0 and no promotion; promote alone is N = 0, no ack.
-- (Issue 4: group commit changed the ack section, the ARGV layout and the first reply element;
-- the wait LIST added KEYS[8] and the claim order of section 3.)
--
-- Fails with a WRONGTYPE error, having changed nothing, when a key it is about to touch holds
-- another type (a job key that is not a hash only refuses its own ack, code -5). All reads come
-- first; a key is then checked with TYPE only when a write precedes its first touch and no read
-- of this call has already proved its type. A call that finds nothing to do checks nothing more.
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
-- ARGV[5] retain    ms to keep a completed job's hash (state=done); 0 deletes it at once
-- ARGV[6] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else PUBLISH
-- ARGV[7] acks      k, how many jobs to complete first, 0..256
-- ARGV[8..7+2k]     k pairs: the id of a job to complete, and the attempt it was granted
--
-- Returns an array: {acks, next_due, dead, promoted, id1, payload1, attempt1, spent1, max1, id2, ...}
--   acks      an array of k codes, one per pair in order: 1 COMPLETED · -1 SUPERSEDED (attempts
--             moved on) · -2 EXPIRED (lease deadline passed) · -3 NOT_ACTIVE (job not in state
--             active) · -4 MISSING · -5 the job key holds another type (nothing of it changed)
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
local retain = tonumber(ARGV[5])
local publish = 'PUBLISH'
if ARGV[6] == 'SPUBLISH' then publish = 'SPUBLISH' end
local nAcks = tonumber(ARGV[7])
local SHIFT = 4398046511104

local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)

-- The refusal: a job taken from one set whose ZADD into the next then failed would be lost from
-- every set, so a key of another type stops the call before its first write. err is the error of
-- the read or write that failed, if any: when the key's type is right, that error is the answer.
local function refuse(key, want, err)
  local got = redis.call('TYPE', key)['ok']
  if got == want or got == 'none' then
    if err then return err end
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a value of the wrong kind; nothing was changed')
  end
  return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. got .. ', not a ' .. want
    .. '; nothing was changed')
end
local checked = {}   -- key -> its type ('none' for no key) once this call has proved it
local function guard(key, want)
  if checked[key] then return nil end
  local got = redis.call('TYPE', key)['ok']
  if got ~= want and got ~= 'none' then return refuse(key, want) end
  if want == 'string' and got == 'string' and not string.match(redis.call('GET', key), '^%-?%d+$') then
    return redis.error_reply('WRONGTYPE ' .. key .. ' is not an integer; nothing was changed')
  end
  checked[key] = got
  return nil
end

local function isInt(v)
  return v == false or v == nil or string.match(v, '^%-?%d+$') ~= nil
end

-- a counter HINCRBY can add 1 to: Redis's own integer syntax (no leading zero, no -0), at most
-- 15 digits. Anything else would fail HINCRBY after the pop took the job, losing it from every set.
local function isCounter(v)
  return v == false or v == nil or ((v == '0' or string.match(v, '^%-?[1-9]%d*$') ~= nil) and #v <= 16)
end

-- reads: every ack's fence, and the due delayed jobs
local ack = {}
local done, doneAt, dels = {}, {}, {}
if nAcks > 0 then
  local ids = {}
  for i = 1, nAcks do ids[i] = ARGV[6 + 2 * i] end
  local ok, deadlines = pcall(redis.call, 'ZMSCORE', active, unpack(ids))
  if not ok then return refuse(active, 'zset', deadlines) end
  checked[active] = 'zset'
  for i = 1, nAcks do
    local id, att = ids[i], ARGV[7 + 2 * i]
    local code
    if doneAt[id] then
      -- an earlier pair of this call completed the job: answer as a later call would
      if retain == 0 then code = -4 elseif doneAt[id] ~= att then code = -1 else code = -3 end
    else
      local jk = prefix .. 'job:' .. id
      local okh, h = pcall(redis.call, 'HMGET', jk, 'state', 'attempts')
      if not okh then code = -5
      elseif not h[1] and not h[2] then code = -4
      elseif h[2] ~= att then code = -1
      elseif h[1] ~= 'active' then code = -3
      elseif not deadlines[i] or tonumber(deadlines[i]) <= now then code = -2
      else
        code = 1
        doneAt[id] = att
        done[#done + 1] = id
        dels[#dels + 1] = jk .. ':lock'
        if retain == 0 then dels[#dels + 1] = jk end
      end
    end
    ack[i] = code
  end
end
local due = {}
if promoteMax > 0 then
  local ok, d = pcall(redis.call, 'ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, promoteMax)
  if not ok then return refuse(delayed, 'zset', d) end
  checked[delayed] = 'zset'
  due = d
end

-- checks, before the first write, of the keys a later write touches and no read has proved
local refused = nil
if #due > 0 then
  refused = guard(seqKey, 'string') or guard(pending, 'zset') or guard(wait, 'list')
end
if not refused and want > 0 then
  refused = guard(pending, 'zset') or guard(wait, 'list')
  -- a pending set and a wait list that were empty (TYPE none) and get no promoted job pop
  -- nothing: the claim then touches nothing but the read of the earliest due time
  if not refused and (checked[pending] ~= 'none' or checked[wait] ~= 'none' or #due > 0) then
    refused = guard(active, 'zset') or guard(dead, 'zset') or guard(stats, 'hash')
  end
  refused = refused or guard(delayed, 'zset')
end
if refused then return refused end

-- 1. complete: the counter first, as the one write that can still fail, so that it changes nothing
if #done > 0 then
  local ok, err = pcall(redis.call, 'HINCRBY', stats, 'completed', #done)
  if not ok then return refuse(stats, 'hash', err) end
  redis.call('ZREM', active, unpack(done))
  redis.call('DEL', unpack(dels))
  if retain > 0 then
    for _, id in ipairs(done) do
      local jk = prefix .. 'job:' .. id
      redis.call('HSET', jk, 'state', 'done', 'finished_at', now)
      redis.call('PEXPIRE', jk, retain)
    end
  end
end

-- 2. promote due delayed jobs, each to the back of its priority band (RPUSH for priority 0)
local promoted = 0
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

-- 3. claim. The next pending id, in claim order: the ZSET's head while its score is below 2^42
-- (priority > 0, or a priority-0 entry an older version left in the ZSET: older than the LIST),
-- else the LIST's head (priority 0), else the ZSET's head (priority < 0). O(1) for the LIST,
-- O(log n) for the ZSET. score is nil for an id from the LIST.
-- The ZSET's head is read once and kept: nothing but this loop's own ZREM changes the ZSET
-- while it runs, so a claim from the LIST costs one LPOP.
local zhead = nil   -- {id, score} of the ZSET's head; false when the ZSET is empty; nil: unread
local function popNext()
  if zhead == nil then
    local h = redis.call('ZRANGE', pending, 0, 0, 'WITHSCORES')
    if h[1] then zhead = {h[1], h[2]} else zhead = false end
  end
  if zhead and tonumber(zhead[2]) < SHIFT then
    local id, score = zhead[1], zhead[2]
    redis.call('ZREM', pending, id)
    zhead = nil
    return id, score
  end
  local id = redis.call('LPOP', wait)
  if id then return id, nil end
  if zhead then
    local zid, score = zhead[1], zhead[2]
    redis.call('ZREM', pending, zid)
    zhead = nil
    return zid, score
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
