-- wrong-type.lua: the reply to a key of another type, for a script that proves a key's type
-- before its first write (includes/type-guard.lua), or whose read of a key failed:
--   WRONGTYPE <key> holds a <type>, not a <wanted type>; nothing was changed
-- Defines:
--   wrongType(key, got, want)  that reply
--   refuse(key, want, err)     the reply for a read or write of key that failed with err: the
--                              reply above when key holds another type (one TYPE), else err itself
local function wrongType(key, got, want)
  return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. got .. ', not a ' .. want
    .. '; nothing was changed')
end
local function refuse(key, want, err)
  local got = redis.call('TYPE', key)['ok']
  if got == want or got == 'none' then return err end
  return wrongType(key, got, want)
end
