-- promote-5.lua: promotes due delayed jobs (delays, run-at times and retry backoffs) to pending,
-- at most a bounded number per call, on the server clock. Each goes to the back of its priority
-- band (RPUSH wait for priority 0, a fresh seq in the pending ZSET otherwise, and for priority 0
-- too in the queue's ZSET layout, includes/layout.lua; a grouped job to the back of its group's
-- LIST, includes/groups.lua), with state pending. claim-8.lua does the same as its step 2.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
-- The read of delayed proves its type; seq, pending and wait are checked only when a job is due.
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks a queue that has data as protocol 2 first (the key <prefix>delayed,
-- includes/protocol.lua).
--
-- KEYS[1] pending   emq:{q}:pending  ZSET, priority != 0, score = seq - priority * 2^42
-- KEYS[2] delayed   emq:{q}:due      ZSET, score = due time in server ms
-- KEYS[3] seq       emq:{q}:seq      STRING integer (promotion gives a job a fresh place)
-- KEYS[4] wake      emq:{q}:wake     pub/sub channel, told how many jobs were promoted
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] limit     the most due jobs to promote, >= 1
-- ARGV[3] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else (or absent) PUBLISH
--
-- Returns a two-element array {promoted, next_due_ms}:
--   promoted     how many jobs were promoted (and published on wake, when more than 0)
--   next_due_ms  ms from now until the earliest job still in delayed is due (0 when one is due
--                already: more than limit were), or -1 when delayed is empty
local pending, delayed, seqKey, wake, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix = ARGV[1]
local limit = tonumber(ARGV[2])
local publishMode = ARGV[3]

--@include server-time
--@include protocol
--@include promote
--@include publish
local now = serverNow()
local laterProtocol = protocolRefusal(prefix)
if laterProtocol then return laterProtocol end

local due, err = readDue(delayed, limit, now)
if not due then return err end
if #due > 0 then
  local refused = guardPromote(seqKey, pending, wait, prefix)
  if refused then return refused end
end
local promoted = promoteDue(due, prefix, delayed, pending, wait, seqKey)
if promoted > 0 then publishOn(publishMode, wake, promoted) end
local nextDue = -1
local first = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
if first[2] then nextDue = math.max(0, tonumber(first[2]) - now) end
return {promoted, nextDue}
