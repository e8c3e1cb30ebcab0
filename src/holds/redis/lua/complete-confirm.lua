-- completeConfirm: records the booking; the hold's allocations become the booking's
-- (the booking names the hold, whose occupancy members stay). Fenced. The booking enters the
-- host's booking index in the same step: a crash can never leave a booking the operator list
-- and the approval-deadline runner do not see.
-- The booking indexes (booking-index.lua) take it in the same step too.
-- KEYS[1] hold, KEYS[2] booking, KEYS[3] lease, KEYS[4] booking index, KEYS[5] bx:meta.
-- ARGV: base, holdId, fence, bookingId, now, retentionMs, payload, index entry JSON or "".
-- Reply: {"ok", "", booking} | {"no", reason, hold?}.
local base, id, fence, booking_id = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local now, retention, payload = ARGV[5], tonumber(ARGV[6]), ARGV[7]
local ix = bx_entry(ARGV[8])
local h, refused = hold_for(KEYS[1], base, id, tonumber(now), "confirming", retention, fence)
if h == nil then
  return refused
end
if redis.call("EXISTS", KEYS[2]) == 1 then
  return reply_hold("no", "invalid_state", h)
end

local ik, mk, al = decode_list(h.ik), decode_list(h.mk), decode_list(h.al)
local principal = cjson.decode(h.own).principal
local b = {
  hd = id, hx = h.ex, ho = id, svc = h.svc, st = h.st, en = h.en, own = h.own, al = h.al,
  mk = h.mk or "[]", s = "active", pl = payload, ca = now, tk = h.ik or "[]",
}
redis.call("HSET", KEYS[2], unpack(flatten(b)))
-- The host's first booking: nothing older needs a backfill.
if redis.call("ZCARD", KEYS[4]) == 0 then
  redis.call("HSET", KEYS[5], "v", "1")
end
redis.call("ZADD", KEYS[4], "NX", now, booking_id)
bx_order(base, booking_id, b)
bx_place(base, booking_id, b, al)
bx_describe(base, KEYS[2], booking_id, b, ix)
-- The hold leaves the live counts (a tentative booking stays in them: bx_locks, §5.10); its
-- mandate links now count the booking (§3.3).
for _, k in ipairs(ik) do
  redis.call("ZREM", k, id)
end
for _, k in ipairs(mk) do
  redis.call("ZREM", k, "h:" .. id)
  redis.call("ZADD", k, INF, "k:" .. booking_id)
end
redis.call("ZREM", KEYS[3], id)
if type(principal) == "string" then
  redis.call("ZADD", base .. "pbk:" .. principal, h.en, booking_id)
end
hset(KEYS[1], h, { s = "booked", bk = booking_id, ed = now })
hdel(KEYS[1], h, "lu")
if retention > 0 then
  redis.call("PEXPIRE", KEYS[1], retention)
end
return { "ok", "", flatten(b) }
