-- offerFreed (§5.9 "a freed slot goes to the waitlist first"): frees the time and offers it
-- to the first waiting entry it suits, in ONE step, so no one else sees it in between. The
-- release is release-booking.lua's, move-booking.lua's or release-hold.lua's (an offered
-- hold left or lapsed); each candidate's hold is place.lua's place_hold, under every hold
-- control (§7.2), and must take one of the resources the release freed.
-- KEYS: 1 the booking (booking, move) or the offered hold (offer); 2 the change hold (move)
-- or the leaving entry (offer); then per candidate its entry key and its place-hold keys.
-- ARGV: 1 header JSON {k, bid, hid, eid, es, now, rt, c: [[first key, key count, entry id,
-- line (0|1)]]}, then per candidate: request JSON, owner JSON, payload. The base is ARGV[2].
-- An offer placed with line 1 (§5.9 "a lapse moves down the line") is kept out of hexp and
-- marked ln = "1": once it lapses, neither the allocator (allocation.lua, no hexp score: live)
-- nor availability (list-occupancy.lua) nor any expiry (lib.lua end_hold) frees its time; only
-- this script does, with that hold as its release, in the step that offers the time to the
-- next entry.
-- Reply: {status, reason, released fields, freed JSON, late (0|1), offered index (0: none),
-- allocations JSON, passed JSON}.
local hdr, base = cjson.decode(ARGV[1]), ARGV[2]
local now, retention = tonumber(hdr.now), tonumber(hdr.rt)
local freed = {}
local rec = {}
local late = 0

if hdr.k == "booking" then
  local b = hgetall(KEYS[1])
  if b == nil then
    return { "no", "not_found" }
  end
  if b.s == "active" then
    local al, mk = decode_list(b.al), decode_list(b.mk)
    free_allocations(base, b.hd, b.st, b.hx, al)
    bx_unplace(base, hdr.bid, al)
    for _, k in ipairs(mk) do
      redis.call("ZREM", k, "k:" .. hdr.bid)
    end
    hset(KEYS[1], b, { s = "released", ed = fmt(now) })
    bx_locks(hdr.bid, b)
    freed = al
  end
  rec = b
elseif hdr.k == "move" then
  local b = hgetall(KEYS[1])
  if b == nil then
    return { "no", "not_found" }
  end
  if b.s ~= "active" then
    return { "no", "released" }
  end
  local h, refused = hold_for(KEYS[2], base, hdr.hid, now, "held", retention)
  if h == nil then
    return refused
  end
  local old_al, ik, mk = decode_list(b.al), decode_list(h.ik), decode_list(h.mk)
  local principal = cjson.decode(b.own).principal
  local new_al = decode_list(h.al)
  free_allocations(base, b.hd, b.st, b.hx, old_al)
  bx_unplace(base, hdr.bid, old_al)
  drop_indexes(base, hdr.hid, ik, mk)
  hset(KEYS[1], b, { hd = hdr.hid, hx = h.ex, st = h.st, en = h.en, al = h.al })
  bx_place(base, hdr.bid, b, new_al)
  if type(principal) == "string" then
    redis.call("ZADD", base .. "pbk:" .. principal, h.en, hdr.bid)
  end
  hset(KEYS[2], h, { s = "booked", bk = hdr.bid, ed = fmt(now) })
  if retention > 0 then
    redis.call("PEXPIRE", KEYS[2], retention)
  end
  freed = old_al
  rec = b
else
  local h = hgetall(KEYS[1])
  if h == nil then
    return { "no", "not_found" }
  end
  local al = decode_list(h.al)
  if is_lapsed(h, now) then
    expire_hold(base, hdr.hid, h, retention)
  elseif h.s == "held" then
    late = (5 * now >= 5 * tonumber(h.ex) - tonumber(h.ttl)) and 1 or 0
    end_hold(base, hdr.hid, h, "released", fmt(now), retention)
  elseif h.s ~= "released" and h.s ~= "expired" then
    return reply_hold("no", state_refusal(h), h)
  end
  if h.ln == "1" then
    -- The time its lapse kept for the line comes free now, in this step (lib.lua end_hold).
    if h.s == "expired" then
      free_allocations(base, hdr.hid, h.st, h.ex, al)
    end
    hdel(KEYS[1], h, "ln")
  end
  local e = hgetall(KEYS[2])
  if e ~= nil and e.s == "offered" and e.hd == hdr.hid then
    wl_finish(base, hdr.eid, e, hdr.es)
  end
  freed = al
  rec = h
end

local must_use, any = {}, false
for _, a in ipairs(freed) do
  must_use[a.resourceId] = true
  any = true
end
local passed = {}
if any then
  for i, seg in ipairs(hdr.c) do
    local ek, eid = KEYS[seg[1]], seg[3]
    local e = hgetall(ek)
    if e == nil or e.s ~= "waiting" or tonumber(e.un) <= now then
      passed[#passed + 1] = { eid, "not_waiting" }
    else
      -- The entry stops counting against max_bookings while its hold is tried, which counts
      -- instead (§5.9, §7.1); passed over, it counts again.
      local mk = decode_list(e.mk)
      for _, k in ipairs(mk) do
        redis.call("ZREM", k, "w:" .. eid)
      end
      local K = {}
      for j = 1, seg[2] do
        K[j] = KEYS[seg[1] + j]
      end
      local q = cjson.decode(ARGV[3 * i])
      local r = place_hold(q, ARGV[3 * i + 1], ARGV[3 * i + 2], K, must_use)
      if string.sub(r, 1, 3) == "ok|" then
        redis.call("ZREM", base .. "wlq", eid)
        redis.call("ZADD", base .. "wlo", e.sq, eid)
        hset(ek, e, { s = "offered", hd = q.id })
        if seg[4] == 1 then
          -- K[1] is the hold, K[2] hexp (place.lua's keys): out of hexp, it never lapses alone.
          redis.call("ZREM", K[2], q.id)
          redis.call("HSET", K[1], "ln", "1")
        end
        return { "ok", "", flatten(rec), cjson.encode(freed), late, i, string.sub(r, 4), cjson.encode(passed) }
      end
      for _, k in ipairs(mk) do
        redis.call("ZADD", k, e.un, "w:" .. eid)
      end
      local reason = string.match(r, "^no|([^|]*)")
      passed[#passed + 1] = { eid, reason or "slot_taken" }
    end
  end
end
return { "ok", "", flatten(rec), cjson.encode(freed), late, 0, "", cjson.encode(passed) }
