-- enqueue-compact-5.lua: the compact form of enqueue-5.lua, for the usual bulk: n jobs that all
-- have the default options (priority 0, no delay or run-at, default attempts, backoff and
-- timeout, no idempotency key, no group), so that only their payloads are sent. In one atomic
-- step: in the LIST layout without extra fields (the default), each job's payload waits in a
-- pending bucket (includes/buckets.lua: the field <id> of <prefix>pb:<floor(id / 128)>, value
-- "<created_at>:<payload>", one HSET per bucket the call fills) and it gets no hash until its
-- claim; with extra fields, or in the ZSET layout (includes/layout.lua), each job gets the hash
-- {payload, created_at} plus the call's extra fields in one HSET, as enqueue-5.lua writes it.
-- Its id goes to the wait LIST (RPUSH in chunks), or in the ZSET layout to the pending ZSET
-- scored by its seq (ZADD in chunks); an 'enqueued' event per job when the queue's
-- events_enqueued setting is 1 (includes/events.lua); and one wake message, the number of jobs.
-- The ids are contiguous: the sequence is read once and set once to its value plus n (GET, then
-- SET ... KEEPTTL, as INCRBY would, with only the commands the documented ACL line already grants
-- to enqueue-5.lua). enqueue-5.lua's n INCRs hand out the same ids, since without an idempotency
-- key no job can be skipped, and the call is atomic.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type
-- (the same guards as enqueue-5.lua, delayed included, so that both forms refuse alike), and with
-- an ERR, having changed nothing, when seq holds an integer that INCR would not take or that a Lua
-- number cannot hold exactly (a leading zero or plus, -0, past 2^53).
-- A key of another type where a fresh job's hash goes (foreign data at an id never handed out)
-- fails the call with seq advanced past the call's ids and nothing else written, so that the next
-- call goes past it: one EXISTS over the n fresh keys proves them absent before the first write
-- (one command per call, not per job); only when some exist is each one's TYPE read. A foreign
-- HASH there is written into, as enqueue-5.lua's HSET would (a bucketed job's claim writes it
-- then). A bucket key of another type is never written: its jobs get a hash each.
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks the queue as protocol 2 with its first job (the key <prefix>delayed, includes/protocol.lua).
--
-- KEYS[1] pending   emq:{q}:pending  ZSET; in the ZSET layout every job goes here, score = its seq
-- KEYS[2] delayed   emq:{q}:due      ZSET, only type-checked (no job here is delayed)
-- KEYS[3] seq       emq:{q}:seq      STRING integer, the last id handed out
-- KEYS[4] wake      emq:{q}:wake     pub/sub channel; one message per call: n, the jobs readied
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first (RPUSH here)
-- ARGV[1] prefix    emq:{q}:  (job keys are <prefix>job:<id>, pending buckets <prefix>pb:<n>)
-- ARGV[2] count     number of jobs n, >= 1
-- ARGV[3] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else PUBLISH
-- ARGV[4] fields    k, the number of extra fields (0 for none)
-- ARGV[5..]         k pairs name, value that every job stores in its hash too (a tracing hook's
--                   traceparent and tracestate). The caller keeps them off the protocol's own names.
-- ARGV[5 + 2k..]    n payloads, one per job, in order
--
-- Returns {first, n}: the first job's id, an integer; the jobs' ids are first .. first + n - 1 in order.
local pending, delayed, seqKey, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix = ARGV[1]
local count = tonumber(ARGV[2])
local publishMode = ARGV[3]
local k = tonumber(ARGV[4])
-- the extra fields, appended to each job's HSET; none (the usual case) adds nothing
local extra = {}
for j = 1, 2 * k do extra[j] = ARGV[4 + j] end
-- payload i is ARGV[base + i]
local base = 4 + 2 * k

--@include server-time
--@include protocol
--@include type-guard
--@include layout
--@include buckets
--@include events
--@include publish
local now = serverNow()
local laterProtocol = protocolRefusal(prefix, true)
if laterProtocol then return laterProtocol end

local refused = guard(pending, 'zset') or guard(delayed, 'zset') or guard(seqKey, 'string')
  or guard(wait, 'list')
if refused then return refused end
local zset, lerr = zsetLayout(prefix .. 'layout')
if zset == nil then return lerr end
local settings = queueSettings(prefix)
local enqueuedEvents = settings and settings[4] == '1'

local format = string.format
local last = redis.call('GET', seqKey)
local first = 1
if last then
  first = tonumber(last)
  if first == nil or first >= 2^53 or first <= -2^53 or format('%d', first) ~= last then
    return redis.error_reply('ERR ' .. seqKey .. ' holds ' .. last .. ', not an id sequence; nothing was changed')
  end
  first = first + 1
end
local jobs = prefix .. 'job:'
-- the fresh jobs' keys, proven absent (or hashes) before the first write
local jobKeys = {}
for i = 1, count do jobKeys[i] = jobs .. format('%d', first + i - 1) end
if redis.call('EXISTS', unpack(jobKeys)) > 0 then
  for i = 1, count do
    local got = redis.call('TYPE', jobKeys[i])['ok']
    if got ~= 'none' and got ~= 'hash' then
      redis.call('SET', seqKey, format('%d', first + count - 1), 'KEEPTTL')
      return redis.error_reply('WRONGTYPE ' .. jobKeys[i] .. ' holds a ' .. got
        .. ', not a hash; only ' .. seqKey .. ' was advanced past it')
    end
  end
end
-- the LIST layout's default jobs wait in buckets. Each bucket the call fills is proven a hash
-- (or absent) by one TYPE before the first write; one of another type (foreign data) is left
-- alone, and the jobs whose bucket it is get a hash each instead, as the ZSET layout's do.
local bucketed = not zset and #extra == 0
local foreignBucket = {}
if bucketed then
  local lastBucket = nil
  for i = 1, count do
    local bk = bucketKey(prefix, format('%d', first + i - 1))
    if bk ~= lastBucket then
      local got = redis.call('TYPE', bk)['ok']
      if got ~= 'none' and got ~= 'hash' then foreignBucket[bk] = true end
      lastBucket = bk
    end
  end
end
markQueue(prefix)   -- with the first job written, so that a refused call writes nothing
redis.call('SET', seqKey, format('%d', first + count - 1), 'KEEPTTL')
-- created_at as enqueue-5.lua writes it: the server ms, an integer, formatted once per call
local created = format('%d', now)
local hasExtra = #extra > 0
-- ids for the LIST (or score, id pairs for the ZSET), written in chunks of 500 jobs
local chunk = {}
local filled = 0
local function flush()
  if filled > 0 then
    if zset then redis.call('ZADD', pending, unpack(chunk, 1, filled)) else redis.call('RPUSH', wait, unpack(chunk, 1, filled)) end
    filled = 0
  end
end

-- a bucket's fields, written in one HSET when the next job falls in another bucket
local fields, fieldsKey = {}, nil
local function flushFields()
  if #fields > 0 then
    redis.call('HSET', fieldsKey, unpack(fields))
    fields = {}
  end
end
local createdColon = created .. ':'

for i = 1, count do
  local seq = first + i - 1
  local id = format('%d', seq)
  local bk = bucketed and bucketKey(prefix, id)
  if bk and not foreignBucket[bk] then
    if bk ~= fieldsKey or #fields >= 2 * BUCKET_IDS then
      flushFields()
      fieldsKey = bk
    end
    fields[#fields + 1] = id
    fields[#fields + 1] = createdColon .. ARGV[base + i]
  elseif hasExtra then
    redis.call('HSET', jobKeys[i], 'payload', ARGV[base + i], 'created_at', created, unpack(extra))
  else
    redis.call('HSET', jobKeys[i], 'payload', ARGV[base + i], 'created_at', created)
  end
  if zset then
    chunk[filled + 1] = seq
    chunk[filled + 2] = id
    filled = filled + 2
  else
    filled = filled + 1
    chunk[filled] = id
  end
  if filled == 500 then flush() end
  if enqueuedEvents then emitEvent(prefix, 'enqueued', id, 0) end
end

flushFields()
flush()
publishOn(publishMode, wake, count)
return {first, count}
