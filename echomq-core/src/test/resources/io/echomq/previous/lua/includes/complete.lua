-- complete.lua: the fenced complete of k jobs (a group commit), in two phases so that a script
-- makes every read before its first write. Needs server-time's now, type-guard and fence-check.
-- Each job is answered with its own code, in the order given:
--    1  COMPLETED
--   -5  the job key holds another type than a hash: checked first; nothing of that job changes
--   then the fence check's codes, in its order: -4 MISSING, -1 SUPERSEDED, -3 NOT_ACTIVE, -2 EXPIRED
-- The same id twice in one call is completed once; a later pair is answered as a later call
-- would be: -4 with no retention, else -1 when its attempt differs, else -3.
-- Defines:
--   readCompletes(active, prefix, retain, args, first, k, now) -> plan, or nil and the error reply.
--     args[first], args[first + 1], ...: k pairs (job id, the attempt it was granted). One
--     ZMSCORE of active (proving its type) and one HMGET per distinct job.
--   writeCompletes(plan, active, stats, prefix, retain, now) -> nil, or the error reply (nothing
--     changed). HINCRBY stats completed, ZREM active, DEL of the lock subkeys (and of the hashes
--     when retain is 0), else state done, finished_at and PEXPIRE retain per job.
--   plan.codes: the k codes
local function readCompletes(active, prefix, retain, args, first, k, now)
  local plan = {codes = {}, done = {}, dels = {}}
  if k == 0 then return plan end
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
      local okh, h = pcall(redis.call, 'HMGET', jk, 'state', 'attempts')
      if not okh then code = -5 else code = fenceCheck(h, att, active, id, now, deadlines[i]) end
      if code == 1 then
        doneAt[id] = att
        plan.done[#plan.done + 1] = id
        plan.dels[#plan.dels + 1] = jk .. ':lock'
        if retain == 0 then plan.dels[#plan.dels + 1] = jk end
      end
    end
    plan.codes[i] = code
  end
  return plan
end
local function writeCompletes(plan, active, stats, prefix, retain, now)
  if #plan.done == 0 then return nil end
  -- the counter first, as the one write that can still fail, so that a refusal changes nothing
  local ok, err = pcall(redis.call, 'HINCRBY', stats, 'completed', #plan.done)
  if not ok then return refuse(stats, 'hash', err) end
  redis.call('ZREM', active, unpack(plan.done))
  redis.call('DEL', unpack(plan.dels))
  if retain > 0 then
    for _, id in ipairs(plan.done) do
      local jk = prefix .. 'job:' .. id
      redis.call('HSET', jk, 'state', 'done', 'finished_at', now)
      redis.call('PEXPIRE', jk, retain)
    end
  end
  return nil
end
