-- delete-9.lua: the atomic first step of deleting a queue. Refuses while any job is active
-- (a worker holds it), unless forced; otherwise drops, in this one step, every key that says where
-- a job stands or that the queue keeps about itself. From then on nothing of the queue can be
-- claimed, promoted, reaped or listed, and a held job's fenced calls are refused (its lease is no
-- longer in active: EXPIRED, or MISSING once its hash is gone). The caller then deletes the rest
-- (job hashes, lock subkeys, idempotency keys) by a SCAN of the prefix, in bounded batches.
-- UNLINK frees big sets off the server's main thread. The group bookkeeping (includes/groups.lua:
-- the rotation groups and the HASHes and SET group:active, group:waiting, group:paused, named by
-- the prefix that active's name ends in) goes in the same step; the groups' own LISTs g:<group>
-- go with the caller's SCAN.
--
-- KEYS[1] active    emq:{q}:active   ZSET, score = lease deadline in server ms
-- KEYS[2] pending   emq:{q}:pending  ZSET of priority != 0
-- KEYS[3] wait      emq:{q}:wait     LIST of priority-0 pending ids
-- KEYS[4] delayed   emq:{q}:due      ZSET
-- KEYS[5] dead      emq:{q}:dead     ZSET
-- KEYS[6] done      emq:{q}:done     ZSET of the completed jobs kept
-- KEYS[7] seq       emq:{q}:seq      STRING integer
-- KEYS[8] stats     emq:{q}:stats    HASH of counters
-- KEYS[9] retention emq:{q}:retention HASH of the retention settings
-- ARGV[1] force     1 to delete even while jobs are active
--
-- Returns a three-element array {code, active, unlinked}:
--    1  DELETED   the keys above are gone: active = how many jobs were active, unlinked = how
--                 many of the nine keys existed
--    0  ACTIVE    jobs are active and force was not given; nothing was changed (unlinked 0)
-- Fails with a WRONGTYPE error, having changed nothing, when active holds another type
-- (includes/wrong-type.lua).
--@include wrong-type
local ok, active = pcall(redis.call, 'ZCARD', KEYS[1])
if not ok then return refuse(KEYS[1], 'zset', active) end
if active > 0 and ARGV[1] ~= '1' then return {0, active, 0} end
local prefix = string.sub(KEYS[1], 1, #KEYS[1] - #'active')
redis.call('UNLINK', prefix .. 'groups', prefix .. 'group:active', prefix .. 'group:waiting', prefix .. 'group:paused')
return {1, active, redis.call('UNLINK', unpack(KEYS))}
