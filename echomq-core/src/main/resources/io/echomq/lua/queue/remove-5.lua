-- remove-5.lua: deletes a job wherever it is. Refuses while a worker may be running it, unless
-- forced by an operator: while the job's score in active (its lease deadline) is above the
-- server's now (includes/server-time.lua), or while its lock subkey exists (the ZSET layout's
-- claims write one; a subkey left by a claim under the other layout or by an older client
-- counts until it expires). Also drops the job's idempotency key when
-- that key still names this job. An id holding ':' is only dropped from the five sets: its
-- would-be keys belong to another job. A job removed writes a 'removed' event to <prefix>events
-- (includes/events.lua), with the attempts its hash held (0 when none). A grouped job frees its
-- group's place when it was active, and leaves its group's LIST when it was pending, an LREM
-- of that LIST (includes/groups.lua). A pending job that waits in a bucket (includes/buckets.lua)
-- leaves it: its field is dropped.
--
-- Cost: O(log n) for a job in one of the ZSETs. A job found in none of them (a priority-0 pending
-- job, or an unknown id) costs an LREM of the wait LIST: O(n) in the LIST's length, which blocks
-- the server for about a millisecond per 100k waiting ids. Not for hot paths.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- Fails with an EMQPROTOCOL error, having changed nothing, when the queue's data needs a later
-- protocol; marks a queue that has data as protocol 2 first (the key <prefix>delayed,
-- includes/protocol.lua).
--
-- KEYS[1] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[2] active    emq:{q}:active   ZSET
-- KEYS[3] delayed   emq:{q}:due      ZSET
-- KEYS[4] dead      emq:{q}:dead     ZSET
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] force     1 to remove even while the lease runs or the lock subkey is held
--
-- Returns an integer:
--    1  REMOVED
--    0  LOCKED   force was not given, and the job's score in active is above now, or the lock
--                subkey emq:{q}:job:<id>:lock exists
--   -1  MISSING  no hash, no bucket field and no set entry for this id
local prefix, id = ARGV[1], ARGV[2]
local jk = prefix .. 'job:' .. id
local lk = jk .. ':lock'

--@include server-time
--@include protocol
--@include type-guard
--@include events
--@include groups
--@include buckets
local laterProtocol = protocolRefusal(prefix)
if laterProtocol then return laterProtocol end
local refused = guard(KEYS[1], 'zset') or guard(KEYS[2], 'zset') or guard(KEYS[3], 'zset') or guard(KEYS[4], 'zset')
  or guard(KEYS[5], 'list') or guard(prefix .. 'done', 'zset')
if refused then return refused end

-- an id holding ':' has no keys of its own ('7:lock' would be job 7's lock subkey): only drop it from the sets
if string.find(id, ':', 1, true) then
  local found = 0
  for i = 1, 4 do found = found + redis.call('ZREM', KEYS[i], id) end
  if found == 0 then found = redis.call('LREM', KEYS[5], 0, id) end
  if found == 0 then return -1 end
  return 1
end

if ARGV[3] ~= '1' then
  local deadline = redis.call('ZSCORE', KEYS[2], id)
  if deadline and tonumber(deadline) > serverNow() then return 0 end
  if redis.call('EXISTS', lk) == 1 then return 0 end
end

-- a job sits in one place: the LIST (an O(n) LREM) is searched only when no ZSET held it
local group = false
if redis.call('TYPE', jk)['ok'] == 'hash' then group = redis.call('HGET', jk, 'group') end
if group then
  refused = groupGuard(prefix, group)
  if refused then return refused end
end
local inSet = 0
for i = 1, 4 do
  local n = redis.call('ZREM', KEYS[i], id)
  if n == 1 and i == 2 and group then groupRelease(prefix, group) end
  inSet = inSet + n
end
if inSet == 0 and group then inSet = groupUnlist(prefix, group, id) end
if inSet == 0 then inSet = redis.call('LREM', KEYS[5], 0, id) end
local bk = bucketKey(prefix, id)
local inBucket = 0
if bk then
  local okb, n = pcall(redis.call, 'HDEL', bk, id)
  if okb then inBucket = n end
end
local found = redis.call('EXISTS', jk) + inSet + inBucket
if found == 0 then return -1 end

local attempts = 0
if redis.call('TYPE', jk)['ok'] == 'hash' then
  local hf = redis.call('HMGET', jk, 'idem', 'attempts')
  local idem = hf[1]
  attempts = hf[2] or 0
  if idem and redis.call('GET', prefix .. 'idem:' .. idem) == id then
    redis.call('DEL', prefix .. 'idem:' .. idem)
  end
end
redis.call('DEL', jk, lk)
redis.call('ZREM', prefix .. 'done', id)   -- a done job's entry in the done index (retention)
emitEvent(prefix, 'removed', id, attempts)
return 1
