-- claim-8.lua: the worker's step, three operations in one atomic call, in this order:
--   1. complete the k jobs the caller finished (k = 0..256, a group commit), each fenced by its
--      own attempt and answered with its own code (complete-2.lua alone; includes/complete.lua);
--   2. promote due delayed jobs, at most ARGV[4] (promote-5.lua alone; includes/promote.lua);
--   3. claim up to N pending jobs, in claim order (includes/claim.lua), groups in turn when the
--      queue has grouped jobs (includes/groups.lua).
-- One call instead of three: a worker's complete and its next claim share a round trip.
-- While the queue is paused (the key emq:{q}:paused exists, pause-4.lua), steps 2 and 3 are skipped:
-- the completes of step 1 still happen, and next_due_ms answers -2. The check is one EXISTS, made
-- only by a call that asks to claim.
-- Flow control (includes/flow.lua) then lowers N: the rate limit, a back-off hold and the cap of
-- the HASH <prefix>flow, one HMGET made only by a call that asks to claim; each job claimed under
-- a rate limit is logged in the ZSET <prefix>rate. A call it limited answers next_due_ms as below.
-- Each job completed writes a 'completed' event, each claimed an 'active' one, each malformed a
-- 'dead' one, to <prefix>events (includes/events.lua); the settings' one HMGET of
-- <prefix>retention is shared with the completes' retention read.
--
-- Fails with a WRONGTYPE error, having changed nothing, when a key it is about to touch holds
-- another type (a job key that is not a hash only refuses its own complete, code -5). All reads come
-- first; a key is then checked with TYPE only when a write precedes its first touch and no read
-- of this call has already proved its type. A call that finds nothing to do checks nothing more.
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks a queue that has data as protocol 2 first (the key <prefix>delayed,
-- includes/protocol.lua).
--
-- KEYS[1] pending   emq:{q}:pending  ZSET, priority != 0, score = seq - priority * 2^42
-- KEYS[2] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[3] delayed   emq:{q}:due      ZSET, score = due time in server ms
-- KEYS[4] dead      emq:{q}:dead     ZSET, score = time of death in server ms
-- KEYS[5] seq       emq:{q}:seq      STRING integer (promotion gives a job a fresh place)
-- KEYS[6] stats     emq:{q}:stats    HASH of counters (completed)
-- KEYS[7] wake      emq:{q}:wake     pub/sub channel, told when promotion readies jobs nobody took
-- KEYS[8] wait      emq:{q}:wait     LIST of priority-0 pending ids, oldest first (LPOP claims)
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] lease     lease in ms for the jobs claimed
-- ARGV[3] claim     N, how many jobs to claim at most (0 = none)
-- ARGV[4] promote   how many due delayed jobs to promote at most (0 = none)
-- ARGV[5] retain    ms to keep a completed job's hash (state=done); 0 deletes it at once. The
--                   queue's own done_age_ms and done_max in <prefix>retention win (includes/complete.lua)
-- ARGV[6] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else PUBLISH
-- ARGV[7] completes k, how many jobs to complete first, 0..256
-- ARGV[8..7+2k]     k pairs: the id of a job to complete, and the attempt it was granted
--
-- Returns an array: {completes, next_due_ms, dead, promoted, id1, payload1, attempt1, spent1, max1, waited1, timeout1, id2, ...}
--   completes    an array of k codes, one per pair in order: 1 COMPLETED · -5 NOT_A_HASH: the job
--                key holds another type (nothing of it changed) · then, in the fence check's order,
--                -4 MISSING · -1 SUPERSEDED · -6 CANCELLED · -3 NOT_ACTIVE · -2 EXPIRED
--   next_due_ms  -1 when the call claimed all N it asked for (or N is 0); else ms from now until
--                the earliest delayed job is due (0 when one is due already), or -1 when none waits;
--                -2 when N > 0 and the queue is paused: nothing was promoted or claimed;
--                when flow control held the claim below N: ms from now until the hold ends or the
--                rate window lets one more claim in (> 0), or -3 when only a freed place can help
--                (the cap is reached)
--   dead         how many malformed jobs the claim moved to dead during this call
--   promoted     how many delayed jobs were promoted to pending during this call
--   then seven values per claimed job: id, payload, attempt (the fence), spent attempts, max
--   attempts (3 when the hash has none), waited (ms since created_at for a first attempt of a job
--   enqueued without delay, else -1), timeout (the job's timeout_ms, else the queue's default:
--   timeout_ms of the HASH <prefix>settings, else 0 for none)
-- When promoted > claimed, the call publishes promoted - claimed on wake: the number of promoted
-- jobs it left pending, not the number promoted. When its completes brought groups back to the
-- rotation (includes/groups.lua) and it claimed all N it asked for (or N is 0), it publishes the
-- number of those groups on wake: their places are free for other workers.
local pending, active, delayed, dead, seqKey, stats, wake, wait =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local prefix = ARGV[1]
local lease = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local promoteMax = tonumber(ARGV[4])
local retain = tonumber(ARGV[5])
local publishMode = ARGV[6]
local nCompletes = tonumber(ARGV[7])

--@include server-time
--@include protocol
--@include type-guard
--@include groups
--@include complete
--@include promote
--@include claim
--@include flow
--@include publish
local now = serverNow()
local laterProtocol = protocolRefusal(prefix)
if laterProtocol then return laterProtocol end

-- a paused queue completes, but neither promotes nor claims
local paused = want > 0 and redis.call('EXISTS', prefix .. 'paused') == 1
if paused then
  want = 0
  promoteMax = 0
end
-- flow control (includes/flow.lua): the rate limit, a back-off hold and the cap lower want
local asked, flowWait, flow = want, -1, nil
if want > 0 and not paused then want, flowWait, flow = flowLimit(prefix, active, want, now) end

-- reads: every complete's fence, and the due delayed jobs
local plan, err = readCompletes(active, prefix, retain, ARGV, 8, nCompletes, now)
if not plan then return err end
local due, derr = readDue(delayed, promoteMax, now)
if not due then return derr end

-- checks, before the first write, of the keys a later write touches and no read has proved
local refused = nil
if #due > 0 then refused = guardPromote(seqKey, pending, wait, prefix) end
if not refused and want > 0 then
  refused = guardClaim(pending, wait, active, dead, stats, delayed, #due > 0)
end
-- a queue with groups: the keys a grouped claim writes (a group whose own LIST holds another
-- type is dropped from the rotation by groupNext, as one with no ready job)
if not refused and want > 0 and groupsOn(prefix) then
  refused = guard(active, 'zset') or guard(dead, 'zset') or guard(stats, 'hash')
    or guard(prefix .. 'groups', 'zset') or guard(prefix .. 'group:active', 'hash')
    or guard(prefix .. 'group:waiting', 'hash') or guard(prefix .. 'group:paused', 'set')
end
if refused then return refused end

-- writes
refused = writeCompletes(plan, active, stats, prefix, retain, now)
if refused then return refused end
local promoted = promoteDue(due, prefix, delayed, pending, wait, seqKey)
local out = {plan.codes, -1, 0, promoted}
local claimed, deadCount = claimJobs(want, lease, prefix, pending, wait, active, dead, now, out)
out[3] = deadCount
if flow then flowWait = flowRecord(flow, flowWait, prefix, out, 5, now) end

if paused then
  out[2] = -2
elseif flow and claimed == want and want < asked then
  out[2] = flowWait
elseif claimed < want then
  local first = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if first[2] then out[2] = math.max(0, tonumber(first[2]) - now) end
end
if promoted > claimed then publishOn(publishMode, wake, promoted - claimed) end
if groupsFreed > 0 and claimed >= want then publishOn(publishMode, wake, groupsFreed) end
return out
