-- stats-6.lua: one consistent snapshot of a queue's counts. Read-only.
--
-- KEYS[1] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[2] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[3] delayed   emq:{q}:delayed  ZSET
-- KEYS[4] dead      emq:{q}:dead     ZSET
-- KEYS[5] stats     emq:{q}:stats    HASH of counters
-- KEYS[6] wait      emq:{q}:wait     LIST of priority-0 pending ids
--
-- Returns an array of seven integers:
--   {pending, active, delayed, dead, completed, failed, overdue}
--   pending is ZCARD pending + LLEN wait
--   overdue counts active leases whose deadline has passed (the reaper's next work)
--@include server-time
local now = serverNow()
local c = redis.call('HMGET', KEYS[5], 'completed', 'failed')
return {
  redis.call('ZCARD', KEYS[1]) + redis.call('LLEN', KEYS[6]),
  redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[4]),
  tonumber(c[1] or '0'),
  tonumber(c[2] or '0'),
  redis.call('ZCOUNT', KEYS[2], '-inf', now)
}
