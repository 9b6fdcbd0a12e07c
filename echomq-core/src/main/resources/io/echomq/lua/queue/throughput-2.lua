-- throughput-2.lua: keeps a queue's throughput history: once per minute of the server's clock,
-- the values of its counters completed and failed, so that any tool, started at any time, can
-- show completed and failed per minute over the past (the difference of two minutes' samples).
-- The holder of the queue's maintenance lock calls it; a call in a minute already sampled only
-- reads, so any number of callers keep one sample per minute.
--
-- KEYS[1] stats     emq:{q}:stats       HASH of counters (read)
-- KEYS[2] history   emq:{q}:throughput  ZSET member "<minute>:<completed>:<failed>", score = minute
-- ARGV[1] keep      ms of history kept: samples at or before (this minute - keep) are dropped
--
-- minute is the server epoch ms of the minute's start (a multiple of 60000). The sample is the
-- counters as this call reads them, the first call in the minute. Each write also drops the old
-- samples, so the ZSET holds at most keep / 60000 members, and gives it a PX of keep, so a
-- queue no worker maintains any more loses its history after keep.
--
-- Returns {written, next_ms}: written is 1 when this call stored the minute's sample, 0 when
-- the minute had one already; next_ms is how many ms remain until the next minute starts.
--@include server-time
local stats, history = KEYS[1], KEYS[2]
local keep = tonumber(ARGV[1])
local now = serverNow()
local minute = now - (now % 60000)
local next_ms = minute + 60000 - now
local m = string.format('%d', minute)

if redis.call('ZCOUNT', history, m, m) > 0 then
  return {0, next_ms}
end
local c = redis.call('HMGET', stats, 'completed', 'failed')
local completed = tonumber(c[1] or '0') or 0
local failed = tonumber(c[2] or '0') or 0
redis.call('ZADD', history, m, m .. ':' .. string.format('%d', completed) .. ':' .. string.format('%d', failed))
redis.call('ZREMRANGEBYSCORE', history, '-inf', string.format('%d', minute - keep))
redis.call('PEXPIRE', history, string.format('%d', keep))
return {1, next_ms}
