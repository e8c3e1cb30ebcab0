-- Shared helpers, prepended to every hold store script by scripts.ts (Redis scripts
-- cannot import). Key names mirror src/holds/redis/keys.ts: `base` is "<prefix>{<hostId>}:".
--
-- A hold is a HASH with string fields:
--   s   state: held | confirming | booked | released | expired
--   svc serviceId     st, en  interval (epoch ms)     ca createdAt   ex expiresAt
--   ttl ttlMs         own owner (JSON, as the caller gave it)          pl payload
--   al  allocations, JSON [{resourceId, units, type}]
--   ik  JSON list of the count keys holding the hold id (agent, pool), scored by expiry
--   mk  JSON list of mandate keys holding "h:<holdId>"
--   fe  fence (increases on every beginConfirm/claim)   lu leaseUntil (confirming only)
--   bk  bookingId (booked)   ed endedAt
--   ln  "1": a §5.9 waitlist offer whose lapse keeps its time for the line (offer-freed.lua)
-- An allocation is the member "h|<start>|<units>|<expiresAt>|<holdId>" of occ:<resourceId>,
-- scored by the interval's end; a busy block is "b|<start>|0|0|<source>|<end>" (it fills
-- the whole capacity). A hold's expiresAt never changes, so it can sit in the member: an
-- allocation whose hold expires after `now` is live without reading the hold. A booking
-- keeps its hold's members: it names the hold whose members it occupies (hd, with that
-- hold's expiresAt in hx: the confirmed hold, or the change hold it moved to, §5.7) and
-- the hold it was made from (ho, the port's BookingRecord.holdId).
--
-- Scripts read and check everything first and write only when every check has passed,
-- so an error can never leave half an allocation behind.

local INF = "+inf"

-- Exact integer formatting: tostring() rounds to 14 significant digits.
local function fmt(n)
  return string.format("%d", n)
end

local function hgetall(key)
  local flat = redis.call("HGETALL", key)
  if #flat == 0 then
    return nil
  end
  local t = {}
  for i = 1, #flat, 2 do
    t[flat[i]] = flat[i + 1]
  end
  return t
end

local function flatten(t)
  local out = {}
  for k, v in pairs(t) do
    out[#out + 1] = k
    out[#out + 1] = v
  end
  return out
end

-- Sets fields in Redis and in the Lua copy the script will return.
local function hset(key, t, fields)
  local args = {}
  for k, v in pairs(fields) do
    t[k] = v
    args[#args + 1] = k
    args[#args + 1] = v
  end
  redis.call("HSET", key, unpack(args))
end

local function hdel(key, t, field)
  t[field] = nil
  redis.call("HDEL", key, field)
end

local function alloc_member(start, units, ex, id)
  return "h|" .. start .. "|" .. units .. "|" .. ex .. "|" .. id
end

-- Member of agt:<type> (agents' allocations of a type, for the walk-in reserve), scored by
-- end: "<start>|<expiresAt>|<#resourceId>|<resourceId><holdId>".
local function agt_member(start, ex, rid, id)
  return start .. "|" .. ex .. "|" .. #rid .. "|" .. rid .. id
end

-- start, expiresAt, resourceId, holdId
local function parse_agt(m)
  local s, x, n, rest = string.match(m, "^(%-?%d+)|(%-?%d+)|(%d+)|(.*)$")
  n = tonumber(n)
  return tonumber(s), tonumber(x), string.sub(rest, 1, n), string.sub(rest, n + 1)
end

-- kind ("h" or "b"), start, units, expiresAt, id
local function parse_member(m)
  local kind, s, u, x, id = string.match(m, "^(%a)|(%-?%d+)|(%d+)|(%-?%d+)|(.*)$")
  return kind, tonumber(s), tonumber(u), tonumber(x), id
end

-- The longest interval ever stored under occ:<rid> ("r:<rid>") or agt:<type> ("t:<type>"):
-- an overlap query for [s, e) then reads only scores in (s, e + longest], not every
-- future allocation of the resource. The sweeper also walks these fields to prune.
local longest_cache = {}
local function longest(base, field)
  local n = longest_cache[field]
  if n == nil then
    n = tonumber(redis.call("HGET", base .. "occlen", field) or "0")
    longest_cache[field] = n
  end
  return n
end

-- Reads through longest(): a field the overlap query already read costs no second HGET.
local function note_length(base, field, len)
  if longest(base, field) < len then
    redis.call("HSET", base .. "occlen", field, fmt(len))
    longest_cache[field] = len
  end
end

local function decode_list(json)
  if json == nil or json == "" then
    return {}
  end
  return cjson.decode(json)
end

local function hold_key(base, id)
  return base .. "hold:" .. id
end

local function is_lapsed(h, now)
  return h.s == "held" and tonumber(h.ex) <= now
end

-- The functions below that write take decoded lists: callers decode every JSON field
-- they need before their first write, so a decoding error cannot stop a script half way.

-- Removes a hold's (or its booking's) members from every resource it occupies.
-- al: decoded allocations.
local function free_allocations(base, id, start, ex, al)
  for _, a in ipairs(al) do
    redis.call("ZREM", base .. "occ:" .. a.resourceId, alloc_member(start, fmt(a.units), ex, id))
    redis.call("ZREM", base .. "agt:" .. a.type, agt_member(start, ex, a.resourceId, id))
  end
end

-- Takes the hold out of every live count (agent, pool, mandate) and the expiry/lease sets.
local function drop_indexes(base, id, ik, mk)
  redis.call("ZREM", base .. "hexp", id)
  redis.call("ZREM", base .. "lease", id)
  for _, k in ipairs(ik) do
    redis.call("ZREM", k, id)
  end
  for _, k in ipairs(mk) do
    redis.call("ZREM", k, "h:" .. id)
  end
end

-- The live counts score a held hold by its expiry (lapsed holds drop out of ZCOUNT at
-- once) and a confirming one by +inf (it cannot lapse).
local function rescore(id, ik, mk, score)
  for _, k in ipairs(ik) do
    redis.call("ZADD", k, score, id)
  end
  for _, k in ipairs(mk) do
    redis.call("ZADD", k, score, "h:" .. id)
  end
end

-- Ends a held or confirming hold: frees its time and its counts. A waitlist offer that lapses
-- with ln = "1" (§5.9 "a lapse moves down the line", offer-freed.lua) keeps its time: it stays
-- in occ:<rid> with no hexp score, so it counts as occupied for everyone, until the line step
-- (offer-freed.lua, the hold as its release) frees it and offers it to the next entry.
local function end_hold(base, id, h, state, ended_at, retention_ms)
  local key = hold_key(base, id)
  local al, ik, mk = decode_list(h.al), decode_list(h.ik), decode_list(h.mk)
  if not (state == "expired" and h.ln == "1") then
    free_allocations(base, id, h.st, h.ex, al)
  end
  drop_indexes(base, id, ik, mk)
  hset(key, h, { s = state, ed = ended_at })
  if h.lu ~= nil then
    hdel(key, h, "lu")
  end
  if retention_ms > 0 then
    redis.call("PEXPIRE", key, retention_ms)
  end
end

-- A held hold whose expiresAt <= now: ends it and reports the expiry once (§7.3).
local function expire_hold(base, id, h, retention_ms)
  local event = '{"holdId":' .. cjson.encode(id) .. ',"expiredAt":' .. h.ex .. ',"owner":' .. h.own .. "}"
  end_hold(base, id, h, "expired", h.ex, retention_ms)
  redis.call("RPUSH", base .. "events", event)
end

-- The refusal a transition gives a hold that is not in the state it needs.
local function state_refusal(h)
  if h.s == "held" then
    return "invalid_state"
  end
  return h.s -- confirming | booked | released | expired
end

local function reply_hold(status, reason, h, ...)
  return { status, reason, flatten(h), ... }
end

-- The hold a transition works on, in the state it needs and, when a fence is given, under
-- that fence. A held hold found lapsed is expired here (reported once) and refused.
-- Returns the hold, or nil and the script's reply.
local function hold_for(key, base, id, now, state, retention_ms, fence)
  local h = hgetall(key)
  if h == nil then
    return nil, { "no", "not_found" }
  end
  if is_lapsed(h, now) then
    expire_hold(base, id, h, retention_ms)
    return nil, reply_hold("no", "expired", h)
  end
  if h.s ~= state then
    return nil, reply_hold("no", state_refusal(h), h)
  end
  if fence ~= nil and tonumber(h.fe) ~= fence then
    return nil, reply_hold("no", "stale_fence", h)
  end
  return h
end
