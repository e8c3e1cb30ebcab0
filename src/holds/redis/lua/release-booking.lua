-- releaseBooking: cancelled, declined or expired; frees its time (and leaves the time
-- index, booking-index.lua). Idempotent.
-- KEYS[1] booking. ARGV: base, bookingId, now.
-- Reply: {"ok", "", booking} | {"no", "not_found"}.
local base, booking_id, now = ARGV[1], ARGV[2], ARGV[3]
local b = hgetall(KEYS[1])
if b == nil then
  return { "no", "not_found" }
end
if b.s == "active" then
  local al, mk = decode_list(b.al), decode_list(b.mk)
  free_allocations(base, b.hd, b.st, b.hx, al)
  bx_unplace(base, booking_id, al)
  for _, k in ipairs(mk) do
    redis.call("ZREM", k, "k:" .. booking_id)
  end
  hset(KEYS[1], b, { s = "released", ed = now })
  bx_locks(booking_id, b)
end
return { "ok", "", flatten(b) }
