-- remove-5.lua: deletes a job wherever it is. Refuses while the job's lock subkey is held (a
-- worker is running it), unless forced by an operator. Also drops the job's idempotency key when
-- that key still names this job. An id holding ':' is only dropped from the five sets: its
-- would-be keys belong to another job.
--
-- Cost: O(log n) for a job in one of the ZSETs. A job found in none of them (a priority-0 pending
-- job, or an unknown id) costs an LREM of the wait LIST: O(n) in the LIST's length, which blocks
-- the server for about a millisecond per 100k waiting ids. Not for hot paths.
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type.
--
-- KEYS[1] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[2] active    emq:{q}:active   ZSET
-- KEYS[3] delayed   emq:{q}:delayed  ZSET
-- KEYS[4] dead      emq:{q}:dead     ZSET
-- KEYS[5] wait      emq:{q}:wait     LIST of priority-0 pending ids
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] id        the job id
-- ARGV[3] force     1 to remove even while the lock subkey is held
--
-- Returns an integer:
--    1  REMOVED
--    0  LOCKED   the lock subkey emq:{q}:job:<id>:lock exists and force was not given
--   -1  MISSING  no hash and no set entry for this id
local prefix, id = ARGV[1], ARGV[2]
local jk = prefix .. 'job:' .. id
local lk = jk .. ':lock'

--@include type-guard
local refused = guard(KEYS[1], 'zset') or guard(KEYS[2], 'zset') or guard(KEYS[3], 'zset') or guard(KEYS[4], 'zset')
  or guard(KEYS[5], 'list')
if refused then return refused end

-- an id holding ':' has no keys of its own ('7:lock' would be job 7's lock subkey): only drop it from the sets
if string.find(id, ':', 1, true) then
  local found = 0
  for i = 1, 4 do found = found + redis.call('ZREM', KEYS[i], id) end
  if found == 0 then found = redis.call('LREM', KEYS[5], 0, id) end
  if found == 0 then return -1 end
  return 1
end

if ARGV[3] ~= '1' and redis.call('EXISTS', lk) == 1 then return 0 end

-- a job sits in one place: the LIST (an O(n) LREM) is searched only when no ZSET held it
local inSet = 0
for i = 1, 4 do inSet = inSet + redis.call('ZREM', KEYS[i], id) end
if inSet == 0 then inSet = redis.call('LREM', KEYS[5], 0, id) end
local found = redis.call('EXISTS', jk) + inSet
if found == 0 then return -1 end

if redis.call('TYPE', jk)['ok'] == 'hash' then
  local idem = redis.call('HGET', jk, 'idem')
  if idem and redis.call('GET', prefix .. 'idem:' .. idem) == id then
    redis.call('DEL', prefix .. 'idem:' .. idem)
  end
end
redis.call('DEL', jk, lk)
return 1
