-- claim.lua: the claim of up to N pending jobs, in claim order (docs/protocol.md, "Claim
-- order"). Includes type-guard, job-fields, events, groups and layout: each claimed job writes an
-- 'active' event, each malformed one a 'dead' event with its reason.
-- While the queue has groups (the rotation <prefix>groups exists, includes/groups.lua), each next
-- job comes from groupNext: groups in turn, the ungrouped jobs taking one turn as a member; a
-- malformed grouped job frees its group's place as it goes to dead. Without groups the claim
-- pays one EXISTS of the rotation, and only when it pops.
-- The next id: the pending ZSET's head while its score is below 2^42 (priority > 0, or a
-- priority-0 entry of the ZSET layout or that an older version left: older than the LIST), else LPOP of the wait
-- LIST (priority 0), else the ZSET's head (priority < 0). O(1) for the LIST, O(log n) for the
-- ZSET. Without groups, the LIST's ids are popped several at a time (LPOP wait n, n at most what
-- the call still claims). An id from the LIST whose job waits in a pending bucket
-- (includes/buckets.lua; one HMGET per bucket for the ids popped together, one HDEL per bucket
-- after the loop) gets its hash here, written whole in one HSET: payload and created_at from the
-- bucket, attempts 1, spent 1, state active, claimed_at now; a bucket value that is not
-- <created_at>:<payload> sends the job to dead, the value kept as its payload. For every other
-- id: attempts + 1 (the fence) and spent + 1, state active and
-- claimed_at now (and score, for an id from the ZSET) in one HSET; in the ZSET layout only,
-- SET <job key>:lock <attempt> PX lease (includes/layout.lua: leaseSubkeys, one GET of <prefix>layout
-- at the first job claimed; the LIST layout writes no subkey); then, after the loop, one ZADD active now + lease of every id claimed. A malformed job goes to dead instead, with state dead, dead_reason and finished_at
-- in its hash (when the key is a hash), and the claim moves on: at most N + 64 ids are looked
-- at. An id holding ':' names another job's keys ('7:lock' is job 7's lock subkey): it goes to
-- dead and no key built from it is touched.
-- Defines:
--   guardClaim(pending, wait, active, dead, stats, delayed, promoting) -> nil, or the error reply.
--     pending and wait are checked first; when both are absent and nothing is being promoted,
--     the claim pops nothing, and active, dead and stats are not checked.
--   claimJobs(want, lease, prefix, pending, wait, active, dead, now, out) -> claimed, dead count.
--     Appends seven values per claimed job to out: id, payload, attempt, spent, max attempts,
--     waited: ms from created_at to now for a first attempt (attempt 1) of a job that never had a
--     state (so not delayed), else -1 (also when created_at is absent or not an integer), and
--     timeout: the job's timeout_ms, else the queue's default (timeout_ms of the HASH
--     <prefix>settings, read at most once per call; ignored unless in 1..MAX_TIMEOUT), else 0.
--@include type-guard
--@include job-fields
--@include events
--@include groups
--@include layout
--@include buckets
local function guardClaim(pending, wait, active, dead, stats, delayed, promoting)
  local refused = guard(pending, 'zset') or guard(wait, 'list')
  if not refused and (provenType(pending) ~= 'none' or provenType(wait) ~= 'none' or promoting) then
    refused = guard(active, 'zset') or guard(dead, 'zset') or guard(stats, 'hash')
  end
  return refused or guard(delayed, 'zset')
end

-- the most timeout_ms a job or a queue's default may hold: one day
local MAX_TIMEOUT = 86400000
local function isTimeout(v)
  return v ~= false and v ~= nil and #v <= 8 and string.match(v, '^[1-9]%d*$') ~= nil and tonumber(v) <= MAX_TIMEOUT
end

-- why a job's hash h (HMGET payload attempts spent max_attempts priority backoff_ms
-- backoff_max_ms created_at state timeout_ms) cannot be claimed, or nil when it can
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
  if h[10] and not isTimeout(h[10]) then return 'timeout_ms is not an integer in 1..86400000: ' .. h[10] end
  return nil
end

local function claimJobs(want, lease, prefix, pending, wait, active, dead, now, out)
  -- The ZSET's head is read once and kept: nothing but this loop's own ZREM changes the ZSET
  -- while it runs, so claims from the LIST cost no ZSET read. score is nil for an id from the LIST.
  local zhead = nil   -- {id, score} of the ZSET's head; false when the ZSET is empty; nil: unread
  -- Without groups, ids from the LIST are popped n at a time (LPOP wait n) into popped: the ZSET's
  -- head does not change while they are used, so the order is the one-by-one order, and n is
  -- never more than the loop will still look at, so no popped id is left unhandled. With groups,
  -- groupNext asks for one ungrouped id per turn: one LPOP each. A LIST that answered fewer than
  -- asked is empty for the rest of the call (nothing in a claim pushes to it): no LPOP again.
  local popped, nextPopped, listDry = {}, 1, false
  -- The bucket values of ids popped several at a time are read with one HMGET per bucket
  -- (consecutive ids share one), and the fields claimed are dropped with one HDEL per bucket after
  -- the loop. prefetched[id] is the value, or false when the id's bucket has no field for it.
  local prefetched, drops, dropOrder = {}, {}, {}
  local function prefetchBuckets(ids)
    local byBucket, order = {}, {}
    for _, id in ipairs(ids) do
      local bk = bucketKey(prefix, id)
      if bk then
        local l = byBucket[bk]
        if not l then
          l = {}
          byBucket[bk] = l
          order[#order + 1] = bk
        end
        l[#l + 1] = id
      end
    end
    for _, bk in ipairs(order) do
      local l = byBucket[bk]
      local ok, vals = pcall(redis.call, 'HMGET', bk, unpack(l))
      for j, id in ipairs(l) do prefetched[id] = ok and vals[j] or false end
    end
  end
  local function bucketValue(id)
    local v = prefetched[id]
    if v ~= nil then
      prefetched[id] = nil
      return v
    end
    local bk = bucketKey(prefix, id)
    if not bk then return false end
    local ok, got = pcall(redis.call, 'HGET', bk, id)
    return ok and got or false
  end
  local function dropFromBucket(id)
    local bk = bucketKey(prefix, id)
    local l = drops[bk]
    if not l then
      l = {}
      drops[bk] = l
      dropOrder[#dropOrder + 1] = bk
    end
    l[#l + 1] = id
  end
  local function popUngrouped(n)
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
    if popped[nextPopped] then
      nextPopped = nextPopped + 1
      return popped[nextPopped - 1], nil
    end
    if not listDry then
      if n and n > 1 then
        popped, nextPopped = redis.call('LPOP', wait, n) or {}, 1
        if #popped < n then listDry = true end
        prefetchBuckets(popped)
        if popped[1] then
          nextPopped = 2
          return popped[1], nil
        end
      else
        local id = redis.call('LPOP', wait)
        if id then return id, nil end
      end
      listDry = true
    end
    if zhead then
      local zid, score = zhead[1], zhead[2]
      redis.call('ZREM', pending, zid)
      zhead = nil
      return zid, score
    end
    return nil, nil
  end
  local grouped = nil   -- whether the queue has groups; nil: unread
  local function popNext(n)
    if grouped == nil then grouped = groupsOn(prefix) end
    if grouped then return groupNext(prefix, popUngrouped) end
    return popUngrouped(n)
  end

  local queueTimeout = nil   -- the queue's default timeout_ms, 0 for none; nil: unread
  local function defaultTimeout()
    if queueTimeout == nil then
      local ok, v = pcall(redis.call, 'HGET', prefix .. 'settings', 'timeout_ms')
      queueTimeout = (ok and isTimeout(v)) and tonumber(v) or 0
    end
    return queueTimeout
  end

  -- every job claimed gets the same deadline: one ZADD of all of them after the loop. The
  -- numbers written per job are passed as text made once (intText, includes/events.lua).
  local deadline, nowText, leaseText = intText(now + lease), intText(now), intText(lease)
  local leases = {}
  local claimed, deadCount, pops = 0, 0, 0
  while claimed < want and pops < want + 64 do
    pops = pops + 1
    -- at most the ids this loop still looks at (this one included), and no more than it claims
    local id, score, group = popNext(math.min(want - claimed, want + 65 - pops))
    if not id then break end
    local jk = prefix .. 'job:' .. id
    local ok, h = false, nil
    local reason = nil
    local raw = nil   -- the bucket value of a job that waited in a bucket
    if string.find(id, ':', 1, true) then
      reason = "job id contains ':'"
    else
      -- a job from the LIST may wait in a bucket, with no hash yet: its fields are the ones a
      -- fresh hash holds (payload, created_at), and the write below makes its hash
      local v = (score == nil and not group) and bucketValue(id) or false
      if v then
        dropFromBucket(id)
        local created, payload = bucketSplit(v)
        ok, raw = true, v
        if created then
          h = {payload, false, false, false, false, false, false, created, false, false}
        else
          h = {v}
          reason = 'pending bucket value is not <created_at>:<payload>'
        end
      else
        ok, h = pcall(redis.call, 'HMGET', jk, 'payload', 'attempts', 'spent', 'max_attempts',
          'priority', 'backoff_ms', 'backoff_max_ms', 'created_at', 'state', 'timeout_ms')
        if not ok then reason = 'job key is not a hash' else reason = malformed(h) end
      end
    end
    if raw and not reason then
      -- the bucketed job's hash, written whole: attempt 1 of a job that never had a state
      local wrote = pcall(redis.call, 'HSET', jk, 'payload', h[1], 'created_at', h[8], 'attempts', '1',
        'spent', '1', 'state', 'active', 'claimed_at', nowText)
      if not wrote then ok, raw, reason = false, nil, 'job key is not a hash' end
    end
    if reason then
      if raw then
        pcall(redis.call, 'HSET', jk, 'payload', raw, 'state', 'dead', 'dead_reason', reason, 'finished_at', nowText)
      elseif ok then
        redis.call('HSET', jk, 'state', 'dead', 'dead_reason', reason, 'finished_at', nowText)
      end
      redis.call('ZADD', dead, now, id)
      if not string.find(id, ':', 1, true) then emitEvent(prefix, 'dead', id, 0, 'reason', reason) end
      if group then groupRelease(prefix, group) end
      deadCount = deadCount + 1
    else
      local attempt, spent, attemptText
      if raw then
        attempt, spent, attemptText = 1, 1, '1'   -- its hash is written above
      elseif #(h[2] or '') <= 14 and #(h[3] or '') <= 14 then
        -- checked integers below 10^14: adding 1 in Lua is exact, and one HSET does the work of
        -- HINCRBY attempts, HINCRBY spent and the HSET below (one call per claim instead of
        -- three). string.format('%d'), not tostring: tostring prints 14 significant digits.
        attempt = (tonumber(h[2]) or 0) + 1
        spent = (tonumber(h[3]) or 0) + 1
        attemptText = string.format('%d', attempt)
        if score then
          redis.call('HSET', jk, 'attempts', attemptText, 'spent', string.format('%d', spent),
            'state', 'active', 'score', score, 'claimed_at', nowText)
        else
          redis.call('HSET', jk, 'attempts', attemptText, 'spent', string.format('%d', spent),
            'state', 'active', 'claimed_at', nowText)
        end
      else
        attempt = redis.call('HINCRBY', jk, 'attempts', 1)
        spent = redis.call('HINCRBY', jk, 'spent', 1)
        attemptText = intText(attempt)
        if score then
          redis.call('HSET', jk, 'state', 'active', 'score', score, 'claimed_at', nowText)
        else
          redis.call('HSET', jk, 'state', 'active', 'claimed_at', nowText)
        end
      end
      if leaseSubkeys(prefix) then redis.call('SET', jk .. ':lock', attemptText, 'PX', leaseText) end
      leases[#leases + 1] = deadline
      leases[#leases + 1] = id
      emitEvent(prefix, 'active', id, attemptText)
      out[#out + 1] = id
      out[#out + 1] = h[1]
      out[#out + 1] = attempt
      out[#out + 1] = spent
      out[#out + 1] = tonumber(h[4] or '3')
      local waited = -1
      if attempt == 1 and not h[9] and h[8] and #h[8] <= 15 and isInt(h[8]) then waited = math.max(0, now - tonumber(h[8])) end
      out[#out + 1] = waited
      out[#out + 1] = h[10] and tonumber(h[10]) or defaultTimeout()
      claimed = claimed + 1
    end
  end
  for _, bk in ipairs(dropOrder) do redis.call('HDEL', bk, unpack(drops[bk])) end
  -- unpack puts every value on Lua's stack: at most 512 pairs per ZADD
  for i = 1, #leases, 1024 do
    redis.call('ZADD', active, unpack(leases, i, math.min(i + 1023, #leases)))
  end
  return claimed, deadCount
end
