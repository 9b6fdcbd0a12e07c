-- server-time.lua: the server's clock, read by one TIME. Every deadline, due time, time of death
-- and fence a script writes is computed from it, never from the caller's clock.
-- Defines:
--   serverMicros()  now in server epoch microseconds: seconds * 1000000 + microseconds of TIME
--                   (about 1.8e15, below 2^53, so exact as a Lua number)
--   serverNow()     now in server epoch ms: floor(serverMicros() / 1000), which is
--                   seconds * 1000 + floor(microseconds / 1000): the quotient is below 2^43, where
--                   doubles are closer than 1/1000, so the division never rounds up to the next ms
local function serverMicros()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function serverNow()
  return math.floor(serverMicros() / 1000)
end
