-- extend-1.lua: renews the leases of one or many jobs held by one worker. For each job whose
-- attempt is still current and whose lease still runs, the active score and the lock subkey
-- move together to now + lease: one lease story. An expired lease is never revived.
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] lease     the new lease in ms, counted from the server's now
-- ARGV[3..]         pairs: job id, attempt the caller was granted
--
-- Returns an array with one code per pair, in order:
--    1  EXTENDED    deadline is now + lease
--   -1  SUPERSEDED  attempts moved on
--   -2  EXPIRED     the deadline had already passed; nothing changed
--   -3  NOT_ACTIVE  the job is not in state active
--   -4  MISSING     the job hash does not exist
local active = KEYS[1]
local prefix = ARGV[1]
local lease = tonumber(ARGV[2])

--@include server-time
--@include fence-check
local now = serverNow()

local out = {}
for i = 3, #ARGV, 2 do
  local id, attempt = ARGV[i], ARGV[i + 1]
  local jk = prefix .. 'job:' .. id
  local h = redis.call('HMGET', jk, 'state', 'attempts')
  local code = fenceCheck(h, attempt, active, id, now)
  if code == 1 then
    redis.call('ZADD', active, now + lease, id)
    redis.call('SET', jk .. ':lock', attempt, 'PX', lease)
  end
  out[#out + 1] = code
end
return out
