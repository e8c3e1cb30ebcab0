-- The waitlist's keys and writes (§5.9), shared by wl-join.lua, wl-status.lua and
-- offer-freed.lua. An entry is the HASH <base>wl:<id>:
--   s status, svc, ag agent key, pr principal, ws/we window, ca created, sq line order,
--   un until (expired after), md mandate links JSON, mk their count keys JSON, hd offered
--   hold, pl payload (the core's).
-- <base>wlq ZSET waiting entries by sq (the line); <base>wlo ZSET offered entries by sq;
-- <base>wla:<agent> ZSET the agent's waiting or offered entries; <base>wlseq the line's
-- counter. A waiting entry is "w:<id>" in each mandate link's count, scored by un (§5.9:
-- it counts against max_bookings, and stops counting once its window or mandate is over).

local function wl_key(base, id)
  return base .. "wl:" .. id
end

-- An entry leaves the line for good (booked, left, lapsed, expired): nothing counts it.
local function wl_finish(base, id, e, status)
  redis.call("ZREM", base .. "wlq", id)
  redis.call("ZREM", base .. "wlo", id)
  redis.call("ZREM", base .. "wla:" .. e.ag, id)
  for _, k in ipairs(decode_list(e.mk)) do
    redis.call("ZREM", k, "w:" .. id)
  end
  hset(wl_key(base, id), e, { s = status })
end
