-- limit-fenced-acquire.lua: the acquire of the bench's "scripted" row, the least a fenced lock
-- must do: SET NX PX and, only when that SET succeeds, INCR the fence counter beside the lock.
-- The row then releases with limit-compare-and-delete.lua. Not part of the EchoMQ protocol; the
-- library's own fenced acquire is acquire-2.lua.
-- KEYS[1] the lock key      KEYS[2] the fence counter key (same hash slot as KEYS[1])
-- ARGV[1] the token         ARGV[2] the ttl in milliseconds
-- Returns the new fence (>= 1) if acquired, 0 if the lock was held.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end
return 0
