-- beginConfirm: fence the hold for an upstream create; it cannot lapse until the lease
-- ends, and then only a reconciler takes it over (claim-stuck.lua).
-- KEYS[1] hold, KEYS[2] hexp, KEYS[3] lease. ARGV: base, holdId, now, leaseUntil, retentionMs.
-- Reply: {"ok", "", hold, fence} | {"no", reason, hold?}.
local base, id, now, lease_until, retention = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local h, refused = hold_for(KEYS[1], base, id, now, "held", retention)
if h == nil then
  return refused
end
local fence = tonumber(h.fe or "0") + 1
local ik, mk = decode_list(h.ik), decode_list(h.mk)
hset(KEYS[1], h, { s = "confirming", fe = fmt(fence), lu = lease_until })
redis.call("ZREM", KEYS[2], id)
redis.call("ZADD", KEYS[3], lease_until, id)
rescore(id, ik, mk, INF)
return reply_hold("ok", "", h, fence)
