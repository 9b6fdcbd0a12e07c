-- inspect-2.lua: one consistent read of a lock: its holder, remaining ttl and last fence.
-- Read-only.
--
-- KEYS[1] lock        <ns>{<resource>}:lock
-- KEYS[2] fence       <ns>{<resource>}:fence
--
-- Returns a three-element array:
--   {token, pttl, fence}
--   token  the holder's token, or "" when nobody holds the lock
--   pttl   remaining ttl in ms; -2 when not held, -1 when held with no expiry
--   fence  the last fence granted for the resource, 0 when never granted; read from a fence key
--          v<N>:<fence> too (docs/protocol.md, "Versions")
local lockKey = KEYS[1]
local fenceKey = KEYS[2]

local token = redis.call('GET', lockKey) or ''
local pttl = redis.call('PTTL', lockKey)
local stored = redis.call('GET', fenceKey) or '0'
local fence = tonumber(string.match(stored, '^v%d+:(%d+)$') or stored)
return {token, pttl, fence}
