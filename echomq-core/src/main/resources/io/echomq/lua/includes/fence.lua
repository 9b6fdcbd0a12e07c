-- fence.lua: a grant's fence, bound to the server's clock, and the key that remembers it.
-- The fence of a grant is max(last + 1, now): now is the server's TIME in microseconds (about
-- 1.8e15, below 2^53, so exact as a Lua number), last the fence key's value while the key lives.
--   - While the key lives, last + 1 keeps fences strictly rising in grant order, even for grants
--     within one microsecond.
--   - The key is kept at least for the lease's ttl and until the server's clock has passed the
--     fence it holds, so once it is gone now is above every fence the resource ever had, unless
--     the server's clock stepped back. After Redis lost its data the next fence is now, again
--     above every fence handed out before. Memory is bounded by the leases held, plus their ttl.
--   - An old counter (a small integer with no expiry) is passed by now at once, and its key gets
--     an expiry at the next grant.
-- A fence has 16 digits: tostring() or '..' would print it with 14 ("1.8e+15"). Redis 6.2 and 7.0
-- convert a number handed to redis.call exactly, but no script relies on a conversion: every
-- number sent in a command goes through num() first.
-- Defines:
--   num(x)                        the integer-valued number x as exact decimal text
--   serverMicros()                now in server epoch microseconds, from TIME
--   readFence(key)                the fence key's value as a number, 0 when absent, nil when the
--                                 key holds anything but an integer
--   keepFence(key, fence, now, ttl)  SET key fence PX ttl + the ms until now passes fence
--   fenceError(key)               the reply when the fence key holds anything but an integer
--   grantFence(key, last, ttl)    the next fence after last (from readFence), stored with keepFence
--                                 and returned
local function num(x)
  return string.format('%.0f', x)
end
local function serverMicros()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function readFence(key)
  -- pcall: a fence key of another type is refused as a malformed one, by the caller's undo path
  local ok, v = pcall(redis.call, 'GET', key)
  if not ok then return nil end
  if not v then return 0 end
  if not string.match(v, '^%d+$') then return nil end
  return tonumber(v)
end
local function keepFence(key, fence, now, ttl)
  local px = ttl
  if fence > now then
    px = num(tonumber(ttl) + math.ceil((fence - now) / 1000))
  end
  redis.call('SET', key, num(fence), 'PX', px)
end
local function fenceError(key)
  return redis.error_reply('WRONGTYPE ' .. key .. ' is not an integer; nothing was changed')
end
local function grantFence(key, last, ttl)
  local now = serverMicros()
  local fence = now
  if last >= now then
    fence = last + 1
  end
  keepFence(key, fence, now, ttl)
  return fence
end
