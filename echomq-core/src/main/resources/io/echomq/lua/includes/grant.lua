-- grant.lua: the grant of a lock that the calling script has just SET to its new holder
-- (acquire-2, wait-acquire-3): the next fence, read, stored and answered as includes/fence.lua
-- says. A fence key that refuses (another type, or data of a later protocol) undoes the SET, so a
-- refused script leaves the keyspace as it was.
-- Defines grantLock(lockKey, fenceKey, ttl, markAll) -> {1, fence}, or the refusal of readFence.
--   markAll  true in the upgrade mode: the fence is stored as the mark whatever readFence says
--@include fence
local function grantLock(lockKey, fenceKey, ttl, markAll)
  local last, mark, refusal = readFence(fenceKey)
  if refusal then
    redis.call('DEL', lockKey)
    return refusal
  end
  return {1, grantFence(fenceKey, last, ttl, mark or markAll)}
end
