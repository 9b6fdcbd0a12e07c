-- enqueue-5.lua: adds one or many jobs to a queue in one atomic step. Each job gets the next id
-- from the queue's sequence, a hash, and a place either in pending (ready now: the wait LIST for
-- priority 0, the pending ZSET otherwise) or in delayed (due later, on the server clock). An idempotency key that is still inside its window returns
-- the id it already maps to and adds nothing.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- KEYS[1] pending   emq:{q}:pending  ZSET of priority != 0, score = seq - priority * 2^42 (lowest claimed first)
-- KEYS[2] delayed   emq:{q}:delayed  ZSET, score = due time in server ms
-- KEYS[3] seq       emq:{q}:seq      STRING integer, the last id handed out
-- KEYS[4] wake      emq:{q}:wake     pub/sub channel; one message per call that added jobs: the
--                                    number readied now (0 when all wait in delayed, so that idle
--                                    workers learn the new earliest due time)
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first (RPUSH here)
-- ARGV[1] prefix    emq:{q}:  (job keys are <prefix>job:<id>, idempotency keys <prefix>idem:<key>)
-- ARGV[2] count     number of jobs n that follow, >= 1
-- ARGV[3..]         n groups of 9 values, one group per job, in this order:
--                     payload, priority (-1000..1000), delay ms (0 = none), run-at epoch ms
--                     (0 = none; wins over delay), max attempts (0 = default 3), backoff base ms
--                     (0 = default 1000), backoff cap ms (0 = default 3600000),
--                     idempotency key ('' = none), idempotency window ms
-- ARGV[3 + 9n]      publish mode, after the last group: SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
--
-- Returns a flat array of 2n values, {id1, created1, id2, created2, ...}: for each job in order,
-- its id (a decimal string) and 1 if it was created, or 0 if its idempotency key already named
-- the existing id that is returned instead.
local pending, delayed, seqKey, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix = ARGV[1]
local count = tonumber(ARGV[2])
local publish = 'PUBLISH'
if ARGV[3 + 9 * count] == 'SPUBLISH' then publish = 'SPUBLISH' end

--@include server-time
--@include type-guard
--@include job-fields
local now = serverNow()

local refused = guard(pending, 'zset') or guard(delayed, 'zset') or guard(seqKey, 'string')
  or guard(wait, 'list')
if refused then return refused end
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
  local b = 3 + i * 9
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
    local id = string.format('%d', redis.call('INCR', seqKey))
    local jk = prefix .. 'job:' .. id
    local priority = tonumber(ARGV[b + 1])
    local delay = tonumber(ARGV[b + 2])
    local runAt = tonumber(ARGV[b + 3])
    -- One HSET per job, and only what differs from the defaults (docs/protocol.md, "when absent"):
    -- a small pending job is the hash {payload} alone, which keeps it a small listpack.
    local fields = {'payload', ARGV[b]}
    if priority ~= 0 then fields[#fields + 1] = 'priority'; fields[#fields + 1] = priority end
    if ARGV[b + 4] ~= '0' then fields[#fields + 1] = 'max_attempts'; fields[#fields + 1] = ARGV[b + 4] end
    if ARGV[b + 5] ~= '0' then fields[#fields + 1] = 'backoff_ms'; fields[#fields + 1] = ARGV[b + 5] end
    if ARGV[b + 6] ~= '0' then fields[#fields + 1] = 'backoff_max_ms'; fields[#fields + 1] = ARGV[b + 6] end
    if idemKey then
      redis.call('SET', idemKey, id, 'PX', ARGV[b + 8])
      fields[#fields + 1] = 'idem'; fields[#fields + 1] = idem
    end
    local due = 0
    if runAt > 0 then due = runAt elseif delay > 0 then due = now + delay end
    if due > now then
      fields[#fields + 1] = 'state'; fields[#fields + 1] = 'delayed'
      redis.call('HSET', jk, unpack(fields))
      redis.call('ZADD', delayed, due, id)
      scheduled = scheduled + 1
    else
      redis.call('HSET', jk, unpack(fields))
      if priority == 0 then
        waiting[#waiting + 1] = id
        if #waiting == 500 then flush() end
      else
        redis.call('ZADD', pending, tonumber(id) - priority * SHIFT, id)
      end
      ready = ready + 1
    end
    out[#out + 1] = id
    out[#out + 1] = 1
  end
end

flush()
if ready > 0 or scheduled > 0 then redis.call(publish, wake, ready) end
return out
