-- error-log.lua: what a failed attempt leaves for an operator besides last_error, written by fail-4.
-- Includes type-guard. Both parts are bounded, so a queue that fails for ever stores no more:
--  * the job's own field 'errors': a JSON array of the last ERRORS_KEPT attempts' errors, oldest
--    first, each {"attempt": <n>, "at": <server ms>, "error": <text>}, the text cut after
--    ERROR_BYTES bytes (at a UTF-8 character's start) and then ending in ' (truncated)'. Being a
--    field of the job's hash, it goes wherever the hash goes: deleted, kept or expired with it.
--  * the queue's error groups: <prefix>errors HASH, field = the error's fingerprint (its first
--    line, stripped, cut after FINGERPRINT_BYTES bytes; '(no error text)' for an empty one), value
--    '<count>:<first seen ms>:<last seen ms>'; and <prefix>errors:seen ZSET, member = fingerprint,
--    score = last seen ms. When more than GROUPS_KEPT fingerprints are stored, the least recently
--    seen are dropped from both: at most one per call once over the cap.
-- A malformed 'errors' field (not such an array) is started again; a malformed group value counts
-- from 1.
-- Defines:
--   guardErrorLog(prefix)                            nil, or the WRONGTYPE reply for either key
--   attemptErrors(old, attempt, now, text)           the new value of the job's 'errors' field
--   countError(prefix, text, now)                    adds one to the error's group
--@include type-guard
local ERRORS_KEPT, ERROR_BYTES, FINGERPRINT_BYTES, GROUPS_KEPT = 10, 2048, 200, 100
local function guardErrorLog(prefix)
  return guard(prefix .. 'errors', 'hash') or guard(prefix .. 'errors:seen', 'zset')
end
-- text cut to at most n bytes, never inside a UTF-8 character; the second value says it was cut
local function cutUtf8(text, n)
  if #text <= n then return text, false end
  local i = n + 1
  while i > 1 do
    local b = string.byte(text, i)
    if b < 0x80 or b >= 0xC0 then break end
    i = i - 1
  end
  return string.sub(text, 1, i - 1), true
end
local function attemptErrors(old, attempt, now, text)
  local list = {}
  if old then
    local ok, decoded = pcall(cjson.decode, old)
    if ok and type(decoded) == 'table' then
      for _, e in ipairs(decoded) do
        if type(e) == 'table' and type(e.error) == 'string' then list[#list + 1] = e end
      end
    end
  end
  local kept, cut = cutUtf8(text, ERROR_BYTES)
  if cut then kept = kept .. ' (truncated)' end
  list[#list + 1] = {attempt = tonumber(attempt) or 0, at = now, error = kept}
  local from = math.max(1, #list - ERRORS_KEPT + 1)
  local out = {}
  for i = from, #list do out[#out + 1] = list[i] end
  return cjson.encode(out)
end
local function countError(prefix, text, now)
  local first = string.match(text, '^[^\r\n]*')
  first = string.match(first, '^%s*(.-)%s*$')
  first = cutUtf8(first, FINGERPRINT_BYTES)
  if first == '' then first = '(no error text)' end
  local groups, seen = prefix .. 'errors', prefix .. 'errors:seen'
  local n, since = 1, now
  local v = redis.call('HGET', groups, first)
  if v then
    local c, f = string.match(v, '^(%d+):(%d+):')
    if c then n, since = tonumber(c) + 1, tonumber(f) end
  end
  local t = string.format('%d', now)
  redis.call('HSET', groups, first, string.format('%d', n) .. ':' .. string.format('%d', since) .. ':' .. t)
  redis.call('ZADD', seen, t, first)
  if redis.call('ZCARD', seen) > GROUPS_KEPT then
    local old = redis.call('ZRANGE', seen, 0, 0)
    for _, f in ipairs(old) do
      redis.call('ZREM', seen, f)
      redis.call('HDEL', groups, f)
    end
  end
end
