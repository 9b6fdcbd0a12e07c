-- fence-check.lua: the check every fenced write makes before it changes a job (complete, fail,
-- extend, progress, return). The write of attempt A is allowed only while A is the job's current
-- attempt, the job is active and its lease still runs. The checks, in this order, each answered
-- with its own code:
--   -4 MISSING     the job hash has neither state nor attempts
--   -1 SUPERSEDED  attempts differs from A (compared as text): the job was claimed again
--   -6 CANCELLED   state is 'cancelled': an operator cancelled attempt A (cancel-7.lua ended it)
--   -3 NOT_ACTIVE  state is not 'active'
--   -2 EXPIRED     the job has no score in active, or its score (the deadline) is at or before
--                  now: the lease ran out, even if no reaper has run
-- Defines fenceCheck(h, attempt, active, id, now, deadline): 1 when the write is allowed, else
-- the code above.
--   h         {state, attempts, ...}: the reply of HMGET <job key> state attempts ...
--   deadline  the job's score in active when the caller has read it already (false: no score);
--             nil to have fenceCheck read it with ZSCORE, and only once the first three passed
local function fenceCheck(h, attempt, active, id, now, deadline)
  if not h[1] and not h[2] then return -4 end
  if h[2] ~= attempt then return -1 end
  if h[1] == 'cancelled' then return -6 end
  if h[1] ~= 'active' then return -3 end
  if deadline == nil then deadline = redis.call('ZSCORE', active, id) end
  if not deadline or tonumber(deadline) <= now then return -2 end
  return 1
end
