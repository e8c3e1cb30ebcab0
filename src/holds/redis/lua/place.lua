-- placeHold (§4.1, §5.2, §7.1, §7.2): caps, allocation, walk-in reserve and alternatives
-- in one atomic step. The allocation mirrors src/holds/allocation.ts step by step (its
-- header is the specification; step numbers below refer to it).
--
-- KEYS: 1 hold, 2 hexp, 3 events, 4 occlen, 5 agent count, 6 pool count (the agent's
-- again when the hold draws on no pool), 7.. one per mandate link, then every other key
-- the caller can name (occupancy and agent-type sets of every candidate, the overlapped
-- booking). Holds found lapsed on the way are expired through keys of the same host
-- (same Cluster slot) that cannot be known in advance; on a cluster, slot-guard.lua keeps
-- this script from running at all while that slot is half moved.
-- Every key the caller can name is declared, not built here, though all share one slot: while
-- a Redis Cluster moves the host's slot to another master, Redis routes and refuses a script
-- by its declared keys (ASK, or TRYAGAIN while they are split between the two nodes), so a
-- hold never runs against a half-moved occupancy and decides on sets that are not there yet.
-- Arguments: the request (place-args.ts, decoded), owner JSON, payload, the keys, and
-- must_use (a set of resource ids one of which the allocation must take, or nil). The host's base
-- ("<prefix>{<hostId>}:") is KEYS[1] without its "hold:<holdId>".
-- Reply, one string (cheaper for the client to read than a nested array):
--   "ok|<allocations JSON>"    the caller knows the rest of the hold it asked for
--   "no|<reason>|<alternative starts, comma-separated>|<basis JSON or nothing>"
--
-- Phase 1 reads and decides; phase 2 writes. Nothing is written before every check has
-- passed, so an error leaves no partial allocation.

local function place_hold(q, owner_json, payload, KEYS, must_use)
  local retention = q.rt
  local now = q.now
  local hkey = KEYS[1]
  local base = string.sub(hkey, 1, #hkey - #q.id - 5)
  local mand = q.md or {}
  local MAND0 = 6 -- KEYS[MAND0 + i] is the key of mandate link i

  local function refuse(reason, basis, alternatives)
    local alts = alternatives and table.concat(alternatives, ",") or ""
    return "no|" .. reason .. "|" .. alts .. "|" .. (basis and cjson.encode(basis) or "")
  end

  -- ---------------------------------------------------------------- phase 1: decide

  if redis.call("EXISTS", hkey) == 1 then
    return refuse("hold_id_in_use")
  end

  -- Caps count live holds: held ones score their expiry, so ZCOUNT (now, +inf] leaves
  -- out those that lapsed and have not been swept yet; confirming ones score +inf.
  -- read: sorted sets read so far (their type is checked), see the typed reads below.
  local read = {}
  local function live(key)
    local n = redis.call("ZCOUNT", key, "(" .. fmt(now), INF)
    read[key] = true
    return n
  end
  if q.ma and live(KEYS[5]) >= q.ma then
    return refuse("agent_limit", { policy = "holds.max_active_per_agent", limit = q.ma })
  end
  -- pk: 0 no pool (a proven principal), 1 the unproven pool, 2 an attester's pool.
  if q.pk > 0 and q.mp and live(KEYS[6]) >= q.mp then
    if q.pk == 2 then
      return refuse("attester_pool_full", { policy = "holds.max_active_per_attester", limit = q.mp })
    end
    return refuse("new_guest_pool_full", { policy = "holds.max_active_unproven", limit = q.mp })
  end
  for i, max in ipairs(mand) do
    if live(KEYS[MAND0 + i]) >= max then
      return refuse("mandate_limit", { policy = "mandate.max_bookings", limit = max })
    end
  end

  -- Step 1 (allocation.lua): a hold's allocation is live unless the hold lapsed (held,
  -- expiresAt <= now); the booking a change hold belongs to does not count against it (§5.7).
  local skip_hold = nil
  if q.ob then
    local b = redis.call("HMGET", q.ob, "s", "hd")
    if b[1] == "active" then
      skip_hold = b[2]
    end
  end
  local alloc = allocator(base, now, skip_hold, read)
  local lapsed = alloc.lapsed
  local reserves = q.w or {}

  local planned, reason, reserve = alloc.decide(q.rq, reserves, q.s, q.e)
  -- A waitlist offer (§5.9, offer-freed.lua) must sit on a resource that came free.
  if planned ~= nil and must_use ~= nil then
    local any = false
    for _, a in ipairs(planned) do
      if must_use[a.resourceId] then
        any = true
      end
    end
    if not any then
      planned, reason = nil, "not_freed"
    end
  end

  local alternatives = {}
  if planned == nil then
    -- Step 6: the first five alternatives that could be held now, in the order given.
    -- alt: {reported start, interval start, interval end, requirements}
    for _, alt in ipairs(q.al or {}) do
      if #alternatives >= 5 then
        break
      end
      if alloc.decide(alt[4], reserves, alt[2], alt[3]) ~= nil then
        alternatives[#alternatives + 1] = fmt(alt[1])
      end
    end
  end

  -- Typed reads of the keys phase 2 writes that phase 1 has not read: a key of the wrong
  -- type (written by something else) fails here, before anything is written. Each key once
  -- (the pool is the agent's key when the hold draws on no pool); occ:<rid> were all read.
  local any_lapsed = next(lapsed) ~= nil
  if any_lapsed then
    redis.call("LLEN", KEYS[3])
  end
  if planned ~= nil then
    local function typed(key)
      if not read[key] then
        redis.call("ZCARD", key)
        read[key] = true
      end
    end
    typed(KEYS[2])
    typed(KEYS[5])
    typed(KEYS[6])
    for _, a in ipairs(planned) do
      typed(base .. "agt:" .. a.type)
    end
  end

  -- ---------------------------------------------------------------- phase 2: write

  -- Holds found lapsed are expired whatever the outcome, oldest expiry first.
  if any_lapsed then
    local lapsed_ids = {}
    for id in pairs(lapsed) do
      lapsed_ids[#lapsed_ids + 1] = id
    end
    table.sort(lapsed_ids, function(a, b)
      if lapsed[a] ~= lapsed[b] then
        return lapsed[a] < lapsed[b]
      end
      return a < b
    end)
    for _, id in ipairs(lapsed_ids) do
      local h = hgetall(hold_key(base, id))
      if h ~= nil and is_lapsed(h, now) then
        expire_hold(base, id, h, retention)
      end
    end
  end

  if planned == nil then
    local basis = nil
    if reason == "walk_in_reserve" then
      basis = { policy = "walk_in_reserve", resource_type = reserve[1], keep = reserve[2] }
    end
    return refuse(reason, basis, alternatives)
  end

  local id = q.id
  local st, en, ex = fmt(q.s), fmt(q.e), fmt(q.ex)
  local ik = { KEYS[5] }
  if q.pk > 0 then
    ik[2] = KEYS[6]
  end
  local mk = {}
  for i = 1, #mand do
    mk[i] = KEYS[MAND0 + i]
  end
  local al = cjson.encode(planned)
  local h = {
    s = "held", svc = q.svc, st = st, en = en, ca = fmt(now), ex = ex, ttl = fmt(q.ttl),
    own = owner_json, al = al, pl = payload,
    ik = cjson.encode(ik), mk = cjson.encode(mk), fe = "0",
  }
  redis.call("HSET", hkey, unpack(flatten(h)))
  for _, a in ipairs(planned) do
    redis.call("ZADD", base .. "occ:" .. a.resourceId, en, alloc_member(st, fmt(a.units), ex, id))
    redis.call("ZADD", base .. "agt:" .. a.type, en, agt_member(st, ex, a.resourceId, id))
    note_length(base, "r:" .. a.resourceId, q.e - q.s)
    note_length(base, "t:" .. a.type, q.e - q.s)
  end
  redis.call("ZADD", base .. "hexp", ex, id)
  for _, k in ipairs(ik) do
    redis.call("ZADD", k, ex, id)
  end
  for _, k in ipairs(mk) do
    redis.call("ZADD", k, ex, "h:" .. id)
  end
  return "ok|" .. al
end
