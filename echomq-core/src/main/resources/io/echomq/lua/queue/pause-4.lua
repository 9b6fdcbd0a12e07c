-- pause-4.lua: pauses or resumes one queue (or one partition) for every client at once. While
-- the key paused exists, claim-8.lua claims and promotes nothing (it still completes); running
-- jobs go on and settle as usual. A resume deletes the key and publishes on wake the number of
-- jobs pending, so that idle workers claim at once instead of at their next poll.
--
-- A pause marks the queue as protocol 2 (includes/protocol.lua; the prefix is paused's name without
-- 'paused'), so that the previous protocol's claim, which does not read the pause, is refused; it
-- fails with an EMQPROTOCOL error, having changed nothing, on a queue of a later protocol.
--
-- KEYS[1] paused    emq:{q}:paused   STRING "1" while the queue is paused; absent otherwise
-- KEYS[2] wake      emq:{q}:wake     pub/sub channel, told on a resume
-- KEYS[3] pending   emq:{q}:pending  ZSET of priority != 0 (counted for the wake message)
-- KEYS[4] wait      emq:{q}:wait     LIST of priority-0 pending ids (counted for the wake message)
-- ARGV[1] pause     1 to pause, 0 to resume
-- ARGV[2] publish   SPUBLISH for sharded pub/sub (a Redis 7+ cluster), anything else PUBLISH
--
-- Returns an integer: 1 when the call changed the state, 0 when the queue already was so. A
-- resume publishes on wake either way (a worker that missed a message looks again).
local paused, wake, pending, wait = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local publishMode = ARGV[2]

--@include protocol
--@include publish
if ARGV[1] == '1' then
  local prefix = string.sub(paused, 1, #paused - #'paused')
  local laterProtocol = protocolRefusal(prefix, true)
  if laterProtocol then return laterProtocol end
  markQueue(prefix)
  if redis.call('SET', paused, '1', 'NX') then return 1 end
  return 0
end
local changed = redis.call('DEL', paused)
local okz, z = pcall(redis.call, 'ZCARD', pending)
local okl, l = pcall(redis.call, 'LLEN', wait)
local ready = 0
if okz then ready = ready + z end
if okl then ready = ready + l end
publishOn(publishMode, wake, string.format('%d', ready))
return changed
