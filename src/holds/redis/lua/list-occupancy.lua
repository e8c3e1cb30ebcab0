-- listOccupancy (§5.1 availability): a read-only, consistent snapshot of what occupies
-- some resources over [start, end) at now. Live holds and active bookings (agent) and
-- busy blocks (not agent, filling any capacity); lapsed held holds are left out, as in
-- allocation.lua. Nothing is written: placeHold is where allocation is atomic.
-- KEYS: occ:<rid> for each resource, in ARGV order; then hexp; then occlen.
-- ARGV: start, end, now, resourceId, resourceId, …
-- Reply: one list per resource: {start, end, units ("" for a busy block), …}.
local s, e, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local n = #ARGV - 3
local hexp, occlen = KEYS[n + 1], KEYS[n + 2]
local lapsed = {}
local function is_live(id, ex)
  if ex > now then
    return true
  end
  if lapsed[id] == nil then
    local score = redis.call("ZSCORE", hexp, id)
    lapsed[id] = (score and tonumber(score) <= now) and true or false
  end
  return not lapsed[id]
end
-- Every resource's longest entry in one call: a query reads all of a host's units.
local fields = {}
for i = 1, n do
  fields[i] = "r:" .. ARGV[3 + i]
end
local longests = redis.call("HMGET", occlen, unpack(fields))
local out = {}
for i = 1, n do
  local longest = tonumber(longests[i] or "0") or 0
  local rows = redis.call("ZRANGEBYSCORE", KEYS[i], "(" .. fmt(s), fmt(e + longest), "WITHSCORES")
  local entries = {}
  for r = 1, #rows, 2 do
    local kind, ms, mu, mx, id = parse_member(rows[r])
    local me = tonumber(rows[r + 1])
    if ms < e and me > s then
      if kind == "b" then
        entries[#entries + 1] = fmt(ms)
        entries[#entries + 1] = fmt(me)
        entries[#entries + 1] = ""
      elseif is_live(id, mx) then
        entries[#entries + 1] = fmt(ms)
        entries[#entries + 1] = fmt(me)
        entries[#entries + 1] = fmt(mu)
      end
    end
  end
  out[i] = entries
end
return out
