-- extend-1.lua: renews the leases of one or many jobs held by one worker. For each job whose
-- attempt is still current and whose lease still runs, the active score moves to now + lease,
-- and so does the lock subkey where one exists (SET ... PX lease XX): one lease story. An expired
-- lease is never revived. XX, not a read of the layout: one command either way, and it is right
-- across a layout switch (layout-4.lua) while jobs run: a subkey written by a claim in the ZSET
-- layout keeps following the lease under the LIST layout, and a job claimed in the LIST layout
-- gets none under the ZSET layout (remove-5.lua refuses it by its active score).
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks a queue that has data as protocol 2 first (the key <prefix>delayed,
-- includes/protocol.lua).
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
--   -6  CANCELLED   an operator cancelled this attempt (cancel-7.lua); nothing changed
local active = KEYS[1]
local prefix = ARGV[1]
local lease = tonumber(ARGV[2])

--@include server-time
--@include protocol
--@include fence-check
local now = serverNow()
local laterProtocol = protocolRefusal(prefix)
if laterProtocol then return laterProtocol end

local out = {}
for i = 3, #ARGV, 2 do
  local id, attempt = ARGV[i], ARGV[i + 1]
  local jk = prefix .. 'job:' .. id
  local h = redis.call('HMGET', jk, 'state', 'attempts')
  local code = fenceCheck(h, attempt, active, id, now)
  if code == 1 then
    redis.call('ZADD', active, now + lease, id)
    redis.call('SET', jk .. ':lock', attempt, 'PX', lease, 'XX')
  end
  out[#out + 1] = code
end
return out
