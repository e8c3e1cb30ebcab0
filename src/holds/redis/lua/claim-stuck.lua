-- claimStuckConfirming: confirming holds whose lease ended (leaseUntil <= now), re-fenced
-- to the caller with a new lease, oldest lease first. Their time stays allocated: a
-- reconciler asks the upstream what happened instead of freeing it blindly.
-- KEYS[1] lease. ARGV: base, now, leaseUntil, limit.
-- Reply: {holdId, hold, fence, holdId, hold, fence, …}.
local base, now, lease_until, limit = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local out = {}
if limit <= 0 then
  return out
end
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now, "LIMIT", 0, limit)
for _, id in ipairs(ids) do
  local key = hold_key(base, id)
  local h = hgetall(key)
  if h ~= nil and h.s == "confirming" then
    local fence = tonumber(h.fe) + 1
    hset(key, h, { fe = fmt(fence), lu = lease_until })
    redis.call("ZADD", KEYS[1], lease_until, id)
    out[#out + 1] = id
    out[#out + 1] = flatten(h)
    out[#out + 1] = fence
  else
    redis.call("ZREM", KEYS[1], id)
  end
end
return out
