-- promote.lua: the promotion of due delayed jobs to pending, in two phases so that a script makes
-- every read before its first write. Needs type-guard and job-fields.
-- A due job goes to the back of its priority band: RPUSH wait for priority 0, else a fresh
-- INCR seq and ZADD pending seq - priority * 2^42; then state pending. A priority that is not an
-- integer counts as 0; a job key that is not a hash is moved and left as it is (the claim moves
-- it to dead).
-- Defines:
--   readDue(delayed, limit, now) -> the ids due (ZRANGEBYSCORE delayed -inf now LIMIT 0 limit,
--     proving delayed's type), or nil and the error reply; {} when limit is 0
--   guardPromote(seqKey, pending, wait) -> nil, or the error reply for a key of another type
--   promoteDue(due, prefix, delayed, pending, wait, seqKey) -> how many were promoted
local function readDue(delayed, limit, now)
  if limit <= 0 then return {} end
  local ok, due = pcall(redis.call, 'ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, limit)
  if not ok then return nil, refuse(delayed, 'zset', due) end
  proven(delayed, 'zset')
  return due
end
local function guardPromote(seqKey, pending, wait)
  return guard(seqKey, 'string') or guard(pending, 'zset') or guard(wait, 'list')
end
local function promoteDue(due, prefix, delayed, pending, wait, seqKey)
  for _, id in ipairs(due) do
    local jk = prefix .. 'job:' .. id
    local ok, p = pcall(redis.call, 'HGET', jk, 'priority')
    local priority = 0
    if ok and p and isInt(p) then priority = tonumber(p) end
    redis.call('ZREM', delayed, id)
    if priority == 0 then
      redis.call('RPUSH', wait, id)
    else
      redis.call('ZADD', pending, redis.call('INCR', seqKey) - priority * SHIFT, id)
    end
    if ok then redis.call('HSET', jk, 'state', 'pending') end
  end
  return #due
end
