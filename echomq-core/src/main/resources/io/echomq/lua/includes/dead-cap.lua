-- dead-cap.lua: the dead set's caps, applied by the scripts that add to it (fail-4, reap-5), so
-- that it never grows without bound. Includes type-guard.
-- The caps are the fields dead_max (default 10000) and dead_age_ms (default 15552000000, 180
-- days) of the queue's settings HASH <prefix>retention. Each call drops at most added + 64 of
-- the oldest deaths over dead_max, and as many that died at or before now - dead_age_ms, each as
-- purge-1 drops it (the dead entry, the hash and the lock subkey; only the entry for an id holding
-- ':'). A queue whose caps were lowered so catches up over calls, never in one long call.
-- Defines:
--   guardDeadCap(prefix)                 nil, or the WRONGTYPE reply when <prefix>retention is no hash
--   capDead(dead, prefix, now, added)    -> how many dead jobs it dropped
--@include type-guard
local DEAD_MAX, DEAD_AGE_MS = 10000, 15552000000
local function guardDeadCap(prefix)
  return guard(prefix .. 'retention', 'hash')
end
local function dropDead(dead, prefix, ids)
  for _, id in ipairs(ids) do
    redis.call('ZREM', dead, id)
    if not string.find(id, ':', 1, true) then
      local jk = prefix .. 'job:' .. id
      redis.call('DEL', jk, jk .. ':lock')
    end
  end
  return #ids
end
local function capDead(dead, prefix, now, added)
  local rs = redis.call('HMGET', prefix .. 'retention', 'dead_max', 'dead_age_ms')
  local max = tonumber(rs[1]) or DEAD_MAX
  local age = tonumber(rs[2]) or DEAD_AGE_MS
  local budget = added + 64
  local dropped = 0
  local over = redis.call('ZCARD', dead) - max
  if over > 0 then
    dropped = dropDead(dead, prefix, redis.call('ZRANGE', dead, 0, math.min(over, budget) - 1))
  end
  return dropped + dropDead(dead, prefix, redis.call('ZRANGEBYSCORE', dead, '-inf', now - age, 'LIMIT', 0, budget))
end
