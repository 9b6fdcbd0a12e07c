-- publish.lua: the notifications (docs/protocol.md, "Notifications (publish mode)"). Every script
-- that notifies takes a publish mode argument and publishes through here, so that all of them
-- read the mode alike.
-- Defines publishOn(mode, channel, message): SPUBLISH channel message when mode is 'SPUBLISH'
--   (sharded pub/sub, a Redis 7+ cluster), else PUBLISH channel message (mode anything else, or nil)
local function publishOn(mode, channel, message)
  redis.call(mode == 'SPUBLISH' and 'SPUBLISH' or 'PUBLISH', channel, message)
end
