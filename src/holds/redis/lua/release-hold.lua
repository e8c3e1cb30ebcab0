-- releaseHold (§5.4, §7.2). KEYS[1] hold. ARGV: base, holdId, now, retentionMs.
-- Reply: {"ok", "", hold, changed, countsAsExpiry} | {"no", reason, hold?}.
local base, id, now, retention = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local h = hgetall(KEYS[1])
if h == nil then
  return { "no", "not_found" }
end
if is_lapsed(h, now) then
  -- It lapsed before this release: an expiry (reported once), not a release.
  expire_hold(base, id, h, retention)
  return reply_hold("ok", "", h, 0, 0)
end
if h.s == "held" then
  -- The last fifth of the TTL counts as an expiry for reputation (§7.2).
  -- now >= expiresAt - ttl/5, in integers: 5*now >= 5*expiresAt - ttl.
  local late = 5 * now >= 5 * tonumber(h.ex) - tonumber(h.ttl)
  end_hold(base, id, h, "released", fmt(now), retention)
  return reply_hold("ok", "", h, 1, late and 1 or 0)
end
if h.s == "released" or h.s == "expired" then
  return reply_hold("ok", "", h, 0, 0)
end
return reply_hold("no", state_refusal(h), h)
