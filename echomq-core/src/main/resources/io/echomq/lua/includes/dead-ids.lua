-- dead-ids.lua: which dead jobs a redrive or a purge acts on: the ids the call names, or else the
-- oldest deaths.
-- Defines:
--   deadIds(dead, limit, from) -> ARGV[from..] when the call names ids there, else the first limit
--     ids of dead (ZRANGE dead 0 limit-1), oldest death first
local function deadIds(dead, limit, from)
  if #ARGV < from then
    return redis.call('ZRANGE', dead, 0, limit - 1)
  end
  local ids = {}
  for i = from, #ARGV do ids[#ids + 1] = ARGV[i] end
  return ids
end
