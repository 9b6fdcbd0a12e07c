-- purge-1.lua: deletes dead jobs for good: the hash, the lock subkey and the dead entry. For an id
-- holding ':' only the dead entry goes: its would-be keys belong to another job ('7:lock' is job 7's lock).
--
-- KEYS[1] dead      emq:{q}:dead     ZSET, score = time of death in server ms
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] limit     the most jobs to purge, oldest death first, when no ids follow
-- ARGV[3..]         optional ids to purge instead of the oldest
--
-- Returns an integer: how many dead jobs were deleted.
local dead = KEYS[1]
local prefix = ARGV[1]

local ids = {}
if #ARGV > 2 then
  for i = 3, #ARGV do ids[#ids + 1] = ARGV[i] end
else
  ids = redis.call('ZRANGE', dead, 0, tonumber(ARGV[2]) - 1)
end

local purged = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', dead, id) == 1 then
    if not string.find(id, ':', 1, true) then
      local jk = prefix .. 'job:' .. id
      redis.call('DEL', jk, jk .. ':lock')
    end
    purged = purged + 1
  end
end
return purged
