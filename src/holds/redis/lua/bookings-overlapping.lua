-- bookingsOverlapping: active bookings holding any of the resources for time overlapping
-- [start, end), from bx:res:<rid> (by start) and the longest booking each resource has held
-- (bx:meta dur:<rid>): only starts in (start - longest, end) can reach into the range.
-- Read-only.
-- KEYS[1] bx:meta. ARGV: base, start, end, resourceId, ...
-- Reply: {id, fields, id, fields, ...}.
local base, s, e = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local out, seen = {}, {}
for i = 4, #ARGV do
  local rid = ARGV[i]
  local longest = tonumber(redis.call("HGET", KEYS[1], "dur:" .. rid) or "0")
  local ids = redis.call("ZRANGEBYSCORE", base .. "bx:res:" .. rid, "(" .. fmt(s - longest), "(" .. fmt(e))
  for _, id in ipairs(ids) do
    if not seen[id] then
      seen[id] = true
      local b = hgetall(base .. "bk:" .. id)
      if b ~= nil and b.s == "active" and tonumber(b.st) < e and tonumber(b.en) > s then
        out[#out + 1] = id
        out[#out + 1] = flatten(b)
      end
    end
  end
end
return out
