-- return-3.lua: gives a lease back without spending an attempt (graceful shutdown). The job goes
-- back to pending at the score it was claimed with, so it keeps its place; spent drops by one,
-- while attempts (the fence) is left alone, so the returning worker's attempt stays stale forever.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] pending   emq:{q}:pending  ZSET
-- KEYS[3] wake      emq:{q}:wake     pub/sub channel, told that a job is ready
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
local active, pending, wake = KEYS[1], KEYS[2], KEYS[3]
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
local refused = wrongType(active, 'zset') or wrongType(pending, 'zset')
if refused then return refused end

local h = redis.call('HMGET', jk, 'state', 'attempts', 'score')
if not h[1] and not h[2] then return -4 end
if h[2] ~= attempt then return -1 end
if h[1] ~= 'active' then return -3 end
local deadline = redis.call('ZSCORE', active, id)
if not deadline or tonumber(deadline) <= now then return -2 end

redis.call('ZREM', active, id)
redis.call('DEL', jk .. ':lock')
redis.call('HINCRBY', jk, 'spent', -1)
redis.call('HSET', jk, 'state', 'pending')
redis.call('ZADD', pending, tonumber(h[3] or '0'), id)
redis.call(publish, wake, 1)
return 1
