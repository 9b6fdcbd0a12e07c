-- layout-4.lua: sets a queue's pending layout (includes/layout.lua), for every client at once.
-- 'zset' keeps every pending job, priority 0 included, in the pending ZSET, where a consumer that
-- only ZPOPMINs it sees them all in claim order; 'list' (the default) keeps priority 0 in the wait
-- LIST. Switching to zset moves the ids waiting in the LIST into the ZSET in the same atomic step,
-- in their LIST order, each at a fresh seq (INCRBY seq n): band 0, behind the priority-0 entries
-- already in the ZSET, which a claim of the LIST layout also takes before the LIST. So the claim
-- order is the same before and after. The move is O(n) in the LIST's length (an LRANGE and a
-- ZADD per 1000 ids); a moved job that waited in a pending bucket (includes/buckets.lua: the
-- LIST layout's default jobs have no hash until claimed) gets its hash {payload, created_at} and
-- leaves its bucket, since the ZSET layout keeps one hash per job. A zset call on a queue already in the ZSET layout still moves what an
-- older client pushed to the LIST. Switching to list moves nothing: the ZSET's priority-0 entries
-- are claimed before the LIST, which is their order (they are older than anything pushed later).
--
-- Fails with a WRONGTYPE error, having changed nothing, when one of its KEYS holds another type,
-- and with an error naming ARGV[1] when it is neither zset nor list.
--
-- KEYS[1] layout    emq:{q}:layout   STRING 'zset' in the ZSET layout; absent in the LIST layout
-- KEYS[2] pending   emq:{q}:pending  ZSET, score = seq - priority * 2^42
-- KEYS[3] wait      emq:{q}:wait     LIST of priority-0 pending ids (the LIST layout), oldest first
-- KEYS[4] seq       emq:{q}:seq      STRING integer (the moved ids' fresh places)
-- ARGV[1] layout    zset or list
--
-- Returns a two-element array {changed, moved}: changed is 1 when the call changed the layout, 0
-- when the queue already had it; moved is how many ids went from the wait LIST to the pending ZSET.
local layoutKey, pending, wait, seqKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local want = ARGV[1]
-- the queue's prefix, emq:{q}:, is the layout key's name less 'layout'
local prefix = string.sub(layoutKey, 1, #layoutKey - #'layout')

--@include type-guard
--@include layout
--@include buckets
if want ~= 'zset' and want ~= 'list' then
  return redis.error_reply('ERR layout must be zset or list, was ' .. tostring(want))
end
local current, err = zsetLayout(layoutKey)
if current == nil then return err end

if want == 'list' then
  redis.call('DEL', layoutKey)
  if current then return {1, 0} end
  return {0, 0}
end

local refused = guard(pending, 'zset') or guard(wait, 'list') or guard(seqKey, 'string')
if refused then return refused end
local changed = 0
if not current then
  redis.call('SET', layoutKey, 'zset')
  changed = 1
end
local n = redis.call('LLEN', wait)
if n > 0 then
  local first = redis.call('INCRBY', seqKey, n) - n + 1
  local done = 0
  while done < n do
    local ids = redis.call('LRANGE', wait, done, done + 999)
    if #ids == 0 then break end
    local args = {}
    for j, id in ipairs(ids) do
      args[#args + 1] = string.format('%d', first + done + j - 1)
      args[#args + 1] = id
      -- the ZSET layout keeps one hash per job: a job that waited in a bucket gets its hash now
      local bk = bucketKey(prefix, id)
      if bk then
        local okv, v = pcall(redis.call, 'HGET', bk, id)
        if okv and v then
          local created, payload = bucketSplit(v)
          local wrote
          if created then
            wrote = pcall(redis.call, 'HSET', prefix .. 'job:' .. id, 'payload', payload, 'created_at', created)
          else
            wrote = pcall(redis.call, 'HSET', prefix .. 'job:' .. id, 'payload', v)
          end
          if wrote then redis.call('HDEL', bk, id) end
        end
      end
    end
    redis.call('ZADD', pending, unpack(args))
    done = done + #ids
  end
  redis.call('DEL', wait)
end
return {changed, n}
