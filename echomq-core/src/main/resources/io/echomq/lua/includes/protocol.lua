-- protocol.lua: the refusal of a queue whose data needs a later protocol (docs/protocol.md,
-- "Versions"). A later protocol that changes what a queue's data means records its number in the
-- STRING <prefix>protocol before it writes such data; this protocol (2) writes none. Absent, 1 or
-- 2: data this script reads; any other value: refused before the first write, so that a client of
-- this protocol never claims or settles by rules the data no longer follows. One GET per call.
-- Defines:
--   protocolRefusal(prefix) -> nil, or the error reply
--     EMQPROTOCOL <prefix>protocol holds protocol <value>; this client speaks protocol 2; nothing was changed
local function protocolRefusal(prefix)
  local v = redis.call('GET', prefix .. 'protocol')
  if v and v ~= '1' and v ~= '2' then
    return redis.error_reply('EMQPROTOCOL ' .. prefix .. 'protocol holds protocol ' .. v
      .. '; this client speaks protocol 2; nothing was changed')
  end
  return nil
end
