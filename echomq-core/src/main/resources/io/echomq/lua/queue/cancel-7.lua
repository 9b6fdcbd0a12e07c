-- cancel-7.lua: cancels one job, wherever it is, in one step on the server clock.
--   - pending (the wait LIST or the pending ZSET) or delayed: the id leaves its set and the hash
--     gets state cancelled and finished_at; a job that waited in a bucket (includes/buckets.lua)
--     leaves it, and its hash is made with its payload and created_at. A priority-0 pending job costs an LREM of the wait
--     LIST, O(n) in its length, as remove-5.lua does; a job in a ZSET costs O(log n).
--   - active: the running attempt ends now, fenced by the attempts it holds: the id leaves active,
--     its lock subkey is deleted, the hash gets state cancelled, cancel <that attempt> and
--     finished_at, and "<id> <attempt>" is published on the cancel channel. The holder learns of
--     it by that message or by its next lease renewal, both answered by the fence check: every
--     later call of that attempt (complete, fail, extend, progress, return, a claim's complete)
--     answers -6 CANCELLED and changes nothing. A later attempt cannot exist: a cancelled job is in
--     no set, so nothing claims it again.
-- A grouped job frees its group's place when it was active, and leaves its group's LIST (an LREM,
-- O(n) in that LIST's length) when it was pending (includes/groups.lua); a freed place that
-- brings the group back to the rotation is published on <prefix>wake (1).
-- The hash is kept for ARGV[3] ms, as a done job's; with 0 the hash of a job that was not running
-- is deleted at once, and a running job's is kept until its lease would have ended, so that its
-- holder's late calls are still answered -6. Its idempotency key is left to expire in its window.
-- A cancel that changed the job adds its id to the queue's record of cancellations, the ZSET
-- <prefix>cancelled (score = the cancel's server time in ms), which keeps the last 10000: each
-- add drops the oldest entries over that, at most 64 per call (ZRANGE then ZREM, O(log n) plus
-- what it drops: one entry in the steady state; a record grown over the cap by another writer
-- shrinks over several calls). The record keeps ids only, so that a cancelled job stays listable
-- whatever its hash's retention; remove-5 leaves it alone (a listing skips an entry whose hash
-- is in another state: QueueListing), and it is trimmed only here.
-- A cancel that changed the job also writes a 'cancelled' event to <prefix>events (includes/events.lua),
-- its reason naming the state it was cancelled in.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its sets, the record, or the
-- job key, holds another type.
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks a queue that has data as protocol 2 first (the key <prefix>delayed,
-- includes/protocol.lua).
--
-- KEYS[1] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[2] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[3] delayed   emq:{q}:due      ZSET
-- KEYS[4] dead      emq:{q}:dead     ZSET
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids
-- KEYS[6] cancel    emq:{q}:cancel   pub/sub channel, told "<id> <attempt>" when a running job is cancelled
-- KEYS[7] cancelled emq:{q}:cancelled ZSET, the record of the last 10000 cancellations (id, score = server ms)
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] retain    ms to keep the cancelled job's hash; 0: see above
-- ARGV[4] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else PUBLISH
--
-- Returns an integer:
--    2  SIGNALLED         the job was running: its attempt is ended and its holder told
--    1  CANCELLED         the job was pending or delayed: it will not run
--    0  ALREADY_FINISHED  the job is done, dead or cancelled already; nothing changed
--   -1  NOT_FOUND         no such job in any set, or an id holding ':'; nothing changed
local pending, active, delayed, dead, wait, channel, record = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local RECORD_MAX = 10000
local prefix, id = ARGV[1], ARGV[2]
local retain = tonumber(ARGV[3]) or 0
local publishMode = ARGV[4]

--@include server-time
--@include protocol
--@include type-guard
--@include events
--@include groups
--@include publish
--@include buckets
local now = serverNow()
local laterProtocol = protocolRefusal(prefix)
if laterProtocol then return laterProtocol end

-- an id holding ':' has no keys of its own ('7:lock' would be job 7's lock subkey)
if string.find(id, ':', 1, true) then return -1 end
local refused = guard(pending, 'zset') or guard(active, 'zset') or guard(delayed, 'zset') or guard(dead, 'zset')
  or guard(wait, 'list') or guard(record, 'zset') or guard(prefix .. 'job:' .. id, 'hash')
if refused then return refused end

local jk = prefix .. 'job:' .. id
local h = redis.call('HMGET', jk, 'state', 'attempts', 'group')
local deadline = redis.call('ZSCORE', active, id)

-- records the cancel, and drops the oldest entries over RECORD_MAX
local function remember()
  redis.call('ZADD', record, now, id)
  local over = redis.call('ZCARD', record) - RECORD_MAX
  if over > 0 then redis.call('ZREM', record, unpack(redis.call('ZRANGE', record, 0, math.min(over, 64) - 1))) end
end

local function finish(keepFor)
  if keepFor > 0 then
    redis.call('PEXPIRE', jk, keepFor)
  else
    redis.call('DEL', jk)
  end
end

if deadline then
  local attempt = h[2] or '0'
  redis.call('ZREM', active, id)
  redis.call('DEL', jk .. ':lock')
  if h[3] then
    groupRelease(prefix, h[3])
    if groupsFreed > 0 then publishOn(publishMode, prefix .. 'wake', groupsFreed) end
  end
  redis.call('HSET', jk, 'state', 'cancelled', 'cancel', attempt, 'finished_at', now)
  finish(math.max(retain, tonumber(deadline) - now))
  remember()
  publishOn(publishMode, channel, id .. ' ' .. attempt)
  emitEvent(prefix, 'cancelled', id, attempt, 'reason', 'cancelled while active')
  return 2
end
if h[1] == 'done' or h[1] == 'dead' or h[1] == 'cancelled' or redis.call('ZSCORE', dead, id) then
  return 0
end
local found = redis.call('ZREM', delayed, id) + redis.call('ZREM', pending, id)
if found == 0 and h[3] then found = groupUnlist(prefix, h[3], id) end
if found == 0 then found = redis.call('LREM', wait, 0, id) end
if found == 0 then return -1 end
local was = h[1] or 'pending'
-- a job that waited in a bucket gets its hash now, with the fields a fresh hash holds
local created, payload, rawValue = bucketTake(prefix, id)
if created then
  redis.call('HSET', jk, 'payload', payload, 'created_at', created, 'state', 'cancelled', 'finished_at', now)
elseif rawValue then
  redis.call('HSET', jk, 'payload', rawValue, 'state', 'cancelled', 'finished_at', now)
else
  redis.call('HSET', jk, 'state', 'cancelled', 'finished_at', now)
end
finish(retain)
remember()
emitEvent(prefix, 'cancelled', id, h[2] or 0, 'reason', 'cancelled while ' .. was)
return 1
