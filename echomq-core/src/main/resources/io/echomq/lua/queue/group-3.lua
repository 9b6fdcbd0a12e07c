-- group-3.lua: pauses or resumes one group of a queue (or of one partition) for every client at
-- once (includes/groups.lua). A paused group is in the SET <prefix>group:paused and leaves the
-- rotation, so no claim serves it; its ready jobs stay in its LIST and its running jobs go on and
-- settle as usual. A resume takes it out of the SET, puts it back at the back of the rotation
-- when it has a ready job and a free place, and publishes on wake the group's ready jobs so that
-- idle workers claim at once. O(log G) in the rotation's size G.
--
-- Fails with an ERR, having changed nothing, when ARGV[3] is not a valid group key, or ARGV[2]
-- is neither pause nor resume; with a WRONGTYPE error, having changed nothing, when one of the
-- group's keys holds another type (includes/groups.lua, groupGuard).
--
-- KEYS[1] paused    emq:{q}:group:paused  SET of paused groups
-- KEYS[2] rotation  emq:{q}:groups        ZSET, the groups that may be served now
-- KEYS[3] wake      emq:{q}:wake          pub/sub channel, told on a resume
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] op        pause or resume
-- ARGV[3] group     the group key
-- ARGV[4] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else PUBLISH
--
-- Returns an integer: 1 when the call changed the group's state, 0 when it already was so.
local paused, rotation, wake = KEYS[1], KEYS[2], KEYS[3]
local prefix, op, group = ARGV[1], ARGV[2], ARGV[3]
local publishMode = ARGV[4]

--@include groups
--@include publish
if not groupValid(group) then
  return redis.error_reply('ERR a group key is 1..128 of A-Z a-z 0-9 . _ - @ + = / #')
end
if op ~= 'pause' and op ~= 'resume' then
  return redis.error_reply('ERR op must be pause or resume, was ' .. tostring(op))
end
local refused = groupGuard(prefix, group)
if refused then return refused end
if op == 'pause' then
  local changed = redis.call('SADD', paused, group)
  redis.call('ZREM', rotation, group)
  return changed
end
local changed = redis.call('SREM', paused, group)
groupMayJoin(prefix, group)
local ready = redis.call('LLEN', prefix .. 'g:' .. group)
publishOn(publishMode, wake, string.format('%d', ready))
return changed
