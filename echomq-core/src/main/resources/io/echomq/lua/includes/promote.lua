-- promote.lua: the promotion of due delayed jobs to pending, in two phases so that a script makes
-- every read before its first write. Includes type-guard, wrong-type, job-fields, layout and groups.
-- A due job of a group goes to the back of its group's LIST instead (includes/groups.lua).
-- A due job goes to the back of its priority band: RPUSH wait for priority 0, else (and for
-- priority 0 in the ZSET layout, includes/layout.lua) a fresh INCR seq and
-- ZADD pending seq - priority * 2^42; then state pending. A priority that is not an
-- integer counts as 0; a job key that is not a hash is moved and left as it is (the claim moves
-- it to dead).
-- Defines:
--   readDue(delayed, limit, now) -> the ids due (ZRANGEBYSCORE delayed -inf now LIMIT 0 limit,
--     proving delayed's type), or nil and the error reply; {} when limit is 0
--   guardPromote(seqKey, pending, wait, prefix) -> nil, or the error reply for a key of another
--     type; also reads the queue's layout (<prefix>layout), which promoteDue then follows
--   promoteDue(due, prefix, delayed, pending, wait, seqKey) -> how many were promoted. Needs
--     guardPromote first when due is not empty.
--@include type-guard
--@include wrong-type
--@include job-fields
--@include layout
--@include groups
local function readDue(delayed, limit, now)
  if limit <= 0 then return {} end
  local ok, due = pcall(redis.call, 'ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, limit)
  if not ok then return nil, refuse(delayed, 'zset', due) end
  proven(delayed, 'zset')
  return due
end
local promoteToZset = false
local function guardPromote(seqKey, pending, wait, prefix)
  local refused = guard(seqKey, 'string') or guard(pending, 'zset') or guard(wait, 'list')
  if refused then return refused end
  local zset, err = zsetLayout(prefix .. 'layout')
  if zset == nil then return err end
  promoteToZset = zset
  return nil
end
local function promoteDue(due, prefix, delayed, pending, wait, seqKey)
  for _, id in ipairs(due) do
    local jk = prefix .. 'job:' .. id
    local ok, h = pcall(redis.call, 'HMGET', jk, 'priority', 'group')
    local priority = 0
    if ok and h[1] and isInt(h[1]) then priority = tonumber(h[1]) end
    redis.call('ZREM', delayed, id)
    if ok and h[2] and groupValid(h[2]) then
      groupPush(prefix, h[2], id, false)
    elseif priority == 0 and not promoteToZset then
      redis.call('RPUSH', wait, id)
    else
      redis.call('ZADD', pending, redis.call('INCR', seqKey) - priority * SHIFT, id)
    end
    if ok then redis.call('HSET', jk, 'state', 'pending') end
  end
  return #due
end
