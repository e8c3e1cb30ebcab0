-- moveBookingToHold (§5.7 acceptance): the booking takes the change hold's time and its
-- old time is freed, in one step, so a failure leaves the booking as it was. The time index
-- (booking-index.lua) moves with it.
-- KEYS[1] booking, KEYS[2] hold. ARGV: base, bookingId, holdId, now, retentionMs.
-- Reply: {"ok", "", booking} | {"no", reason, hold?}.
local base, booking_id, id, now, retention = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local b = hgetall(KEYS[1])
if b == nil then
  return { "no", "not_found" }
end
if b.s ~= "active" then
  return { "no", "released" }
end
local h, refused = hold_for(KEYS[2], base, id, tonumber(now), "held", retention)
if h == nil then
  return refused
end

local old_al, ik, mk = decode_list(b.al), decode_list(h.ik), decode_list(h.mk)
local principal = cjson.decode(b.own).principal
local new_al = decode_list(h.al)
free_allocations(base, b.hd, b.st, b.hx, old_al)
bx_unplace(base, booking_id, old_al)
drop_indexes(base, id, ik, mk)
hset(KEYS[1], b, { hd = id, hx = h.ex, st = h.st, en = h.en, al = h.al })
bx_place(base, booking_id, b, new_al)
if type(principal) == "string" then
  redis.call("ZADD", base .. "pbk:" .. principal, h.en, booking_id)
end
hset(KEYS[2], h, { s = "booked", bk = booking_id, ed = now })
if retention > 0 then
  redis.call("PEXPIRE", KEYS[2], retention)
end
return { "ok", "", flatten(b) }
