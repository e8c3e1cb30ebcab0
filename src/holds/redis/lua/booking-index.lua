-- The host's booking indexes, written by the scripts that write bookings (complete-confirm,
-- update-booking, move-booking, release-booking, index-backfill) in the same step. Keys
-- (keys.ts, all under the host's base):
--   bx:all          ZSET every booking by its order (creation: ca * 1024 + a tie-break)
--   bx:st:<status>  ZSET the bookings whose core status is <status>, by order
--   bx:due          ZSET bookings by their core deadline (approval or offer)
--   bx:key          HASH unique lookup key -> bookingId ("upstream:<id>")
--   bx:res:<rid>    ZSET active bookings holding <rid>, by start
--   bx:meta         HASH v (1: every booking of the host is indexed), last (the last order
--                        given), dur:<rid> (the longest booking <rid> has held, ms)
-- and, in the booking's own hash: ox order, xs status, xd deadline, xk keys (JSON), tk the
-- live-count keys its hold counted in (agent, pool: §5.10 Locks, bx_locks).

-- §5.10 Locks: "A tentative booking counts against the booker's agent cap and the new-guest
-- pool (§7.2) like a hold". An active booking whose core status is "tentative" is a member
-- "t:<bookingId>" (score +inf) of the live counts its hold counted in (tk: agent:<key> and the
-- pool's set), which place.lua counts with every live hold, in the hold's own step; any other
-- status, or released, takes it out. Every script that writes a booking's status or state calls it.
local function bx_locks(id, b)
  if b.tk == nil then
    return
  end
  local member = "t:" .. id
  local locked = b.s == "active" and b.xs == "tentative"
  for _, k in ipairs(decode_list(b.tk)) do
    if locked then
      redis.call("ZADD", k, INF, member)
    else
      redis.call("ZREM", k, member)
    end
  end
end
-- An order is unique at the host and grows with creation time, so a list page resumes after
-- its last order with no ties to skip.

local function bx(base, name)
  return base .. "bx:" .. name
end

-- Gives the booking its order (once). `order` (backfill) is the one it should have.
local function bx_order(base, id, b, order)
  if b.ox ~= nil then
    return
  end
  local meta = bx(base, "meta")
  local last = tonumber(redis.call("HGET", meta, "last") or "0")
  local score = order
  if score == nil then
    score = math.max(last + 1, tonumber(b.ca or "0") * 1024)
  end
  if score > last then
    redis.call("HSET", meta, "last", fmt(score))
  end
  b.ox = fmt(score)
  redis.call("HSET", base .. "bk:" .. id, "ox", b.ox)
  redis.call("ZADD", bx(base, "all"), b.ox, id)
end

-- An active booking enters the time index of each resource it holds.
local function bx_place(base, id, b, al)
  if b.s ~= "active" then
    return
  end
  local meta = bx(base, "meta")
  local len = tonumber(b.en) - tonumber(b.st)
  for _, a in ipairs(al) do
    redis.call("ZADD", bx(base, "res:" .. a.resourceId), b.st, id)
    local field = "dur:" .. a.resourceId
    if tonumber(redis.call("HGET", meta, field) or "0") < len then
      redis.call("HSET", meta, field, fmt(len))
    end
  end
end

local function bx_unplace(base, id, al)
  for _, a in ipairs(al) do
    redis.call("ZREM", bx(base, "res:" .. a.resourceId), id)
  end
end

-- The core's facts of the payload (decoded {s, d, k}) replace the previous ones. `key` is the
-- booking's hash; `b` its Lua copy, kept in step.
local function bx_describe(base, key, id, b, ix)
  if ix == nil then
    return
  end
  local old_keys = decode_list(b.xk)
  if b.xs ~= nil and b.xs ~= ix.s then
    redis.call("ZREM", bx(base, "st:" .. b.xs), id)
  end
  redis.call("ZADD", bx(base, "st:" .. ix.s), b.ox, id)
  local fields = { xs = ix.s, xk = cjson.encode(ix.k or {}) }
  if type(ix.d) == "number" then
    redis.call("ZADD", bx(base, "due"), fmt(ix.d), id)
    fields.xd = fmt(ix.d)
  else
    redis.call("ZREM", bx(base, "due"), id)
    if b.xd ~= nil then
      hdel(key, b, "xd")
    end
  end
  local keep = {}
  for _, k in ipairs(ix.k or {}) do
    keep[k] = true
    redis.call("HSET", bx(base, "key"), k, id)
  end
  for _, k in ipairs(old_keys) do
    if not keep[k] and redis.call("HGET", bx(base, "key"), k) == id then
      redis.call("HDEL", bx(base, "key"), k)
    end
  end
  hset(key, b, fields)
  bx_locks(id, b)
end

-- Decodes an index entry argument ("" = none) before any write.
local function bx_entry(json)
  if json == nil or json == "" then
    return nil
  end
  return cjson.decode(json)
end
