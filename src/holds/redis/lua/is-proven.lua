-- isPrincipalProven (§7.2): a kept appointment is a booking not released, not marked a
-- no-show, whose end has passed. Read-only.
-- KEYS[1] pbk:<principal>. ARGV: base, now. Reply: 1 | 0.
local base, now = ARGV[1], ARGV[2]
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now)
for _, booking_id in ipairs(ids) do
  local state = redis.call("HMGET", base .. "bk:" .. booking_id, "s", "att")
  if state[1] == "active" and state[2] ~= "no_show" then
    return 1
  end
end
return 0
