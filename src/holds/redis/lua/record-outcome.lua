-- recordOutcome (§7.3): decays the subject's counts to now (half-life), then adds the
-- outcome at full weight; lifetime counts every outcome undecayed. Mirrors
-- src/holds/reputation.ts `record`: a now before the stored time decays nothing.
-- KEYS[1] rep:<kind>:<id>. ARGV: field (expired|confirmed|released), now, halfLifeMs.
local field, now, half_life = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local r = hgetall(KEYS[1]) or {}
local at = tonumber(r.at or ARGV[2])
local f = 1
if now > at then
  f = 2 ^ (-(now - at) / half_life)
  at = now
end
local counts = {
  expired = tonumber(r.expired or "0") * f,
  confirmed = tonumber(r.confirmed or "0") * f,
  released = tonumber(r.released or "0") * f,
}
counts[field] = counts[field] + 1
local g = "%.17g"
redis.call(
  "HSET", KEYS[1],
  "expired", string.format(g, counts.expired),
  "confirmed", string.format(g, counts.confirmed),
  "released", string.format(g, counts.released),
  "lifetime", fmt(tonumber(r.lifetime or "0") + 1),
  "at", fmt(at)
)
return 1
