-- countForMandate (§3.3, §7.1): holds held or confirming and bookings active that count
-- against (root iss, jti), optionally without one hold. Read-only.
-- KEYS[1] mand key. ARGV: excludeHoldId or "". Reply: integer.
local n = redis.call("ZCARD", KEYS[1])
if ARGV[1] ~= "" and redis.call("ZSCORE", KEYS[1], "h:" .. ARGV[1]) then
  n = n - 1
end
return n
