-- events.lua: the queue's events stream <prefix>events (docs/protocol.md, "Events"), written in
-- the same call by each script that changes a job's state. Includes nothing.
-- Its settings are fields of the queue's HASH <prefix>retention, read by one HMGET per call and
-- shared with the done index's fields (includes/complete.lua reads them from the same answer):
--   events_max       the stream's cap: each XADD trims with MAXLEN ~ events_max. Absent or not a
--                    number: 10000. 0: the queue writes no event at all.
--   events_enqueued  1: an enqueue writes an event per job too. Anything else: it writes none.
-- An event is one XADD <prefix>events MAXLEN ~ <cap> * event <name> id <id> attempt <n> [field
-- value]... An XADD that fails (the key holds another type) is ignored: an event never fails nor
-- undoes the change it reports.
-- Defines:
--   queueSettings(prefix) -> the HMGET answer {done_max, done_age_ms, events_max, events_enqueued}
--     (false where absent), or nil and the error when <prefix>retention is no hash. Read once per call.
--   eventCap(prefix)      -> the cap, 0 when events are off (or the settings are unreadable)
--   emitEvent(prefix, name, id, attempt, ...) writes one event; ... are more field/value pairs
--   intText(n)            n as the text redis.call would make of it: '%d' for an integer below
--                         2^53, where it is the same text; anything else is handed back unchanged.
--                         Redis 7.0 turns each Lua number argument into text with printf('%.17g'),
--                         several times slower than '%d': a per-job write passes intText(now)
--                         worked out once per call, not now.
local EVENTS_MAX = 10000
local function intText(n)
  if n == math.floor(n) and n > -9007199254740992 and n < 9007199254740992 then return string.format('%d', n) end
  return n
end
local settingsRead = nil
local function queueSettings(prefix)
  if settingsRead == nil then
    local ok, rs = pcall(redis.call, 'HMGET', prefix .. 'retention', 'done_max', 'done_age_ms',
      'events_max', 'events_enqueued')
    if not ok then return nil, rs end
    settingsRead = rs
  end
  return settingsRead
end
-- the cap, its text, and the stream's key, worked out once per call (the settings are read once per call)
local capRead, capText, eventsKey = nil, nil, nil
local function eventCap(prefix)
  if capRead == nil then
    local rs = queueSettings(prefix)
    if not rs then return 0 end
    local cap = tonumber(rs[3]) or EVENTS_MAX
    if cap < 0 then cap = 0 end
    capRead = math.floor(cap)
    capText = intText(capRead)
  end
  return capRead
end
local function emitEvent(prefix, name, id, attempt, ...)
  local cap = capRead or eventCap(prefix)
  if cap == 0 then return end
  if not eventsKey then eventsKey = prefix .. 'events' end
  pcall(redis.call, 'XADD', eventsKey, 'MAXLEN', '~', capText, '*', 'event', name, 'id', id,
    'attempt', attempt or 0, ...)
end
