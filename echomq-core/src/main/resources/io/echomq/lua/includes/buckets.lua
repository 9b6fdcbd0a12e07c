-- buckets.lua: where a pending job of the LIST layout with the default options keeps its payload
-- until its first claim (docs/protocol.md, "Pending buckets"). Such a job has no hash of its own
-- while it waits: its id is in the wait LIST, and the HASH <prefix>pb:<floor(id / 128)> holds the
-- field <id> with the value "<created_at>:<payload>" (created_at in server ms, decimal). A key per
-- job costs about 100 bytes before its payload; a field of a small hash costs a few, so a
-- pending job costs about 40 bytes where it cost about 160. 128 ids per bucket keep a bucket
-- within the server's compact hash encoding (hash-max-listpack-entries 128) while its values are
-- short. The claim makes the job's hash, as an enqueue of the full form would have written it plus
-- the claim's own fields, and drops the field; so does every other step that takes the job out of
-- pending (remove, cancel, a switch to the ZSET layout).
-- A bucket key that holds another type (foreign data) is read as holding no job.
-- Defines:
--   BUCKET_IDS                 128, the ids per bucket
--   bucketKey(prefix, id)      <prefix>pb:<floor(id / 128)>, or nil for an id that is not a
--                              plain decimal (such a job was never bucketed)
--   bucketSplit(v)             created_at, payload of a bucket value, or nil when it is malformed
--   bucketTake(prefix, id)     created_at, payload of a bucketed job, its field dropped; nil when
--                              the id has no field (or the field is malformed: then it is dropped
--                              too and the raw value is returned as a third value)
local BUCKET_IDS = 128
local function bucketKey(prefix, id)
  if #id > 15 or not string.match(id, '^[1-9]%d*$') then return nil end
  return prefix .. 'pb:' .. string.format('%d', math.floor(tonumber(id) / BUCKET_IDS))
end
local function bucketSplit(v)
  local c = string.find(v, ':', 1, true)
  if not c or c == 1 or c > 16 or not string.match(string.sub(v, 1, c - 1), '^%d+$') then return nil end
  return string.sub(v, 1, c - 1), string.sub(v, c + 1)
end
local function bucketTake(prefix, id)
  local bk = bucketKey(prefix, id)
  if not bk then return nil end
  local ok, v = pcall(redis.call, 'HGET', bk, id)
  if not ok or not v then return nil end
  redis.call('HDEL', bk, id)
  local created, payload = bucketSplit(v)
  if not created then return nil, nil, v end
  return created, payload
end
