-- listOccupancy (§5.1 availability): a read-only, consistent snapshot of what occupies
-- some resources over some ranges, each at its own now. Live holds and active bookings
-- (agent) and busy blocks (not agent, filling any capacity); lapsed held holds are left
-- out, as in allocation.lua. Nothing is written: placeHold is where allocation is atomic.
-- Several reads of one host are answered by one call (occupancy.ts gathers them).
-- KEYS: occ:<rid> for each resource named, in ARGV order; then hexp; then occlen.
-- ARGV: n (resources), rid × n, then per read: start, end, now, k, resource index (1-based) × k.
-- Reply: ONE string, a JSON array with, per read and per resource it named, a flat array
-- [start, end, units, …] in the order of the ends (units 0 for a busy block). One bulk string
-- keeps the reply cheap to build here and to read in the gateway (a single JSON.parse).
-- Busy blocks are passed on as they are stored, including those starting at or after the
-- read's end (the gateway drops them), so a row costs no number conversion here: the start
-- as the member holds it, the end as Redis writes the score (a JSON number either way).
local n = tonumber(ARGV[1])
local hexp, occlen = KEYS[n + 1], KEYS[n + 2]
local find, sub, byte, concat = string.find, string.sub, string.byte, table.concat
local B = byte("b")

-- A held hold's expiry in hexp (false when it has none: booked, confirming or gone).
local expiry = {}
local function is_live(id, ex, now)
  if ex > now then
    return true
  end
  local x = expiry[id]
  if x == nil then
    local score = redis.call("ZSCORE", hexp, id)
    x = score and tonumber(score) or false
    expiry[id] = x
  end
  return not (x and x <= now)
end

-- Every resource's longest entry in one call.
local fields = {}
for i = 1, n do
  fields[i] = "r:" .. ARGV[1 + i]
end
local longests = redis.call("HMGET", occlen, unpack(fields))
for i = 1, n do
  longests[i] = tonumber(longests[i] or "0") or 0
end

local out = {}
local a = n + 2
while a <= #ARGV do
  local s, e, now, k = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  for j = 1, k do
    local i = tonumber(ARGV[a + 3 + j])
    -- Scores are ends: entries ending after s, up to those starting before e.
    local rows = redis.call("ZRANGEBYSCORE", KEYS[i], "(" .. fmt(s), fmt(e + longests[i]), "WITHSCORES")
    local parts, p = {}, 0
    for r = 1, #rows, 2 do
      local m = rows[r]
      if byte(m, 1) == B then
        -- "b|<start>|0|0|<source>|<end>": the start as written, the score (the end) as Redis
        -- wrote it; the gateway drops those starting at or after the end of what it asked.
        p = p + 1
        parts[p] = sub(m, 3, find(m, "|", 3, true) - 1) .. "," .. rows[r + 1] .. ",0"
      else
        local _, ms, mu, mx, id = parse_member(m)
        if ms < e and is_live(id, mx, now) then
          p = p + 1
          parts[p] = fmt(ms) .. "," .. fmt(tonumber(rows[r + 1])) .. "," .. fmt(mu)
        end
      end
    end
    out[#out + 1] = "[" .. concat(parts, ",") .. "]"
  end
  a = a + 4 + k
end
return "[" .. concat(out, ",") .. "]"
