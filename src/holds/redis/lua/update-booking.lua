-- updateBookingPayload / markAttendance: one field of an existing booking. Attendance
-- is recorded only on an active booking (a released one was never attended). A payload
-- update may be a compare-and-set: with ARGV[3] it applies only when the stored payload
-- is exactly that, so two concurrent updates of one booking never lose one.
-- KEYS[1] booking. ARGV: field ("pl" or "att"), value, [expected payload].
-- Reply: {"ok", "", booking} | {"no", "not_found" | "released" | "stale"}.
local b = hgetall(KEYS[1])
if b == nil then
  return { "no", "not_found" }
end
if ARGV[1] == "att" and b.s ~= "active" then
  return { "no", "released" }
end
if ARGV[3] ~= nil and b.pl ~= ARGV[3] then
  return { "no", "stale" }
end
hset(KEYS[1], b, { [ARGV[1]] = ARGV[2] })
return { "ok", "", flatten(b) }
