-- heartbeat-2.lua: records, or removes, one worker's heartbeat on a queue: a bounded, expiring
-- record of the processes that work it, for the tools that show them (the dashboard's workers
-- page, emq queue workers). A Java worker calls it once per maintenance interval, and once with
-- ttl 0 when it closes cleanly; a worker that dies simply stops calling, and its record expires.
--
-- KEYS[1] workers   emq:{q}:workers      ZSET worker id -> server epoch ms its record expires
-- KEYS[2] worker    emq:{q}:worker:<id>  HASH of the worker's facts, with PX = ttl
-- ARGV[1] id        the worker's id, the member of workers (the <id> of the HASH's key)
-- ARGV[2] ttl       ms the record lives without another beat; 0 removes the record now
-- ARGV[3] max       most members workers keeps: past it, those that expire soonest are dropped
-- ARGV[4..] fields  pairs name, value stored in the HASH as given (host, pid, name,
--                   concurrency, in_hand)
--
-- Every call first drops the members whose record has expired (score at or before now), so the
-- ZSET holds live workers only, and at most max of them. A beat sets the HASH's fields, beat_at
-- (now), started_at (now, on the first beat only) and expires_at (now + ttl), gives the HASH a
-- PX of ttl, and sets the worker's score to now + ttl. The ZSET itself is given a PX of at least
-- ttl, so a queue whose workers all stopped keeps neither key.
--
-- Returns the number of live workers recorded after the call.
--@include server-time
local workers, worker = KEYS[1], KEYS[2]
local id = ARGV[1]
local ttl = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local now = serverNow()

redis.call('ZREMRANGEBYSCORE', workers, '-inf', string.format('%d', now))
if ttl <= 0 then
  redis.call('ZREM', workers, id)
  redis.call('DEL', worker)
  return redis.call('ZCARD', workers)
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
redis.call('HSET', worker, unpack(fields))
redis.call('HSETNX', worker, 'started_at', string.format('%d', now))
redis.call('PEXPIRE', worker, string.format('%d', ttl))

redis.call('ZADD', workers, string.format('%d', expires), id)
local n = redis.call('ZCARD', workers)
if n > max then
  redis.call('ZREMRANGEBYRANK', workers, 0, n - max - 1)
  n = max
end
if redis.call('PTTL', workers) < ttl then
  redis.call('PEXPIRE', workers, string.format('%d', ttl))
end
return n
