-- stats-6.lua: one consistent snapshot of a queue's counts. Read-only.
--
-- KEYS[1] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[2] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[3] delayed   emq:{q}:due      ZSET
-- KEYS[4] dead      emq:{q}:dead     ZSET
-- KEYS[5] stats     emq:{q}:stats    HASH of counters
-- KEYS[6] wait      emq:{q}:wait     LIST of priority-0 pending ids
-- ARGV[1] prefix    emq:{q}: (optional; when given, the reply gains an eighth value, paused)
--
-- delayed counts <prefix>delayed instead of KEYS[3] while that key is still protocol 1's ZSET (a
-- queue no client of protocol 2 has written to yet: includes/protocol.lua); the prefix is then
-- KEYS[3]'s name without its last three characters, 'due'.
--
-- Returns an array of seven integers, or eight with the prefix:
--   {pending, active, delayed, dead, completed, failed, overdue, paused}
--   paused is 1 while emq:{q}:paused exists (pause-4.lua), else 0
--   pending is ZCARD pending + LLEN wait + the ready grouped jobs (field grouped of stats,
--   includes/groups.lua)
--   overdue counts active leases whose deadline has passed (the reaper's next work)
--@include server-time
local now = serverNow()
local delayed = KEYS[3]
local legacy = string.sub(delayed, 1, #delayed - 3) .. 'delayed'
if redis.call('TYPE', legacy)['ok'] == 'zset' then delayed = legacy end
local c = redis.call('HMGET', KEYS[5], 'completed', 'failed', 'grouped')
local out = {
  redis.call('ZCARD', KEYS[1]) + redis.call('LLEN', KEYS[6]) + math.max(0, tonumber(c[3] or '0') or 0),
  redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', delayed),
  redis.call('ZCARD', KEYS[4]),
  tonumber(c[1] or '0'),
  tonumber(c[2] or '0'),
  redis.call('ZCOUNT', KEYS[2], '-inf', now)
}
if ARGV[1] then out[8] = redis.call('EXISTS', ARGV[1] .. 'paused') end
return out
