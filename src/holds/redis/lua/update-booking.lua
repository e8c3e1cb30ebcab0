-- updateBookingPayload / markAttendance: one field of an existing booking. Attendance
-- is recorded only on an active booking (a released one was never attended). A payload
-- update may be a compare-and-set: with an expected payload it applies only when the stored one
-- is exactly that, so two concurrent updates of one booking never lose one.
-- A payload may come with its index entry (booking-index.lua), written in the same step; a
-- booking older than the indexes is indexed whole then.
-- KEYS[1] booking, KEYS[2] bx:meta. ARGV: base, field ("pl" or "att"), value, "1" when the
-- next is the expected payload (else ""), expected payload, index entry JSON or "", and for
-- "att" an end ("" for none): an open-ended booking's end frees its time beyond it (SchCP
-- §4.2), every allocation (occ:, agt:) and the principal's booking set rescored to it.
-- Reply: {"ok", "", booking} | {"no", "not_found" | "released" | "stale"}.
local base, field, value = ARGV[1], ARGV[2], ARGV[3]
local expected = ARGV[4] == "1" and ARGV[5] or nil
local ix = bx_entry(ARGV[6])
local b = hgetall(KEYS[1])
if b == nil then
  return { "no", "not_found" }
end
if field == "att" and b.s ~= "active" then
  return { "no", "released" }
end
if expected ~= nil and b.pl ~= expected then
  return { "no", "stale" }
end
local id = string.sub(KEYS[1], #base + 4)
local al = ix ~= nil and b.ox == nil and decode_list(b.al) or nil
hset(KEYS[1], b, { [field] = value })
local new_end = tonumber(ARGV[7] or "")
if field == "att" and new_end ~= nil and new_end > tonumber(b.st) and new_end < tonumber(b.en) then
  for _, a in ipairs(decode_list(b.al)) do
    redis.call("ZADD", base .. "occ:" .. a.resourceId, "XX", new_end, alloc_member(b.st, fmt(a.units), b.hx, b.hd))
    redis.call("ZADD", base .. "agt:" .. a.type, "XX", new_end, agt_member(b.st, b.hx, a.resourceId, b.hd))
  end
  local owner = cjson.decode(b.own)
  if type(owner.principal) == "string" then
    redis.call("ZADD", base .. "pbk:" .. owner.principal, "XX", new_end, id)
  end
  hset(KEYS[1], b, { en = fmt(new_end) })
end
if ix ~= nil then
  if al ~= nil then
    bx_order(base, id, b)
    bx_place(base, id, b, al)
  end
  bx_describe(base, KEYS[1], id, b, ix)
end
return { "ok", "", flatten(b) }
