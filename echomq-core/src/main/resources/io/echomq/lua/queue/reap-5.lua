-- reap-5.lua: returns expired leases to pending, at most a bounded number per call, on the
-- server clock. A priority-0 job goes back to the FRONT of the wait LIST (LPUSH): it was claimed
-- before anything still waiting, so it is older; several in one call keep their expiry order at
-- the front. Any other job goes back to the pending ZSET at the score it was claimed with, and so
-- does one of priority 0 in the queue's ZSET layout (includes/layout.lua; score 0, the front of
-- its band, when it was claimed from the LIST before a switch). A grouped job frees its group's
-- place and, when returned, goes to the FRONT of its group's LIST (includes/groups.lua). A lease is expired when its active score (the deadline) is at or before now; a
-- lease extended in time has a later score and is never touched. The reaped attempt counts: a
-- job that has spent max_attempts goes to dead with the reason instead. Safe to run from every
-- worker at once: each expired id is moved by exactly one call. An id holding ':' (which would
-- alias another job's keys) goes to dead without any of its would-be keys being touched. Moves
-- to dead then apply the dead set's caps (includes/dead-cap.lua). Each reaped lease writes an
-- 'expired' event to <prefix>events (includes/events.lua), and a job it moves to dead a 'dead'
-- event with its reason after it.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
-- The read of active proves its type; pending, dead and wait are checked with TYPE only when there is
-- an expired lease to move, so an idle reap is TIME and one ZRANGEBYSCORE.
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[3] dead      emq:{q}:dead     ZSET, score = time of death in server ms
-- KEYS[4] wake      emq:{q}:wake     pub/sub channel, told how many jobs were returned (also
--                                    when only a job moved to dead freed a group's place)
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] limit     the most expired leases to handle in this call
-- ARGV[3] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
--
-- Returns a two-element array {returned, dead}: jobs put back in pending, jobs moved to dead.
local active, pending, dead, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix = ARGV[1]
local publishMode = ARGV[3]

--@include server-time
--@include type-guard
--@include wrong-type
--@include job-fields
--@include dead-cap
--@include layout
--@include events
--@include groups
--@include publish
local now = serverNow()


local returned, died = 0, 0
local front = {}   -- priority-0 and grouped ids to LPUSH, in expiry order
local frontGroup = {}   -- the group of front[i], or false
local ok, expired = pcall(redis.call, 'ZRANGEBYSCORE', active, '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
if not ok then return refuse(active, 'zset', expired) end
if #expired == 0 then return {0, 0} end
local refused = guard(pending, 'zset') or guard(dead, 'zset') or guard(wait, 'list') or guardDeadCap(prefix)
if refused then return refused end
local zset, lerr = zsetLayout(prefix .. 'layout')
if zset == nil then return lerr end
for _, id in ipairs(expired) do
  local jk = prefix .. 'job:' .. id
  redis.call('ZREM', active, id)
  local aliased = string.find(id, ':', 1, true)
  local ok, h = false, nil
  if not aliased then
    redis.call('DEL', jk .. ':lock')
    ok, h = pcall(redis.call, 'HMGET', jk, 'attempts', 'spent', 'max_attempts', 'score', 'priority', 'group')
  end
  if not ok then
    redis.call('ZADD', dead, now, id)
    if not aliased then emitEvent(prefix, 'dead', id, 0, 'reason', 'job key is not a hash') end
    died = died + 1
  else
    local spent = tonumber(h[2] or '0') or 0
    local maxAttempts = tonumber(h[3] or '3') or 3
    local note = 'lease expired on attempt ' .. (h[1] or '?') .. ' (the worker stopped renewing it)'
    emitEvent(prefix, 'expired', id, h[1])
    if h[6] then groupRelease(prefix, h[6]) end
    if spent >= maxAttempts or not h[1] then
      redis.call('HSET', jk, 'state', 'dead', 'last_error', note, 'finished_at', now,
        'dead_reason', 'lease expired on ' .. spent .. ' of ' .. maxAttempts .. ' attempts')
      redis.call('ZADD', dead, now, id)
      emitEvent(prefix, 'dead', id, h[1], 'reason', 'lease expired on ' .. spent .. ' of ' .. maxAttempts .. ' attempts')
      died = died + 1
    else
      redis.call('HSET', jk, 'state', 'pending', 'last_error', note)
      local priority = tonumber(h[5] or '0') or 0
      if h[6] or (priority == 0 and not zset) then
        front[#front + 1] = id
        frontGroup[#front] = h[6]
      else
        redis.call('ZADD', pending, tonumber(h[4] or '') or -priority * SHIFT, id)
      end
      returned = returned + 1
    end
  end
end
-- the first to expire ends up first in the LIST
for i = #front, 1, -1 do
  if frontGroup[i] then groupPush(prefix, frontGroup[i], front[i], true) else redis.call('LPUSH', wait, front[i]) end
end
if returned > 0 or groupsFreed > 0 then publishOn(publishMode, wake, returned) end
if died > 0 then capDead(dead, prefix, now, died) end
return {returned, died}
