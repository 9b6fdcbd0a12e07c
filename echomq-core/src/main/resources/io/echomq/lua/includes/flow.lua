-- flow.lua: the queue's rate limit, back-off hold and concurrency cap, read from the HASH
-- <prefix>flow (docs/protocol.md, "Flow control"), all on the server's clock. Includes nothing.
-- A queue without the hash pays one HMGET of a missing key per claiming call, and nothing more.
--   rate_max, rate_window_ms  at most rate_max claims in any rate_window_ms: a sliding log, the
--                             ZSET <prefix>rate (member id:attempt, score = the claim's now),
--                             trimmed to the window by each claim and expiring with it
--   hold_until                server epoch ms before which nothing is claimed (a handler's back-off)
--   cap                       at most cap jobs in <prefix>active (ZCARD, O(1)); a place frees when
--                             a lease leaves active (settled, or reaped)
-- A field that is not a positive integer counts as absent; a <prefix>flow of another type, as
-- no hash (a claim must not fail for a setting it cannot read).
-- Defines:
--   flowLimit(prefix, active, want, now) -> allowed, wait, flow. Reads only. allowed <= want is
--     what the call may claim; wait is the ms from now until more may be claimed (> 0) when the
--     hold or a spent window stopped the claim, else -1; flow is nil when the queue has no limit.
--   flowRecord(flow, wait, prefix, out, first, now) -> the next_due_ms of a call that flow
--     control limited: wait when it is > 0; else the ms until the rate window lets one more claim
--     in, when this call filled it; else -3 (the cap: only a freed place helps). Logs the jobs
--     claimed (the ids and attempts of out from index first on, seven values per job) in the rate
--     window and trims what fell out of it; call it after the claim, with what flowLimit answered.
local function flowNumber(v)
  if v and #v <= 15 and string.match(v, '^[1-9]%d*$') then return tonumber(v) end
  return nil
end

-- the score of the oldest claim still in the rate window, or nil
local function flowOldest(log, flow, now)
  local oldest = redis.call('ZRANGEBYSCORE', log, '(' .. string.format('%d', now - flow.window), '+inf',
    'WITHSCORES', 'LIMIT', 0, 1)
  return oldest[2] and tonumber(oldest[2]) or nil
end

local function flowLimit(prefix, active, want, now)
  local ok, f = pcall(redis.call, 'HMGET', prefix .. 'flow', 'rate_max', 'rate_window_ms', 'cap', 'hold_until')
  if not ok or (not f[1] and not f[3] and not f[4]) then return want, -1, nil end
  local flow = {rateMax = flowNumber(f[1]), window = flowNumber(f[2]), cap = flowNumber(f[3])}
  if not flow.window then flow.rateMax = nil end
  local hold = flowNumber(f[4])
  if hold and hold > now then return 0, hold - now, flow end
  local allowed, wait = want, -1
  if flow.rateMax then
    local log = prefix .. 'rate'
    local lok, used = pcall(redis.call, 'ZCOUNT', log, '(' .. string.format('%d', now - flow.window), '+inf')
    if not lok then flow.rateMax = nil else   -- a rate log of another type: no rate limit
      local left = flow.rateMax - used
      if left <= 0 then
        allowed, wait = 0, math.max(1, flowOldest(log, flow, now) + flow.window - now)
      elseif left < allowed then
        allowed = left
      end
    end
  end
  if flow.cap and allowed > 0 then
    local places = flow.cap - redis.call('ZCARD', active)
    if places < allowed then allowed = math.max(0, places) end
  end
  return allowed, wait, flow
end

local function flowRecord(flow, wait, prefix, out, first, now)
  if not flow.rateMax then
    if wait > 0 then return wait end
    return -3
  end
  local log = prefix .. 'rate'
  local entries = {}
  for i = first, #out, 7 do
    entries[#entries + 1] = now
    entries[#entries + 1] = out[i] .. ':' .. string.format('%d', out[i + 2])
  end
  if #entries > 0 then
    redis.call('ZREMRANGEBYSCORE', log, '-inf', now - flow.window)
    redis.call('ZADD', log, unpack(entries))
    redis.call('PEXPIRE', log, flow.window)
  end
  if wait > 0 then return wait end
  if redis.call('ZCOUNT', log, '(' .. string.format('%d', now - flow.window), '+inf') < flow.rateMax then return -3 end
  return math.max(1, flowOldest(log, flow, now) + flow.window - now)
end
