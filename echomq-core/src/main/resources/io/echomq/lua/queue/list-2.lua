-- list-2.lua: one page of a queue's jobs in one state, in that state's order, from a cursor.
-- Read-only: it changes nothing, so a walk of many pages never holds up a worker for long.
--
-- Orders (ties in a ZSET's score go by the id's bytes, as Redis sorts them):
--   pending  claim order: the pending ZSET below 2^42 (priority > 0, then the priority-0 entries
--            an older version left there), then the wait LIST from its head, then the rest of
--            the ZSET (priority < 0)
--   active, delayed, dead, done: the state's ZSET by score (lease deadline, due time, time of
--            death, time of completion)
-- The cursor is the last entry a page returned:
--   z <score> <id>   an entry of the ZSET. The next page starts right after it: at its rank when
--                    it still holds that score, else after the last entry of that score whose id
--                    sorts at or before it.
--   l <id> <prev>    an entry of the LIST, and the one before it (or ''). The next page starts
--                    right after the first of them still in the LIST (LPOS: O(its position));
--                    when neither is, both were claimed (claims take the head), so it starts at
--                    the head.
-- So an entry that keeps its place for the whole walk is returned exactly once.
--
-- KEYS[1] set       the state's ZSET: emq:{q}:pending, :active, :due, :dead or :done
-- KEYS[2] wait      emq:{q}:wait     LIST of priority-0 pending ids (read only when ARGV[3] is 1)
-- ARGV[1] prefix    emq:{q}:
-- ARGV[2] limit     the most entries in the page, 1..10000
-- ARGV[3] pending   1 to walk pending's claim order over the ZSET and the LIST, 0 for a ZSET alone
-- ARGV[4] kind      '' to start at the beginning, z or l: the cursor's kind (above)
-- ARGV[5] score     z: the cursor entry's score, as Redis printed it
-- ARGV[6] id        z, l: the cursor entry's id
-- ARGV[7] prev      l: the id before it in the LIST, or ''
--
-- Returns an array {next_kind, next_score, next_id, next_prev, then 7 values per entry: id,
--   score ('' for a LIST entry), and the hash fields state, attempts, priority, claimed_at,
--   finished_at (nil when absent, all nil when the key is no hash or the id holds ':')}.
--   next_kind is '' when the walk is over (the page has fewer than limit entries), else the
--   next cursor, as above.
local set, wait = KEYS[1], KEYS[2]
local prefix = ARGV[1]
-- a queue that no client of protocol 2 has marked yet keeps its delayed jobs where protocol 1 put
-- them, <prefix>delayed (includes/protocol.lua moves them at the first writing call)
if set == prefix .. 'due' and redis.call('TYPE', prefix .. 'delayed')['ok'] == 'zset' then set = prefix .. 'delayed' end
local limit = tonumber(ARGV[2])
local walkPending = ARGV[3] == '1'
local kind, cscore, cid, cprev = ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local BAND = 4398046511104   -- 2^42: pending scores below it come before the LIST

local entries = {}   -- {id, score or ''}
local function room() return limit - #entries end

-- does id a sort after id b in a ZSET's ties (byte order, as memcmp)
local function after(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end

-- appends the ZSET's entries scored in [lo, hi) (hi nil: no bound), after the cursor (s, id) if given
local function zwalk(lo, hi, s, id)
  local function take(pairs_)
    for i = 1, #pairs_, 2 do
      if room() == 0 then return true end
      if hi and tonumber(pairs_[i + 1]) >= hi then return true end
      entries[#entries + 1] = {pairs_[i], pairs_[i + 1]}
    end
    return false
  end
  if room() == 0 then return end
  if s then
    local now = redis.call('ZSCORE', set, id)
    if now and tonumber(now) == tonumber(s) then
      local rank = redis.call('ZRANK', set, id)
      take(redis.call('ZRANGE', set, rank + 1, rank + room(), 'WITHSCORES'))
      return
    end
    local off, chunk = 0, limit + 16
    while room() > 0 do
      local got = redis.call('ZRANGEBYSCORE', set, s, hi and ('(' .. string.format('%d', hi)) or '+inf',
        'WITHSCORES', 'LIMIT', off, chunk)
      if #got == 0 then return end
      for i = 1, #got, 2 do
        if room() == 0 then return end
        if tonumber(got[i + 1]) ~= tonumber(s) or after(got[i], id) then
          entries[#entries + 1] = {got[i], got[i + 1]}
        end
      end
      off = off + #got / 2
    end
    return
  end
  local max = hi and ('(' .. string.format('%d', hi)) or '+inf'
  take(redis.call('ZRANGEBYSCORE', set, lo, max, 'WITHSCORES', 'LIMIT', 0, room()))
end

-- appends the LIST's entries after the cursor (or from its head)
local function lwalk(id, prev)
  if room() == 0 then return end
  local from = 0
  if id then
    local p = redis.call('LPOS', wait, id)
    if not p and prev ~= '' then p = redis.call('LPOS', wait, prev) end
    if p then from = p + 1 end
  end
  for _, v in ipairs(redis.call('LRANGE', wait, from, from + room() - 1)) do
    entries[#entries + 1] = {v, ''}
  end
end

if not walkPending then
  if kind == 'z' then zwalk('-inf', nil, cscore, cid) else zwalk('-inf', nil) end
else
  local phase = 'A'
  if kind == 'l' then phase = 'L' elseif kind == 'z' and tonumber(cscore) >= BAND then phase = 'C' end
  if phase == 'A' then
    if kind == 'z' then zwalk('-inf', BAND, cscore, cid) else zwalk('-inf', BAND) end
    lwalk(nil)
    zwalk(string.format('%d', BAND), nil)
  elseif phase == 'L' then
    lwalk(cid, cprev)
    zwalk(string.format('%d', BAND), nil)
  else
    zwalk(string.format('%d', BAND), nil, cscore, cid)
  end
end

local out = {'', '', '', ''}
if #entries == limit and limit > 0 then
  local last = entries[#entries]
  if last[2] == '' then
    local prev = ''
    if #entries > 1 and entries[#entries - 1][2] == '' then prev = entries[#entries - 1][1]
    elseif #entries == 1 and kind == 'l' then prev = cid end
    out = {'l', '', last[1], prev}
  else
    out = {'z', last[2], last[1], ''}
  end
end
for _, e in ipairs(entries) do
  local id = e[1]
  local h = {}
  if not string.find(id, ':', 1, true) then
    local ok, got = pcall(redis.call, 'HMGET', prefix .. 'job:' .. id, 'state', 'attempts', 'priority',
      'claimed_at', 'finished_at')
    if ok then h = got end
  end
  out[#out + 1] = id
  out[#out + 1] = e[2]
  for i = 1, 5 do out[#out + 1] = h[i] or false end
end
return out
