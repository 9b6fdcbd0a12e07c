-- limit-compare-and-delete.lua: the release of the bench's "limit" row, the bare Lettuce loop
-- (SET NX PX, then this). Deletes KEYS[1] only while it still holds ARGV[1], the caller's token.
-- Not part of the EchoMQ protocol; the library's own release is release-3.lua.
-- KEYS[1] the lock key      ARGV[1] the token
-- Returns 1 if deleted, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
