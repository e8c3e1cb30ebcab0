-- setWaitlistStatus (§5.9): compare-and-set of an entry's status; a final status frees its
-- counts. KEYS[1] entry. ARGV: base, id, to, from (comma-separated).
-- Reply: {"ok", entry} | {"no", reason}.
local base, id, to, from = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local e = hgetall(KEYS[1])
if e == nil then
  return { "no", "not_found" }
end
local allowed = false
for s in string.gmatch(from, "[^,]+") do
  if s == e.s then
    allowed = true
  end
end
if not allowed then
  return { "no", "invalid_state" }
end
if to == "booked" or to == "left" or to == "lapsed" or to == "expired" then
  wl_finish(base, id, e, to)
else
  hset(KEYS[1], e, { s = to })
end
return { "ok", flatten(e) }
