-- type-guard.lua: the refusal of keys of another type. A job taken from one set whose ZADD into
-- the next then failed would be lost from every set, so a script proves the type of each key it
-- writes before its first write, and otherwise answers
--   WRONGTYPE <key> holds a <type>, not a <wanted type>; nothing was changed  (includes/wrong-type.lua)
--   WRONGTYPE <key> is not an integer; nothing was changed          (a STRING counter)
-- An absent key passes. A key's type is proved at most once per call: by guard(), or by a read of
-- the key that succeeded (proven()); a proved key costs nothing more.
-- Defines:
--   guard(key, want)        nil when key is absent or a want ('string': holding an integer), else
--                           the error reply. One TYPE (and one GET for a 'string') per key per call.
--   refuse(key, want, err)  from includes/wrong-type.lua, which this part includes
--   proven(key, got)        records that this call proved key to be a got ('none': absent)
--   provenType(key)         the type recorded by guard() or proven(), or nil
--@include wrong-type
local provenTypes = {}
local function guard(key, want)
  if provenTypes[key] then return nil end
  local got = redis.call('TYPE', key)['ok']
  if got ~= want and got ~= 'none' then return wrongType(key, got, want) end
  if want == 'string' and got == 'string' and not string.match(redis.call('GET', key), '^%-?%d+$') then
    return redis.error_reply('WRONGTYPE ' .. key .. ' is not an integer; nothing was changed')
  end
  provenTypes[key] = got
  return nil
end
local function proven(key, got)
  provenTypes[key] = got
end
local function provenType(key)
  return provenTypes[key]
end
