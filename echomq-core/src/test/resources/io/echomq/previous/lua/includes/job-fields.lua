-- job-fields.lua: the rules for a job hash's numeric fields and for the pending score.
-- Defines:
--   SHIFT            2^42: one priority band of the pending score, seq - priority * SHIFT
--   isInt(v)         v is absent (false or nil) or a decimal integer, optionally signed
--   isCounter(v)     v is absent, or an integer HINCRBY can add 1 to: Redis's own integer syntax
--                    (no leading zero, no -0), at most 16 characters. Anything else would fail
--                    HINCRBY after the pop took the job, losing it from every set.
local SHIFT = 4398046511104
local function isInt(v)
  return v == false or v == nil or string.match(v, '^%-?%d+$') ~= nil
end
local function isCounter(v)
  return v == false or v == nil or ((v == '0' or string.match(v, '^%-?[1-9]%d*$') ~= nil) and #v <= 16)
end
