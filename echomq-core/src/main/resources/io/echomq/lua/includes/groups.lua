-- groups.lua: fair groups (docs/protocol.md, "Flow control", "Groups"). A job may carry a group
-- key (its hash field group). A ready grouped job waits in its group's own LIST <prefix>g:<group>,
-- oldest first, never in wait or pending; the claim takes groups in turn from the rotation, so a
-- group with a million jobs waits its turn as a group with one does. Includes type-guard.
-- Keys (all under the queue's prefix, so in its hash slot):
--   <prefix>g:<group>     LIST of the group's ready ids, oldest first (RPUSH; LPUSH for a job
--                         given back by return or reap, which was claimed before the others)
--   <prefix>groups        ZSET, the rotation: the groups that may be served now, served lowest
--                         score first; a served group goes to the back (the highest score + 1).
--                         The member '' (never a valid group) stands for the queue's ungrouped
--                         jobs while groups exist, so they take one turn per round as a group.
--   <prefix>group:active  HASH group -> its jobs active now (field deleted at 0)
--   <prefix>group:waiting HASH group -> its ready jobs (the LLEN of its LIST; field deleted at 0)
--   <prefix>group:paused  SET of paused groups: never in the rotation
--   <prefix>stats         HASH; field grouped = ready grouped jobs of every group (stats-6.lua
--                         counts them as pending)
--   <prefix>flow          HASH; field group_max = k, the most active jobs per group (default 1;
--                         a value that is not an integer >= 1 counts as 1)
-- A group is in the rotation only when it is not paused and has a free place; a group that
-- turns out to have no ready job when its turn comes is dropped then (a cancel or remove can
-- empty a LIST without touching the rotation). Every step below is O(log G) in the rotation's
-- size G, or O(1).
-- Defines:
--   groupValid(g)            true when g may be a group key: 1..128 characters of
--                            A-Z a-z 0-9 . _ - @ + = / #  (no ':', braces, space, glob or control
--                            character, so a key built from it names only that group's LIST)
--   groupMax(prefix)         k (one HGET of <prefix>flow per call, then cached)
--   groupPush(prefix, g, id, front)  queues id in g's LIST (at the front when front), counts it,
--                            and lets g join the rotation when it may
--   groupRelease(prefix, g)  frees one of g's active places and lets g join the rotation when
--                            it may: the settle of a grouped job (complete, fail, return, reap,
--                            cancel, remove). Counts each group it brings back in groupsFreed.
--   groupsFreed              how many groups this call's releases brought back to the rotation:
--                            the settle then publishes on wake, so that workers that found the
--                            queue dry claim the freed place now instead of at their idle poll
--   groupUnlist(prefix, g, id) -> 1 when id left g's LIST (LREM, O(n) in its length), else 0
--   groupGuard(prefix, g)    nil when every key a step on g may write has its type (or is
--                            absent): g's LIST, the rotation, the counts, the paused SET and
--                            stats; else the WRONGTYPE reply of type-guard. A script calls it
--                            for each group it will touch before its first write, so that a key
--                            of another type refuses the call with nothing changed.
--   groupsOn(prefix)         true when the rotation exists (one EXISTS per call, then kept up to
--                            date by this part's own writes): the claim's only cost for a queue
--                            without groups
--   groupNext(prefix, popUngrouped) -> id, score, group of the next job to claim, or nil when
--                            nothing may be claimed. popUngrouped() -> id, score pops an
--                            ungrouped job. A grouped id is counted active in its group here.
--@include type-guard
local GROUP_KEY = '^[%w%._@%+=/#%-]+$'
local function groupValid(g)
  return type(g) == 'string' and #g >= 1 and #g <= 128 and string.match(g, GROUP_KEY) ~= nil
end

local groupMaxCached = nil
local function groupMax(prefix)
  if groupMaxCached == nil then
    local ok, v = pcall(redis.call, 'HGET', prefix .. 'flow', 'group_max')
    local k = ok and v and string.match(v, '^%d+$') and tonumber(v) or 1
    if k < 1 then k = 1 end
    groupMaxCached = k
  end
  return groupMaxCached
end

-- whether the rotation exists, as this call last read or made it; nil: not read yet. Only
-- rotateToBack creates the rotation, and only groupNext empties it, after groupsOn was read
local rotationOn = nil

-- moves member to the back of the rotation (or adds it there)
local function rotateToBack(rot, member)
  rotationOn = true
  local last = redis.call('ZRANGE', rot, -1, -1, 'WITHSCORES')
  local s = 0
  if last[2] then s = tonumber(last[2]) + 1 end
  redis.call('ZADD', rot, s, member)
end

-- g joins the back of the rotation when it has a ready job, a free place and is not paused;
-- answers whether it joined
local function groupMayJoin(prefix, g)
  local rot = prefix .. 'groups'
  if redis.call('ZSCORE', rot, g) then return false end
  if redis.call('LLEN', prefix .. 'g:' .. g) == 0 then return false end
  if redis.call('SISMEMBER', prefix .. 'group:paused', g) == 1 then return false end
  local act = tonumber(redis.call('HGET', prefix .. 'group:active', g) or '0') or 0
  if act >= groupMax(prefix) then return false end
  rotateToBack(rot, g)
  return true
end

local function countWaiting(prefix, g, n)
  local left = redis.call('HINCRBY', prefix .. 'group:waiting', g, n)
  if left <= 0 then redis.call('HDEL', prefix .. 'group:waiting', g) end
  redis.call('HINCRBY', prefix .. 'stats', 'grouped', n)
end

local function groupPush(prefix, g, id, front)
  if front then
    redis.call('LPUSH', prefix .. 'g:' .. g, id)
  else
    redis.call('RPUSH', prefix .. 'g:' .. g, id)
  end
  countWaiting(prefix, g, 1)
  groupMayJoin(prefix, g)
end

local groupsFreed = 0
local function groupRelease(prefix, g)
  local left = redis.call('HINCRBY', prefix .. 'group:active', g, -1)
  if left <= 0 then redis.call('HDEL', prefix .. 'group:active', g) end
  if groupMayJoin(prefix, g) then groupsFreed = groupsFreed + 1 end
end

local function groupUnlist(prefix, g, id)
  local n = redis.call('LREM', prefix .. 'g:' .. g, 0, id)
  if n > 0 then countWaiting(prefix, g, -n) end
  return n
end

local function groupGuard(prefix, g)
  return guard(prefix .. 'g:' .. g, 'list') or guard(prefix .. 'groups', 'zset')
    or guard(prefix .. 'group:active', 'hash') or guard(prefix .. 'group:waiting', 'hash')
    or guard(prefix .. 'group:paused', 'set') or guard(prefix .. 'stats', 'hash')
end

local function groupsOn(prefix)
  if rotationOn == nil then rotationOn = redis.call('EXISTS', prefix .. 'groups') == 1 end
  return rotationOn
end

local ungroupedJoined = false
local function groupNext(prefix, popUngrouped)
  local rot = prefix .. 'groups'
  -- the ungrouped jobs take a turn as one more member, joining when they have work
  if not ungroupedJoined then
    ungroupedJoined = true
    if not redis.call('ZSCORE', rot, '')
        and (redis.call('LLEN', prefix .. 'wait') > 0 or redis.call('ZCARD', prefix .. 'pending') > 0) then
      rotateToBack(rot, '')
    end
  end
  -- each pass serves the head or drops it; at most 64 drops per job claimed
  for _ = 1, 65 do
    local head = redis.call('ZRANGE', rot, 0, 0)
    local g = head[1]
    if not g then return popUngrouped() end
    if g == '' then
      local id, score = popUngrouped()
      if id then
        rotateToBack(rot, '')
        return id, score, nil
      end
      redis.call('ZREM', rot, '')
    else
      local act = tonumber(redis.call('HGET', prefix .. 'group:active', g) or '0') or 0
      local id = nil
      if act < groupMax(prefix) then
        -- a LIST of another type (foreign data) holds no job: the group is dropped below
        local ok, popped = pcall(redis.call, 'LPOP', prefix .. 'g:' .. g)
        if ok then id = popped end
      end
      if id then
        countWaiting(prefix, g, -1)
        redis.call('HINCRBY', prefix .. 'group:active', g, 1)
        if act + 1 < groupMax(prefix) and redis.call('LLEN', prefix .. 'g:' .. g) > 0 then
          rotateToBack(rot, g)
        else
          redis.call('ZREM', rot, g)
        end
        return id, nil, g
      end
      redis.call('ZREM', rot, g)
    end
  end
  return nil, nil, nil
end
