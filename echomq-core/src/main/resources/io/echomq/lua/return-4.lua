-- return-4.lua: gives a lease back without spending an attempt (graceful shutdown). The job goes
-- back to pending where it was claimed from, so it keeps its place: a priority-0 job to the FRONT
-- of the wait LIST (LPUSH), any other to the pending ZSET at the score it was claimed with; spent drops by one,
-- while attempts (the fence) is left alone, so the returning worker's attempt stays stale forever.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[3] wake      emq:{q}:wake     pub/sub channel, told that a job is ready
-- KEYS[4] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] attempt   the attempt the caller was granted
-- ARGV[4] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
--
-- Returns an integer:
--    1  RETURNED
--   -1  SUPERSEDED  attempts moved on
--   -2  EXPIRED     the lease deadline passed; the reaper owns the job (and charges the attempt)
--   -3  NOT_ACTIVE  the job is not in state active
--   -4  MISSING     the job hash does not exist
local active, pending, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, id, attempt = ARGV[1], ARGV[2], ARGV[3]
local publish = 'PUBLISH'
if ARGV[4] == 'SPUBLISH' then publish = 'SPUBLISH' end
local jk = prefix .. 'job:' .. id

local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)

-- Refuse, before any write, keys that another client replaced with another type: a job taken
-- from one set whose ZADD into the next then failed would be lost from every set.
local function wrongType(key, want)
  local got = redis.call('TYPE', key)['ok']
  if got ~= want and got ~= 'none' then
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. got .. ', not a ' .. want
      .. '; nothing was changed')
  end
  if want == 'string' and got == 'string' and not string.match(redis.call('GET', key), '^%-?%d+$') then
    return redis.error_reply('WRONGTYPE ' .. key .. ' is not an integer; nothing was changed')
  end
end
local refused = wrongType(active, 'zset') or wrongType(pending, 'zset') or wrongType(wait, 'list')
if refused then return refused end

local h = redis.call('HMGET', jk, 'state', 'attempts', 'score', 'priority')
if not h[1] and not h[2] then return -4 end
if h[2] ~= attempt then return -1 end
if h[1] ~= 'active' then return -3 end
local deadline = redis.call('ZSCORE', active, id)
if not deadline or tonumber(deadline) <= now then return -2 end

redis.call('ZREM', active, id)
redis.call('DEL', jk .. ':lock')
redis.call('HINCRBY', jk, 'spent', -1)
redis.call('HSET', jk, 'state', 'pending')
local priority = tonumber(h[4] or '0') or 0
if priority == 0 then
  redis.call('LPUSH', wait, id)
else
  redis.call('ZADD', pending, tonumber(h[3] or '') or -priority * 4398046511104, id)
end
redis.call(publish, wake, 1)
return 1
