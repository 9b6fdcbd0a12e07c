-- reap-5.lua: returns expired leases to pending, at most a bounded number per call, on the
-- server clock. A priority-0 job goes back to the FRONT of the wait LIST (LPUSH): it was claimed
-- before anything still waiting, so it is older; several in one call keep their expiry order at
-- the front. Any other job goes back to the pending ZSET at the score it was claimed with. A lease is expired when its active score (the deadline) is at or before now; a
-- lease extended in time has a later score and is never touched. The reaped attempt counts: a
-- job that has spent max_attempts goes to dead with the reason instead. Safe to run from every
-- worker at once: each expired id is moved by exactly one call. An id holding ':' (which would
-- alias another job's keys) goes to dead without any of its would-be keys being touched.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
-- The read of active proves its type; pending, dead and wait are checked with TYPE only when there is
-- an expired lease to move, so an idle reap is TIME and one ZRANGEBYSCORE.
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[3] dead      emq:{q}:dead     ZSET, score = time of death in server ms
-- KEYS[4] wake      emq:{q}:wake     pub/sub channel, told how many jobs were returned
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] limit     the most expired leases to handle in this call
-- ARGV[3] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
--
-- Returns a two-element array {returned, dead}: jobs put back in pending, jobs moved to dead.
local active, pending, dead, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix = ARGV[1]
local publish = 'PUBLISH'
if ARGV[3] == 'SPUBLISH' then publish = 'SPUBLISH' end

--@include server-time
--@include type-guard
--@include job-fields
local now = serverNow()


local returned, died = 0, 0
local front = {}   -- priority-0 ids to LPUSH, in expiry order
local ok, expired = pcall(redis.call, 'ZRANGEBYSCORE', active, '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
if not ok then return refuse(active, 'zset', expired) end
if #expired == 0 then return {0, 0} end
local refused = guard(pending, 'zset') or guard(dead, 'zset') or guard(wait, 'list')
if refused then return refused end
for _, id in ipairs(expired) do
  local jk = prefix .. 'job:' .. id
  redis.call('ZREM', active, id)
  local aliased = string.find(id, ':', 1, true)
  local ok, h = false, nil
  if not aliased then
    redis.call('DEL', jk .. ':lock')
    ok, h = pcall(redis.call, 'HMGET', jk, 'attempts', 'spent', 'max_attempts', 'score', 'priority')
  end
  if not ok then
    redis.call('ZADD', dead, now, id)
    died = died + 1
  else
    local spent = tonumber(h[2] or '0') or 0
    local maxAttempts = tonumber(h[3] or '3') or 3
    local note = 'lease expired on attempt ' .. (h[1] or '?') .. ' (the worker stopped renewing it)'
    if spent >= maxAttempts or not h[1] then
      redis.call('HSET', jk, 'state', 'dead', 'last_error', note, 'finished_at', now,
        'dead_reason', 'lease expired on ' .. spent .. ' of ' .. maxAttempts .. ' attempts')
      redis.call('ZADD', dead, now, id)
      died = died + 1
    else
      redis.call('HSET', jk, 'state', 'pending', 'last_error', note)
      local priority = tonumber(h[5] or '0') or 0
      if priority == 0 then
        front[#front + 1] = id
      else
        redis.call('ZADD', pending, tonumber(h[4] or '') or -priority * SHIFT, id)
      end
      returned = returned + 1
    end
  end
end
-- the first to expire ends up first in the LIST
for i = #front, 1, -1 do redis.call('LPUSH', wait, front[i]) end
if returned > 0 then redis.call(publish, wake, returned) end
return {returned, died}
