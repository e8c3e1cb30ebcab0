-- abortConfirm: the upstream create did not happen. "release" frees the time; "held"
-- returns the hold until its original expiry (at once expired if that has passed).
-- KEYS[1] hold, KEYS[2] hexp, KEYS[3] lease.
-- ARGV: base, holdId, fence, disposition, now, retentionMs.
-- Reply: {"ok", "", hold} | {"no", reason, hold?}.
local base, id, fence, disposition = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local now, retention = tonumber(ARGV[5]), tonumber(ARGV[6])
local h, refused = hold_for(KEYS[1], base, id, now, "confirming", retention, fence)
if h == nil then
  return refused
end
if disposition == "release" then
  end_hold(base, id, h, "released", fmt(now), retention)
  return reply_hold("ok", "", h)
end
local ik, mk = decode_list(h.ik), decode_list(h.mk)
redis.call("ZREM", KEYS[3], id)
hset(KEYS[1], h, { s = "held" })
hdel(KEYS[1], h, "lu")
if tonumber(h.ex) <= now then
  expire_hold(base, id, h, retention)
else
  -- A waitlist offer whose lapse waits for the line step is kept out of hexp (offer-freed.lua).
  if h.ln ~= "1" then
    redis.call("ZADD", KEYS[2], h.ex, id)
  end
  rescore(id, ik, mk, h.ex)
end
return reply_hold("ok", "", h)
