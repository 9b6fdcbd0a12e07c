-- redrive-5.lua: moves dead jobs back to pending with a fresh budget of attempts. spent is reset
-- to 0 while attempts (the fence) keeps rising. Each job goes to the back of its priority band:
-- RPUSH on the wait LIST for priority 0, a fresh seq in the pending ZSET otherwise (and for
-- priority 0 too in the queue's ZSET layout, includes/layout.lua); a grouped job to the back of
-- its group's LIST (includes/groups.lua).
-- A dead entry whose hash is missing or has no payload stays in dead, and so does an id holding ':'.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- KEYS[1] dead      emq:{q}:dead     ZSET, score = time of death in server ms
-- KEYS[2] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[3] seq       emq:{q}:seq      STRING integer
-- KEYS[4] wake      emq:{q}:wake     pub/sub channel, told how many jobs were readied
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] limit     the most jobs to redrive, oldest death first, when no ids follow
-- ARGV[3] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
-- ARGV[4..]         optional ids to redrive instead of the oldest
--
-- Returns an integer: how many jobs were moved to pending.
local dead, pending, seqKey, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix = ARGV[1]
local publishMode = ARGV[3]

--@include type-guard
--@include job-fields
--@include dead-ids
--@include layout
--@include groups
--@include publish
local refused = guard(dead, 'zset') or guard(pending, 'zset') or guard(seqKey, 'string')
  or guard(wait, 'list')
if refused then return refused end
local zset, lerr = zsetLayout(prefix .. 'layout')
if zset == nil then return lerr end

local ids = deadIds(dead, tonumber(ARGV[2]), 4)

local moved = 0
for _, id in ipairs(ids) do
  local jk = prefix .. 'job:' .. id
  if not string.find(id, ':', 1, true) and redis.call('ZSCORE', dead, id) and redis.call('TYPE', jk)['ok'] == 'hash'
      and redis.call('HEXISTS', jk, 'payload') == 1 then
    local p = tonumber(redis.call('HGET', jk, 'priority') or '0') or 0
    local group = redis.call('HGET', jk, 'group')
    redis.call('HSET', jk, 'state', 'pending', 'spent', 0)
    redis.call('HDEL', jk, 'dead_reason', 'finished_at')
    redis.call('PERSIST', jk)
    redis.call('ZREM', dead, id)
    if group and groupValid(group) then
      groupPush(prefix, group, id, false)
    elseif p == 0 and not zset then
      redis.call('RPUSH', wait, id)
    else
      redis.call('ZADD', pending, redis.call('INCR', seqKey) - p * SHIFT, id)
    end
    moved = moved + 1
  end
end
if moved > 0 then publishOn(publishMode, wake, moved) end
return moved
