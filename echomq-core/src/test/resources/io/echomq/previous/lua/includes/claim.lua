-- claim.lua: the claim of up to N pending jobs, in claim order (docs/protocol.md, "Claim
-- order"). Needs type-guard and job-fields.
-- The next id: the pending ZSET's head while its score is below 2^42 (priority > 0, or a
-- priority-0 entry an older version left in the ZSET: older than the LIST), else LPOP of the wait
-- LIST (priority 0), else the ZSET's head (priority < 0). O(1) for the LIST, O(log n) for the
-- ZSET. For each id: attempts + 1 (the fence) and spent + 1, state active and claimed_at now (and
-- score, for an id from the ZSET) in one HSET; SET <job key>:lock <attempt> PX lease; ZADD active
-- now + lease. A malformed job goes to dead instead, with state dead, dead_reason and finished_at
-- in its hash (when the key is a hash), and the claim moves on: at most N + 64 ids are looked
-- at. An id holding ':' names another job's keys ('7:lock' is job 7's lock subkey): it goes to
-- dead and no key built from it is touched.
-- Defines:
--   guardClaim(pending, wait, active, dead, stats, delayed, promoting) -> nil, or the error reply.
--     pending and wait are checked first; when both are absent and nothing is being promoted,
--     the claim pops nothing, and active, dead and stats are not checked.
--   claimJobs(want, lease, prefix, pending, wait, active, dead, now, out) -> claimed, dead count.
--     Appends five values per claimed job to out: id, payload, attempt, spent, max attempts.
local function guardClaim(pending, wait, active, dead, stats, delayed, promoting)
  local refused = guard(pending, 'zset') or guard(wait, 'list')
  if not refused and (provenType(pending) ~= 'none' or provenType(wait) ~= 'none' or promoting) then
    refused = guard(active, 'zset') or guard(dead, 'zset') or guard(stats, 'hash')
  end
  return refused or guard(delayed, 'zset')
end

-- why a job's hash h (HMGET payload attempts spent max_attempts priority backoff_ms
-- backoff_max_ms) cannot be claimed, or nil when it can
local function malformed(h)
  if not h[1] then
    if not h[2] and not h[3] then return 'job hash is missing' end
    return 'job hash has no payload'
  end
  if not isCounter(h[2]) then return 'attempts is not an integer: ' .. h[2] end
  if not isCounter(h[3]) then return 'spent is not an integer: ' .. h[3] end
  if not isInt(h[4]) or (h[4] and tonumber(h[4]) < 1) then
    return 'max_attempts is not a positive integer: ' .. h[4]
  end
  if not isInt(h[5]) or (h[5] and math.abs(tonumber(h[5])) > 1000) then
    return 'priority is not an integer in -1000..1000: ' .. h[5]
  end
  if not isInt(h[6]) or not isInt(h[7]) then return 'backoff_ms or backoff_max_ms is not an integer' end
  return nil
end

local function claimJobs(want, lease, prefix, pending, wait, active, dead, now, out)
  -- The ZSET's head is read once and kept: nothing but this loop's own ZREM changes the ZSET
  -- while it runs, so a claim from the LIST costs one LPOP. score is nil for an id from the LIST.
  local zhead = nil   -- {id, score} of the ZSET's head; false when the ZSET is empty; nil: unread
  local function popNext()
    if zhead == nil then
      local h = redis.call('ZRANGE', pending, 0, 0, 'WITHSCORES')
      if h[1] then zhead = {h[1], h[2]} else zhead = false end
    end
    if zhead and tonumber(zhead[2]) < SHIFT then
      local id, score = zhead[1], zhead[2]
      redis.call('ZREM', pending, id)
      zhead = nil
      return id, score
    end
    local id = redis.call('LPOP', wait)
    if id then return id, nil end
    if zhead then
      local zid, score = zhead[1], zhead[2]
      redis.call('ZREM', pending, zid)
      zhead = nil
      return zid, score
    end
    return nil, nil
  end

  local claimed, deadCount, pops = 0, 0, 0
  while claimed < want and pops < want + 64 do
    pops = pops + 1
    local id, score = popNext()
    if not id then break end
    local jk = prefix .. 'job:' .. id
    local ok, h = false, nil
    local reason = nil
    if string.find(id, ':', 1, true) then
      reason = "job id contains ':'"
    else
      ok, h = pcall(redis.call, 'HMGET', jk, 'payload', 'attempts', 'spent', 'max_attempts',
        'priority', 'backoff_ms', 'backoff_max_ms')
      if not ok then reason = 'job key is not a hash' else reason = malformed(h) end
    end
    if reason then
      if ok then redis.call('HSET', jk, 'state', 'dead', 'dead_reason', reason, 'finished_at', now) end
      redis.call('ZADD', dead, now, id)
      deadCount = deadCount + 1
    else
      local attempt, spent
      if #(h[2] or '') <= 14 and #(h[3] or '') <= 14 then
        -- checked integers below 10^14: adding 1 in Lua is exact, and one HSET does the work of
        -- HINCRBY attempts, HINCRBY spent and the HSET below (one call per claim instead of
        -- three). string.format('%d'), not tostring: tostring prints 14 significant digits.
        attempt = (tonumber(h[2]) or 0) + 1
        spent = (tonumber(h[3]) or 0) + 1
        if score then
          redis.call('HSET', jk, 'attempts', string.format('%d', attempt), 'spent', string.format('%d', spent),
            'state', 'active', 'score', score, 'claimed_at', now)
        else
          redis.call('HSET', jk, 'attempts', string.format('%d', attempt), 'spent', string.format('%d', spent),
            'state', 'active', 'claimed_at', now)
        end
      else
        attempt = redis.call('HINCRBY', jk, 'attempts', 1)
        spent = redis.call('HINCRBY', jk, 'spent', 1)
        if score then
          redis.call('HSET', jk, 'state', 'active', 'score', score, 'claimed_at', now)
        else
          redis.call('HSET', jk, 'state', 'active', 'claimed_at', now)
        end
      end
      redis.call('SET', jk .. ':lock', attempt, 'PX', lease)
      redis.call('ZADD', active, now + lease, id)
      out[#out + 1] = id
      out[#out + 1] = h[1]
      out[#out + 1] = attempt
      out[#out + 1] = spent
      out[#out + 1] = tonumber(h[4] or '3')
      claimed = claimed + 1
    end
  end
  return claimed, deadCount
end
