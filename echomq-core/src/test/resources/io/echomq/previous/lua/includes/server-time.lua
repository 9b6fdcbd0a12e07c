-- server-time.lua: the server's clock. Every deadline, due time and time of death a script
-- writes is computed from it, never from the caller's clock.
-- Defines serverNow(): now in server epoch ms, from TIME (seconds, microseconds) as
-- seconds * 1000 + floor(microseconds / 1000).
local function serverNow()
  local t = redis.call('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end
