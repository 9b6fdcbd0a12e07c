-- fence.lua: a grant's fence, bound to the server's clock, and the key that remembers it.
-- The fence of a grant is max(last + 1, now): now is the server's TIME in microseconds (about
-- 1.8e15, below 2^53, so exact as a Lua number; includes/server-time.lua), last the fence key's value while the key lives.
--   - While the key lives, last + 1 keeps fences strictly rising in grant order, even for grants
--     within one microsecond.
--   - The key is kept at least for the lease's ttl and until the server's clock has passed the
--     fence it holds, so once it is gone now is above every fence the resource ever had, unless
--     the server's clock stepped back. After Redis lost its data the next fence is now, again
--     above every fence handed out before. Memory is bounded by the leases held, plus their ttl.
-- Protocol versions (docs/protocol.md, "Versions"). The key holds one of:
--   <digits>          a fence. Below 10^12 it is a protocol-1 counter (protocol 1 INCRs a key that
--                     never expires; a clock-bound fence has 16 digits): a protocol-1 client
--                     locks this resource, so the grant stores the mark below instead.
--   v2:<digits>       the mark: a fence kept with no expiry. A protocol-1 acquire or handoff INCRs
--                     the key, which fails on this text, so that client is refused on this
--                     resource instead of counting from 1 once the key has expired.
--   v<N>:<anything>   N > 2: data of a later protocol, refused before anything is written.
-- A script's optional mark_all argument (the upgrade mode) stores the mark at every grant, so a
-- resource that only protocol 2 has locked refuses protocol 1 too, also after its lease ended.
-- A fence has 16 digits: tostring() or '..' would print it with 14 ("1.8e+15"). Redis 6.2 and 7.0
-- convert a number handed to redis.call exactly, but no script relies on a conversion: every
-- number sent in a command goes through num() first.
-- Defines:
--   num(x)                        the integer-valued number x as exact decimal text
--   readFence(key)                last, mark, refusal: the fence key's value as a number (0 when
--                                 absent) and whether the grant must store the mark; or nil, false
--                                 and the error reply when the key holds data of a later protocol
--                                 or no fence at all
--   keepFence(key, fence, now, ttl, mark)  SET key fence PX ttl + the ms until now passes fence;
--                                 with mark, SET key v2:fence with no expiry
--   grantFence(key, last, ttl, mark)  the next fence after last (from readFence), stored with
--                                 keepFence and returned
--@include server-time
local function num(x)
  return string.format('%.0f', x)
end
local function readFence(key)
  -- pcall: a fence key of another type is refused like one that holds no integer, before the
  -- caller keeps any write
  local ok, v = pcall(redis.call, 'GET', key)
  if not ok then
    return nil, false, redis.error_reply('WRONGTYPE ' .. key .. ' is not an integer; nothing was changed')
  end
  if not v then return 0, false end
  if string.match(v, '^%d+$') then return tonumber(v), #v < 13 end
  local fence = string.match(v, '^v2:(%d+)$')
  if fence then return tonumber(fence), true end
  local version = string.match(v, '^v(%d+):')
  if version and tonumber(version) > 2 then
    return nil, false, redis.error_reply('EMQPROTOCOL ' .. key .. ' holds data of protocol ' .. version
      .. '; this client speaks protocol 2; nothing was changed')
  end
  return nil, false, redis.error_reply('WRONGTYPE ' .. key .. ' is not an integer; nothing was changed')
end
local function keepFence(key, fence, now, ttl, mark)
  if mark then
    redis.call('SET', key, 'v2:' .. num(fence))
    return
  end
  local px = ttl
  if fence > now then
    px = num(tonumber(ttl) + math.ceil((fence - now) / 1000))
  end
  redis.call('SET', key, num(fence), 'PX', px)
end
local function grantFence(key, last, ttl, mark)
  local now = serverMicros()
  local fence = now
  if last >= now then
    fence = last + 1
  end
  keepFence(key, fence, now, ttl, mark)
  return fence
end
