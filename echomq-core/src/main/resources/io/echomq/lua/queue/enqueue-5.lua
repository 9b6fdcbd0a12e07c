-- enqueue-5.lua: adds one or many jobs to a queue in one atomic step. Each job gets the next id
-- from the queue's sequence, a hash, and a place either in pending (ready now: the wait LIST for
-- priority 0, the pending ZSET otherwise) or in delayed (due later, on the server clock). An idempotency key that is still inside its window returns
-- the id it already maps to and adds nothing. In the queue's ZSET layout (includes/layout.lua) a
-- ready job of priority 0 goes to the pending ZSET too, scored as every other: its seq. When the
-- queue's events_enqueued setting is 1, each job created writes an 'enqueued' event to
-- <prefix>events (includes/events.lua); else none, and the setting costs one HMGET per call.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS or a key of a job's
-- group (includes/groups.lua, groupGuard) holds another type, and with an ERR naming the job when
-- a group key is not valid. A key of another type where a fresh job's hash goes (foreign data at
-- an id never handed out) fails the call with seq advanced past it and nothing else written, so
-- that the next call goes past it.
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks the queue as protocol 2 with its first job (the key <prefix>delayed, includes/protocol.lua).
--
-- KEYS[1] pending   emq:{q}:pending  ZSET of priority != 0 (of every priority in the ZSET layout),
--                                    score = seq - priority * 2^42 (lowest claimed first)
-- KEYS[2] delayed   emq:{q}:due      ZSET, score = due time in server ms
-- KEYS[3] seq       emq:{q}:seq      STRING integer, the last id handed out
-- KEYS[4] wake      emq:{q}:wake     pub/sub channel; one message per call that added jobs: the
--                                    number readied now (0 when all wait in delayed, so that idle
--                                    workers learn the new earliest due time)
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first (RPUSH here)
-- ARGV[1] prefix    emq:{q}:  (job keys are <prefix>job:<id>, idempotency keys <prefix>idem:<key>)
-- ARGV[2] count     number of jobs n that follow, >= 1
-- ARGV[3..]         n groups of 10 values, one group per job, in this order:
--                     payload, priority (-1000..1000), delay ms (0 = none), run-at epoch ms
--                     (0 = none; wins over delay), max attempts (0 = default 3), backoff base ms
--                     (0 = default 1000), backoff cap ms (0 = default 3600000),
--                     idempotency key ('' = none), idempotency window ms,
--                     timeout ms (0 = none: the queue's default, else the worker's, applies)
-- ARGV[3 + 10n]     publish mode, after the last group: SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
-- ARGV[4 + 10n]     extra fields, optional, after the publish mode: k (absent = 0), then k pairs name, value
--                   that every job this call creates also stores in its hash (a tracing hook's
--                   traceparent and tracestate). The caller keeps them off the protocol's own field names.
-- ARGV[5 + 10n + 2k..] groups, optional, after the extra fields (which then must be given, k = 0
--                   for none): n values, one per job in order, its group key ('' = none). A
--                   grouped job stores field group; ready, it waits at the back of its group's
--                   LIST, whatever its priority (includes/groups.lua). A group key that is not
--                   valid (groupValid) fails the call before anything is written.
--
-- Returns a flat array of 2n values, {id1, created1, id2, created2, ...}: for each job in order,
-- its id (a decimal string) and 1 if it was created, or 0 if its idempotency key already named
-- the existing id that is returned instead.
local pending, delayed, seqKey, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix = ARGV[1]
local count = tonumber(ARGV[2])
local publishMode = ARGV[3 + 10 * count]
-- the extra fields, appended to each created job's HSET; none (the usual case) adds nothing
local extra = {}
for j = 1, 2 * (tonumber(ARGV[4 + 10 * count]) or 0) do extra[j] = ARGV[4 + 10 * count + j] end
-- the first group key's index, less one; nothing there (the usual case): no job is grouped
local groupBase = 4 + 10 * count + 2 * (tonumber(ARGV[4 + 10 * count]) or 0)

--@include server-time
--@include protocol
--@include type-guard
--@include job-fields
--@include layout
--@include events
--@include groups
--@include publish
local now = serverNow()
local laterProtocol = protocolRefusal(prefix, true)
if laterProtocol then return laterProtocol end

for i = 1, count do
  local g = ARGV[groupBase + i]
  if g and g ~= '' and not groupValid(g) then
    return redis.error_reply('ERR job ' .. i .. ': a group key is 1..128 of A-Z a-z 0-9 . _ - @ + = / #')
  end
end
local refused = guard(pending, 'zset') or guard(delayed, 'zset') or guard(seqKey, 'string')
  or guard(wait, 'list')
if refused then return refused end
-- the keys of each group a job joins, before the first write (a TYPE per key, grouped calls only)
for i = 1, count do
  local g = ARGV[groupBase + i]
  if g and g ~= '' then
    refused = groupGuard(prefix, g)
    if refused then return refused end
  end
end
local zset, lerr = zsetLayout(prefix .. 'layout')
if zset == nil then return lerr end
local settings = queueSettings(prefix)
local enqueuedEvents = settings and settings[4] == '1'
local out = {}
local ready = 0
local scheduled = 0
-- priority-0 ids, RPUSHed in chunks (one call per chunk instead of one per job)
local waiting = {}
local function flush()
  if #waiting > 0 then
    redis.call('RPUSH', wait, unpack(waiting))
    waiting = {}
  end
end

for i = 0, count - 1 do
  local b = 3 + i * 10
  local idem = ARGV[b + 7]
  local idemKey = nil
  local existing = false
  if idem ~= '' then
    idemKey = prefix .. 'idem:' .. idem
    local known = redis.call('GET', idemKey)
    if known then
      out[#out + 1] = known
      out[#out + 1] = 0
      existing = true
    end
  end
  if not existing then
    markQueue(prefix)   -- with the first job written, so that a refused call writes nothing
    local id = string.format('%d', redis.call('INCR', seqKey))
    local jk = prefix .. 'job:' .. id
    local priority = tonumber(ARGV[b + 1])
    local delay = tonumber(ARGV[b + 2])
    local runAt = tonumber(ARGV[b + 3])
    -- One HSET per job, and only what differs from the defaults (docs/protocol.md, "when absent"):
    -- a small pending job is the hash {payload, created_at}, which keeps it a small listpack.
    -- created_at (server ms) gives a first claim its wait; a listpack stores it as an integer.
    local fields = {'payload', ARGV[b], 'created_at', now}
    local group = ARGV[groupBase + i + 1]
    if group == '' then group = nil end
    if group then fields[#fields + 1] = 'group'; fields[#fields + 1] = group end
    if priority ~= 0 then fields[#fields + 1] = 'priority'; fields[#fields + 1] = priority end
    if ARGV[b + 4] ~= '0' then fields[#fields + 1] = 'max_attempts'; fields[#fields + 1] = ARGV[b + 4] end
    if ARGV[b + 5] ~= '0' then fields[#fields + 1] = 'backoff_ms'; fields[#fields + 1] = ARGV[b + 5] end
    if ARGV[b + 6] ~= '0' then fields[#fields + 1] = 'backoff_max_ms'; fields[#fields + 1] = ARGV[b + 6] end
    if ARGV[b + 9] ~= '0' then fields[#fields + 1] = 'timeout_ms'; fields[#fields + 1] = ARGV[b + 9] end
    for j = 1, #extra do fields[#fields + 1] = extra[j] end
    if idemKey then
      fields[#fields + 1] = 'idem'; fields[#fields + 1] = idem
    end
    local due = 0
    if runAt > 0 then due = runAt elseif delay > 0 then due = now + delay end
    if due > now then
      fields[#fields + 1] = 'state'; fields[#fields + 1] = 'delayed'
      redis.call('HSET', jk, unpack(fields))
      if idemKey then redis.call('SET', idemKey, id, 'PX', ARGV[b + 8]) end
      redis.call('ZADD', delayed, due, id)
      scheduled = scheduled + 1
    else
      redis.call('HSET', jk, unpack(fields))
      -- the key's mapping only once its job exists: a refused HSET must not leave a key naming no job
      if idemKey then redis.call('SET', idemKey, id, 'PX', ARGV[b + 8]) end
      if group then
        groupPush(prefix, group, id, false)
      elseif priority == 0 and not zset then
        waiting[#waiting + 1] = id
        if #waiting == 500 then flush() end
      else
        redis.call('ZADD', pending, tonumber(id) - priority * SHIFT, id)
      end
      ready = ready + 1
    end
    if enqueuedEvents then emitEvent(prefix, 'enqueued', id, 0) end
    out[#out + 1] = id
    out[#out + 1] = 1
  end
end

flush()
if ready > 0 or scheduled > 0 then publishOn(publishMode, wake, ready) end
return out
