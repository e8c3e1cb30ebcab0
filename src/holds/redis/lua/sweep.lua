-- sweepExpired: the active sweeper. Expires lapsed held holds, oldest expiry first, up
-- to `limit`, each reported once; then prunes occupancy that ended before pruneBefore.
-- KEYS[1] hexp. ARGV: base, now, limit, retentionMs, pruneBefore. Reply: expired count.
local base, now, limit, retention, prune_before = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local n = 0
if limit > 0 then
  local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", fmt(now), "LIMIT", 0, limit)
  for _, id in ipairs(ids) do
    local h = hgetall(hold_key(base, id))
    if h ~= nil and is_lapsed(h, now) then
      expire_hold(base, id, h, retention)
      n = n + 1
    else
      redis.call("ZREM", KEYS[1], id)
    end
  end
end
local fields = redis.call("HKEYS", base .. "occlen")
for _, f in ipairs(fields) do
  local kind, name = string.sub(f, 1, 1), string.sub(f, 3)
  local key = (kind == "r" and base .. "occ:" or base .. "agt:") .. name
  redis.call("ZREMRANGEBYSCORE", key, "-inf", "(" .. prune_before)
end
return n
