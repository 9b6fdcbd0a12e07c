-- return-4.lua: gives a lease back without spending an attempt (graceful shutdown). The job goes
-- back to pending where it was claimed from, so it keeps its place: a priority-0 job to the FRONT
-- of the wait LIST (LPUSH), any other to the pending ZSET at the score it was claimed with (and
-- priority 0 too in the queue's ZSET layout, includes/layout.lua); a grouped job frees its group's
-- place and goes to the FRONT of its group's LIST (includes/groups.lua); spent drops by one,
-- while attempts (the fence) is left alone, so the returning worker's attempt stays stale forever.
-- Writes a 'returned' event to <prefix>events (includes/events.lua).
-- With a hold (a handler's back-off from a rate-limited remote API), it also holds every claim of
-- the queue for that long, in the same step: hold_until of the HASH <prefix>flow becomes
-- max(hold_until, now + hold), which the claim reads (includes/flow.lua).
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks a queue that has data as protocol 2 first (the key <prefix>delayed,
-- includes/protocol.lua).
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[3] wake      emq:{q}:wake     pub/sub channel, told that a job is ready
-- KEYS[4] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] attempt   the attempt the caller was granted
-- ARGV[4] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
-- ARGV[5] hold      optional: ms from now during which the queue claims nothing (absent or 0: none)
--
-- Returns an integer:
--    1  RETURNED
--   -1  SUPERSEDED  attempts moved on
--   -2  EXPIRED     the lease deadline passed; the reaper owns the job (and charges the attempt)
--   -3  NOT_ACTIVE  the job is not in state active
--   -4  MISSING     the job hash does not exist
--   -6  CANCELLED   an operator cancelled this attempt (cancel-7.lua); nothing changed
local active, pending, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, id, attempt = ARGV[1], ARGV[2], ARGV[3]
local hold = tonumber(ARGV[5] or '') or 0
local publishMode = ARGV[4]
local jk = prefix .. 'job:' .. id

--@include server-time
--@include protocol
--@include type-guard
--@include wrong-type
--@include fence-check
--@include job-fields
--@include layout
--@include events
--@include groups
--@include publish
local now = serverNow()
local laterProtocol = protocolRefusal(prefix)
if laterProtocol then return laterProtocol end

local refused = guard(active, 'zset') or guard(pending, 'zset') or guard(wait, 'list')
if refused then return refused end
local zset, lerr = zsetLayout(prefix .. 'layout')
if zset == nil then return lerr end

local h = redis.call('HMGET', jk, 'state', 'attempts', 'score', 'priority', 'group')
local code = fenceCheck(h, attempt, active, id, now)
if code ~= 1 then return code end
if h[5] then
  refused = groupGuard(prefix, h[5])
  if refused then return refused end
end
local flowKey, holdUntil = prefix .. 'flow', now + math.floor(hold)
if hold > 0 then
  local ok, cur = pcall(redis.call, 'HGET', flowKey, 'hold_until')
  if not ok then return refuse(flowKey, 'hash', cur) end
  holdUntil = math.max(holdUntil, tonumber(cur or '') or 0)
end

redis.call('ZREM', active, id)
redis.call('DEL', jk .. ':lock')
redis.call('HINCRBY', jk, 'spent', -1)
redis.call('HSET', jk, 'state', 'pending')
local priority = tonumber(h[4] or '0') or 0
if h[5] then
  groupRelease(prefix, h[5])
  groupPush(prefix, h[5], id, true)
elseif priority == 0 and not zset then
  redis.call('LPUSH', wait, id)
else
  redis.call('ZADD', pending, tonumber(h[3] or '') or -priority * SHIFT, id)
end
if hold > 0 then redis.call('HSET', flowKey, 'hold_until', string.format('%d', holdUntil)) end
publishOn(publishMode, wake, 1)
emitEvent(prefix, 'returned', id, attempt)
return 1
