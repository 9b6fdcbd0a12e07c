-- complete-2.lua: the fenced complete of one or many jobs (a group commit), alone. Each job
-- whose attempt is still current, whose state is active and whose lease still runs leaves active:
-- its lock subkey is deleted, the counter completed rises, and its hash is kept for ARGV[2] ms
-- with state done and finished_at, or deleted at once. claim-8.lua does the same as its step 1.
-- Each job completed writes a 'completed' event to <prefix>events (includes/events.lua); a grouped
-- job frees its group's place (includes/groups.lua).
--
-- Fails with a WRONGTYPE error, having changed nothing, when active or stats holds another type
-- (a job key that is not a hash only refuses its own complete, code -5).
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks a queue that has data as protocol 2 first (the key <prefix>delayed,
-- includes/protocol.lua).
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] stats     emq:{q}:stats    HASH of counters (completed)
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] retain    ms to keep a completed job's hash (state=done); 0 deletes it at once. The
--                   queue's own done_age_ms and done_max in <prefix>retention win (includes/complete.lua)
-- ARGV[3] count     k, how many jobs to complete, 1..256
-- ARGV[4..3+2k]     k pairs: the id of a job to complete, and the attempt it was granted
-- ARGV[4 + 2k]      publish, optional: SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything
--                   else (or absent) PUBLISH. When completes bring groups back to the rotation
--                   (includes/groups.lua), their number is published on <prefix>wake.
--
-- Returns an array of k codes, one per pair in order:
--    1  COMPLETED
--   -5  NOT_A_HASH  the job key holds another type than a hash; nothing of it changed
--   -4  MISSING     the job hash does not exist
--   -6  CANCELLED   an operator cancelled this attempt (cancel-7.lua); nothing changed
--   -1  SUPERSEDED  attempts moved on
--   -3  NOT_ACTIVE  the job is not in state active
--   -2  EXPIRED     the lease deadline passed
-- (checked in that order: -5, then the fence check of includes/fence-check.lua)
local active, stats = KEYS[1], KEYS[2]
local prefix = ARGV[1]
local retain = tonumber(ARGV[2])
local count = tonumber(ARGV[3])

--@include server-time
--@include protocol
--@include groups
--@include complete
--@include publish
local now = serverNow()
local laterProtocol = protocolRefusal(prefix)
if laterProtocol then return laterProtocol end

local plan, err = readCompletes(active, prefix, retain, ARGV, 4, count, now)
if not plan then return err end
local refused = writeCompletes(plan, active, stats, prefix, retain, now)
if refused then return refused end
if groupsFreed > 0 then
  publishOn(ARGV[4 + 2 * count], prefix .. 'wake', groupsFreed)
end
return plan.codes
