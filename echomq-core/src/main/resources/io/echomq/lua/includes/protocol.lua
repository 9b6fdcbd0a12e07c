-- protocol.lua: the queue's protocol mark (docs/protocol.md, "Versions"). The STRING
-- <prefix>delayed holds the protocol the queue's data needs: "2" here. Protocol 1 kept its delayed
-- jobs in a ZSET of that name and every one of its scripts that touches them (claim, promote, fail
-- with a retry, enqueue, remove, stats) checks the key's type before any write, so once the key is
-- the mark those scripts answer WRONGTYPE and change nothing: a client of protocol 1 cannot claim
-- on a queue that protocol 2 has touched. This protocol keeps its delayed jobs in <prefix>due.
--   absent      not marked yet: when the queue has data (its seq exists), the mark is written
--               (SET, once per queue); on a queue with no data nothing is written, so that an idle
--               claim of a queue nobody uses leaves no key, and markQueue() writes it where the
--               script writes its first job (the enqueues, after their checks)
--   a ZSET      protocol 1's delayed jobs: moved to <prefix>due in this step (RENAME; merged,
--               keeping the earlier due time, if <prefix>due exists), then the mark is written.
--               The move changes no job, and it stays even when the calling script then refuses
--   "1" or "2"  passes: data this script reads
--   "<N>", N>2  a later protocol's queue: refused before any write
-- Anything else is refused as WRONGTYPE. One GET per call once the queue is marked.
-- Defines:
--   markQueue(prefix)        writes the mark if protocolRefusal found none
--   protocolRefusal(prefix, defer) -> nil, or the error reply; with defer, an absent mark is left
--                            to markQueue()
--     EMQPROTOCOL <prefix>delayed holds protocol <value>; this client speaks protocol 2; nothing was changed
local protocolUnmarked = false
local function markQueue(prefix)
  if protocolUnmarked then
    redis.call('SET', prefix .. 'delayed', '2')
    protocolUnmarked = false
  end
end
local function protocolRefusal(prefix, defer)
  local mark = prefix .. 'delayed'
  local ok, v = pcall(redis.call, 'GET', mark)
  if not ok then
    local kind = redis.call('TYPE', mark)['ok']
    if kind ~= 'zset' then
      return redis.error_reply('WRONGTYPE ' .. mark .. ' holds a ' .. kind .. ', not the protocol mark; nothing was changed')
    end
    local due = prefix .. 'due'
    local dueKind = redis.call('TYPE', due)['ok']
    if dueKind == 'none' then
      redis.call('RENAME', mark, due)
    elseif dueKind == 'zset' then
      redis.call('ZUNIONSTORE', due, 2, due, mark, 'AGGREGATE', 'MIN')
      redis.call('DEL', mark)
    else
      return redis.error_reply('WRONGTYPE ' .. due .. ' holds a ' .. dueKind .. ', not a zset; nothing was changed')
    end
    redis.call('SET', mark, '2')   -- at once, also for an enqueue: the moved jobs are protocol 2's now
    return nil
  end
  if not v then
    protocolUnmarked = true
    if not defer and redis.call('EXISTS', prefix .. 'seq') == 1 then markQueue(prefix) end
    return nil
  end
  if v == '1' or v == '2' then return nil end
  if string.match(v, '^%d+$') then
    return redis.error_reply('EMQPROTOCOL ' .. mark .. ' holds protocol ' .. v
      .. '; this client speaks protocol 2; nothing was changed')
  end
  return redis.error_reply('WRONGTYPE ' .. mark .. ' holds ' .. v .. ', not a protocol mark; nothing was changed')
end
