-- heartbeat-2.lua: records, or removes, one worker's heartbeat on a queue: a bounded, expiring
-- record of the processes that work it, for the tools that show them (the dashboard's workers
-- page, emq queue workers). A Java worker calls it every few maintenance runs, and once with
-- ttl 0 when it closes cleanly; a worker that dies simply stops calling, and its record expires.
--
-- KEYS[1] workers   emq:{q}:workers      ZSET worker id -> server epoch ms its record expires
-- KEYS[2] worker    emq:{q}:worker:<id>  HASH of the worker's facts, with PX = ttl
-- ARGV[1] id        the worker's id, the member of workers (the <id> of the HASH's key)
-- ARGV[2] ttl       ms the record lives without another beat; 0 removes the record now
-- ARGV[3] first     1 on the worker's first beat on this queue (sets started_at), else 0
-- ARGV[4..] fields  pairs name, value stored in the HASH as given (host, pid, name,
--                   concurrency, in_hand, period_ms)
--
-- Every call first drops the members whose record has expired (score at or before now), so the
-- ZSET holds live workers only. A beat sets the HASH's fields, beat_at (now), expires_at
-- (now + ttl) and, on the first beat, started_at (now); gives the HASH a PX of ttl; sets the
-- worker's score to now + ttl; and gives the ZSET a PX of ttl unless it has a longer one, so a
-- queue whose workers all stopped keeps neither key.
--
-- Returns expires_at, the server epoch ms the record expires (0 after a removal).
--@include server-time
local workers, worker = KEYS[1], KEYS[2]
local id = ARGV[1]
local ttl = tonumber(ARGV[2])
local now = serverNow()

redis.call('ZREMRANGEBYSCORE', workers, '-inf', string.format('%d', now))
if ttl <= 0 then
  redis.call('ZREM', workers, id)
  redis.call('DEL', worker)
  return 0
end

local expires = now + ttl
local fields = {}
for i = 4, #ARGV - 1, 2 do
  fields[#fields + 1] = ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
end
fields[#fields + 1] = 'beat_at'
fields[#fields + 1] = string.format('%d', now)
fields[#fields + 1] = 'expires_at'
fields[#fields + 1] = string.format('%d', expires)
if ARGV[3] == '1' then
  fields[#fields + 1] = 'started_at'
  fields[#fields + 1] = string.format('%d', now)
end
redis.call('HSET', worker, unpack(fields))
redis.call('PEXPIRE', worker, string.format('%d', ttl))
redis.call('ZADD', workers, string.format('%d', expires), id)
if redis.call('PTTL', workers) < ttl then
  redis.call('PEXPIRE', workers, string.format('%d', ttl))
end
return expires
