-- complete.lua: the fenced complete of k jobs (a group commit), in two phases so that a script
-- makes every read before its first write. Takes the caller's now (includes/server-time.lua).
-- Includes type-guard, wrong-type, fence-check, events (whose one read of <prefix>retention it
-- shares; each completed job writes its event) and groups (a completed job of a group frees the
-- group's place: groupRelease).
-- Each job is answered with its own code, in the order given:
--    1  COMPLETED
--   -5  the job key holds another type than a hash: checked first; nothing of that job changes
--   then the fence check's codes, in its order: -4 MISSING, -1 SUPERSEDED, -6 CANCELLED,
--   -3 NOT_ACTIVE, -2 EXPIRED
-- The same id twice in one call is completed once; a later pair is answered as a later call
-- would be: -4 with no retention, else -1 when its attempt differs, else -3.
-- Defines:
--   readCompletes(active, prefix, retain, args, first, k, now) -> plan, or nil and the error reply.
--     args[first], args[first + 1], ...: k pairs (job id, the attempt it was granted). One
--     ZMSCORE of active (proving its type), one HMGET per distinct job (state, attempts,
--     result, group), and one GET of <prefix>layout when a job passes its fence check (none when
--     the caller's claim has read it already: leaseSubkeys answers from its first read).
--   writeCompletes(plan, active, stats, prefix, retain, now) -> nil, or the error reply (nothing
--     changed). HINCRBY stats completed, ZREM active, DEL of the lock subkeys in the ZSET layout
--     and of the hashes when retain is 0 (no DEL at all in the LIST layout with a retain > 0), a 'completed' event per job (includes/events.lua) carrying the job's
--     result field when it has one (result-1.lua), else state done, finished_at and PEXPIRE retain per job; and, when the
--     queue keeps a done index, ZADD of each id to <prefix>done (score = finished_at), then the
--     index's trim.
--   plan.codes: the k codes
-- The done index is kept only by a queue with stored done settings (done_max or done_age_ms in
-- <prefix>retention): a ZADD per job costs about a tenth of a worker's throughput, so a queue
-- that never asked for caps or a listing of its done jobs does not pay it.
-- Retention: the queue's settings in the HASH <prefix>retention win over the caller's retain:
-- done_age_ms is the retain used, done_max the most jobs the done index keeps (default 100000000: no
-- count cap, the age bounds it; 0 keeps none, as retain 0 does). After each call with n completes kept, the index drops at most
-- n + 64 of its oldest entries over done_max and n + 64 older than the retain (their hashes too),
-- so each call's work stays bounded and a queue whose caps were lowered catches up over calls.
--@include type-guard
--@include wrong-type
--@include fence-check
--@include events
--@include groups
--@include layout
local DONE_MAX = 100000000
local function doneSettings(plan, prefix, retain)
  local rs, err = queueSettings(prefix)
  if not rs then return refuse(prefix .. 'retention', 'hash', err) end
  plan.index = rs[1] ~= false or rs[2] ~= false
  plan.doneMax = tonumber(rs[1]) or DONE_MAX
  plan.retain = tonumber(rs[2]) or retain
  if plan.doneMax <= 0 then plan.retain = 0 end
  return nil
end
local function dropDone(done, prefix, ids)
  if #ids == 0 then return end
  redis.call('ZREM', done, unpack(ids))
  local keys = {}
  for _, id in ipairs(ids) do
    if not string.find(id, ':', 1, true) then keys[#keys + 1] = prefix .. 'job:' .. id end
  end
  if #keys > 0 then redis.call('DEL', unpack(keys)) end
end
local function trimDone(plan, done, prefix, now)
  local budget = #plan.done + 64
  local over = redis.call('ZCARD', done) - plan.doneMax
  if over > 0 then dropDone(done, prefix, redis.call('ZRANGE', done, 0, math.min(over, budget) - 1)) end
  dropDone(done, prefix, redis.call('ZRANGEBYSCORE', done, '-inf', now - plan.retain, 'LIMIT', 0, budget))
end
local function readCompletes(active, prefix, retain, args, first, k, now)
  local plan = {codes = {}, done = {}, keys = {}, attempts = {}, results = {}, groups = {}, dels = {}, retain = retain, doneMax = DONE_MAX}
  if k == 0 then return plan end
  local bad = doneSettings(plan, prefix, retain)
  if bad then return nil, bad end
  retain = plan.retain
  local ids = {}
  for i = 1, k do ids[i] = args[first + 2 * i - 2] end
  local ok, deadlines = pcall(redis.call, 'ZMSCORE', active, unpack(ids))
  if not ok then return nil, refuse(active, 'zset', deadlines) end
  proven(active, 'zset')
  local doneAt = {}
  for i = 1, k do
    local id, att = ids[i], args[first + 2 * i - 1]
    local code
    if doneAt[id] then
      if retain == 0 then code = -4 elseif doneAt[id] ~= att then code = -1 else code = -3 end
    else
      local jk = prefix .. 'job:' .. id
      local okh, h = pcall(redis.call, 'HMGET', jk, 'state', 'attempts', 'result', 'group')
      if not okh then code = -5 else code = fenceCheck(h, att, active, id, now, deadlines[i]) end
      if code == 1 then
        doneAt[id] = att
        plan.done[#plan.done + 1] = id
        plan.keys[#plan.done] = jk
        plan.attempts[#plan.done] = att
        plan.results[#plan.done] = h[3]
        plan.groups[#plan.done] = h[4]
        -- a subkey that a claim under the other layout wrote (or an older client) is left to
        -- expire with its lease (its PX): the LIST layout pays no DEL for a key it never writes
        if leaseSubkeys(prefix) then plan.dels[#plan.dels + 1] = jk .. ':lock' end
        if retain == 0 then plan.dels[#plan.dels + 1] = jk end
      end
    end
    plan.codes[i] = code
  end
  return plan
end
local function writeCompletes(plan, active, stats, prefix, retain, now)
  if #plan.done == 0 then return nil end
  retain = plan.retain
  local done = prefix .. 'done'
  local index = retain > 0 and plan.index
  if index then
    local bad = guard(done, 'zset')
    if bad then return bad end
  end
  -- the keys of each group a completed job frees (grouped jobs only)
  for i = 1, #plan.done do
    if plan.groups[i] then
      local bad = groupGuard(prefix, plan.groups[i])
      if bad then return bad end
    end
  end
  -- the counter first, as the one write that can still fail, so that a refusal changes nothing
  local ok, err = pcall(redis.call, 'HINCRBY', stats, 'completed', #plan.done)
  if not ok then return refuse(stats, 'hash', err) end
  redis.call('ZREM', active, unpack(plan.done))
  if #plan.dels > 0 then redis.call('DEL', unpack(plan.dels)) end
  for i = 1, #plan.done do
    if plan.groups[i] then groupRelease(prefix, plan.groups[i]) end
  end
  for i, id in ipairs(plan.done) do
    if plan.results[i] then
      emitEvent(prefix, 'completed', id, plan.attempts[i], 'result', plan.results[i])
    else
      emitEvent(prefix, 'completed', id, plan.attempts[i])
    end
  end
  if retain > 0 then
    -- the numbers written per job, as text made once (intText, includes/events.lua)
    local nowText, retainText = intText(now), intText(retain)
    for i, id in ipairs(plan.done) do
      local jk = plan.keys[i]
      redis.call('HSET', jk, 'state', 'done', 'finished_at', nowText)
      redis.call('PEXPIRE', jk, retainText)
      if index then redis.call('ZADD', done, nowText, id) end
    end
    if index then trimDone(plan, done, prefix, now) end
  end
  return nil
end
