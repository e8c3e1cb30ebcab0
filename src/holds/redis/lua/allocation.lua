-- Allocation of resource time (§4.1, §7.2 walk_in_reserve) for place-hold.lua, which
-- includes this file after lib.lua (scripts.ts). It mirrors src/holds/allocation.ts step
-- by step: that file's header is the specification and the step numbers below are its.
--
-- allocator(base, now, skip_hold, read) reads occupancy from Redis (nothing here writes) and
-- returns { decide = function(requirements, reserves, start, end), lapsed = {} }: decide
-- runs steps 3-5 for one interval; lapsed collects the holds found lapsed on the way
-- (holdId -> expiresAt), for the caller to expire once it has decided. Every sorted set it
-- reads is marked in `read` (key -> true): the read has checked the key's type.
-- Requirements on the wire: {type, units, combine (0|1), {id, capacity, id, capacity, …}};
-- reserves: {resourceType, keep, typeCount}.

local SEARCH_BUDGET = 1000

local function allocator(base, now, skip_hold, read)
  local lapsed = {}
  local hexp = base .. "hexp"
  local live_cache = {}

  -- Step 1: a hold's allocation is live unless the hold lapsed (held, expiresAt <= now);
  -- the booking a change hold belongs to does not count against it (§5.7).
  -- An allocation whose hold expires after now is live; otherwise ask whether the hold is
  -- still held (then it lapsed) or confirming/booked (live whatever its expiry).
  local function is_live(id, ex)
    if ex > now then
      return true
    end
    local known = live_cache[id]
    if known ~= nil then
      return known
    end
    local score = redis.call("ZSCORE", hexp, id)
    read[hexp] = true
    local alive = not (score and tonumber(score) <= now)
    if not alive then
      lapsed[id] = tonumber(score)
    end
    live_cache[id] = alive
    return alive
  end

  local function overlapping(key, len_field, s, e)
    local rows = redis.call("ZRANGEBYSCORE", key, "(" .. fmt(s), fmt(e + longest(base, len_field)), "WITHSCORES")
    read[key] = true
    return rows
  end

  -- Step 2: the most units in use at once over [s, e); busy blocks fill the capacity.
  local function concurrent(rid, capacity, s, e)
    local rows = overlapping(base .. "occ:" .. rid, "r:" .. rid, s, e)
    local events = {}
    for i = 1, #rows, 2 do
      local kind, ms, mu, mx, id = parse_member(rows[i])
      local me = tonumber(rows[i + 1])
      if ms < e and me > s then
        local units = mu
        local counts = true
        if kind == "b" then
          units = capacity
        elseif id == skip_hold or not is_live(id, mx) then
          counts = false
        end
        if counts and units > 0 then
          events[#events + 1] = { math.max(ms, s), units }
          events[#events + 1] = { math.min(me, e), -units }
        end
      end
    end
    table.sort(events, function(a, b)
      if a[1] ~= b[1] then
        return a[1] < b[1]
      end
      return a[2] < b[2]
    end)
    local sum, max = 0, 0
    for _, ev in ipairs(events) do
      sum = sum + ev[2]
      if sum > max then
        max = sum
      end
    end
    return max
  end

  -- Step 3: feasible resources per requirement, or nil when one cannot be met on its own.
  local function feasible_sets(reqs, s, e)
    local sets = {}
    for _, rq in ipairs(reqs) do
      -- rq: {type, units, combine (0|1), {id, capacity, id, capacity, …}}
      local r = { t = rq[1], u = rq[2], c = rq[3] }
      local seen, list, cands = {}, {}, rq[4]
      for k = 1, #cands, 2 do
        local rid, capacity = cands[k], cands[k + 1]
        if not seen[rid] then
          seen[rid] = true
          local used = concurrent(rid, capacity, s, e)
          local fits
          if r.c == 1 then
            fits = used == 0
          else
            fits = capacity - used >= r.u
          end
          if fits then
            list[#list + 1] = { id = rid, cap = capacity, index = k }
          end
        end
      end
      if r.c == 1 then
        table.sort(list, function(a, b)
          if a.cap ~= b.cap then
            return a.cap > b.cap
          end
          return a.index < b.index
        end)
        local total = 0
        for _, x in ipairs(list) do
          total = total + x.cap
        end
        if total < r.u then
          return nil
        end
      elseif #list == 0 then
        return nil
      end
      sets[#sets + 1] = { req = r, list = list }
    end
    return sets
  end

  -- Step 4: depth-first assignment of distinct resources, first complete one wins.
  local function assign(sets)
    local used, chosen = {}, {}
    local steps = SEARCH_BUDGET
    local function visit(depth)
      local set = sets[depth]
      if set == nil then
        return true
      end
      local r = set.req
      if r.c == 1 then
        steps = steps - 1
        if steps < 0 then
          return false
        end
        local taken, sum = {}, 0
        for _, x in ipairs(set.list) do
          if sum >= r.u then
            break
          end
          if not used[x.id] then
            taken[#taken + 1] = { resourceId = x.id, units = x.cap, type = r.t }
            sum = sum + x.cap
          end
        end
        if sum < r.u then
          return false
        end
        for _, t in ipairs(taken) do
          used[t.resourceId] = true
        end
        chosen[depth] = taken
        if visit(depth + 1) then
          return true
        end
        chosen[depth] = nil
        for _, t in ipairs(taken) do
          used[t.resourceId] = nil
        end
        return false
      end
      for _, x in ipairs(set.list) do
        if not used[x.id] then
          steps = steps - 1
          if steps < 0 then
            return false
          end
          used[x.id] = true
          chosen[depth] = { { resourceId = x.id, units = r.u, type = r.t } }
          if visit(depth + 1) then
            return true
          end
          chosen[depth] = nil
          used[x.id] = nil
          if steps < 0 then
            return false
          end
        end
      end
      return false
    end
    if not visit(1) then
      return nil
    end
    local out = {}
    for depth = 1, #sets do
      for _, a in ipairs(chosen[depth]) do
        out[#out + 1] = a
      end
    end
    return out
  end

  -- Step 5 sweep: the most distinct resources agents occupy at one moment of [s, e).
  local function max_distinct(rows, mine, s, e)
    local events = {}
    for i = 1, #rows, 2 do
      local ms, mx, rid, id = parse_agt(rows[i])
      local me = tonumber(rows[i + 1])
      if ms < e and me > s and not mine[rid] and id ~= skip_hold and is_live(id, mx) then
        events[#events + 1] = { math.max(ms, s), 1, rid }
        events[#events + 1] = { math.min(me, e), -1, rid }
      end
    end
    table.sort(events, function(a, b)
      if a[1] ~= b[1] then
        return a[1] < b[1]
      end
      return a[2] < b[2]
    end)
    local cover, distinct, max = {}, 0, 0
    for _, ev in ipairs(events) do
      local before = cover[ev[3]] or 0
      local after = before + ev[2]
      cover[ev[3]] = after
      if before == 0 and after > 0 then
        distinct = distinct + 1
      elseif before > 0 and after == 0 then
        distinct = distinct - 1
      end
      if distinct > max then
        max = distinct
      end
    end
    return max
  end

  -- Step 5: the first reserve the planned allocation would break, if any.
  local function violated_reserve(planned, reserves, s, e)
    for _, w in ipairs(reserves) do
      local rtype, keep, type_count = w[1], w[2], w[3]
      local mine, n = {}, 0
      for _, p in ipairs(planned) do
        if p.type == rtype and not mine[p.resourceId] then
          mine[p.resourceId] = true
          n = n + 1
        end
      end
      if n > 0 then
        local rows = overlapping(base .. "agt:" .. rtype, "t:" .. rtype, s, e)
        if n + max_distinct(rows, mine, s, e) > type_count - keep then
          return w
        end
      end
    end
    return nil
  end

  -- Steps 3-5: the planned allocations, or nil and "slot_taken" | "walk_in_reserve", reserve.
  local function decide(reqs, reserves, s, e)
    local sets = feasible_sets(reqs, s, e)
    local planned = sets and assign(sets)
    if planned == nil then
      return nil, "slot_taken"
    end
    local w = violated_reserve(planned, reserves, s, e)
    if w ~= nil then
      return nil, "walk_in_reserve", w
    end
    return planned
  end

  return { decide = decide, lapsed = lapsed }
end
