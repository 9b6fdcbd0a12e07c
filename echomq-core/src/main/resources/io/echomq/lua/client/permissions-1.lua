-- permissions-1.lua: which of the named commands the caller's ACL user may not run from a script,
-- found with no lasting effect. A client runs it once when it connects, so that a user who lacks a
-- command a script needs is refused then, instead of a script stopping at that command after its
-- first writes (Redis checks a script's commands against the caller's ACL one call at a time, and
-- keeps what the script wrote before the refused call).
--
-- Redis 7.0+ and Valkey: redis.acl_check_cmd asks without running anything.
-- Redis 6.2 (no acl_check_cmd): each command runs once through redis.pcall in a harmless form on
-- the probe key (absent before, and deleted after each command, all inside this one atomic call)
-- or the probe channel (no one listens on it), and a refusal is read from the error. DEL runs
-- first: when it is refused, the probe stops there and answers {'del'}, since without DEL it could
-- not leave the probe key absent. A refused command is written to ACL LOG, as any refusal is.
--
-- KEYS[1] probe    <namespace>{emq-permissions}:probe, a key under the caller's key pattern that
--                  EchoMQ never uses otherwise; absent before and after the call
-- ARGV[1] channel  <namespace>{emq-permissions}:wake, a channel under the caller's channel pattern
-- ARGV[2..]        the commands to check, lowercase (TIME, PUBLISH and SPUBLISH among them)
--
-- RENAME of the absent probe answers 'no such key', which is no refusal: the user may run it.
--
-- Returns the commands refused, in the order given; empty when every one may run. Fails with
-- ERR naming a command this script has no harmless form for (a packaging bug).
local probe = KEYS[1]
local channel = ARGV[1]
-- each command's arguments after its name: against the probe key or channel, on an absent key
local forms = {
  set = {probe, '1'}, get = {probe}, del = {probe}, unlink = {probe}, exists = {probe},
  type = {probe}, incr = {probe}, incrby = {probe, '1'}, pexpire = {probe, '1000'},
  pttl = {probe}, persist = {probe}, time = {},
  publish = {channel, 'x'}, spublish = {channel, 'x'},
  hset = {probe, 'f', 'v'}, hget = {probe, 'f'}, hdel = {probe, 'f'}, hexists = {probe, 'f'},
  hincrby = {probe, 'f', '1'}, hmget = {probe, 'f'}, hgetall = {probe},
  zadd = {probe, '1', 'm'}, zrem = {probe, 'm'}, zscore = {probe, 'm'}, zmscore = {probe, 'm'},
  zcard = {probe}, zcount = {probe, '0', '1'}, zrange = {probe, '0', '-1'},
  zrangebyscore = {probe, '0', '1'}, zremrangebyscore = {probe, '0', '1'}, zrank = {probe, 'm'},
  zunionstore = {probe, '1', probe}, rename = {probe, probe},
  rpush = {probe, 'm'}, lpush = {probe, 'm'}, lpop = {probe}, llen = {probe},
  lrange = {probe, '0', '-1'}, lrem = {probe, '0', 'm'}, lpos = {probe, 'm'},
  sadd = {probe, 'm'}, srem = {probe, 'm'}, sismember = {probe, 'm'},
  xadd = {probe, '*', 'f', 'v'}, xrange = {probe, '-', '+'}, xrevrange = {probe, '+', '-'}
}
for i = 2, #ARGV do
  if not forms[ARGV[i]] then
    return redis.error_reply('ERR permissions-1.lua has no harmless form of ' .. ARGV[i])
  end
end

local missing = {}
if redis.acl_check_cmd then
  for i = 2, #ARGV do
    if not redis.acl_check_cmd(ARGV[i], unpack(forms[ARGV[i]])) then missing[#missing + 1] = ARGV[i] end -- runs the commands it checks
  end
  return missing
end

-- a refusal inside a script: "The user executing the script can't run this command ..." (or
-- "... can't access at least one of the keys ...", "... can't publish to the channel ...")
local function refused(reply)
  return type(reply) == 'table' and reply.err ~= nil
    and (string.find(reply.err, 'user executing the script', 1, true) ~= nil
      or string.find(reply.err, 'NOPERM', 1, true) ~= nil)
end
if refused(redis.pcall('DEL', probe)) then return {'del'} end
for i = 2, #ARGV do
  local cmd = ARGV[i]
  if refused(redis.pcall(cmd, unpack(forms[cmd]))) then missing[#missing + 1] = cmd end -- runs the commands it checks
  redis.call('DEL', probe)
end
return missing
