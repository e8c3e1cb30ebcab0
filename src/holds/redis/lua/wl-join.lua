-- joinWaitlist (§5.9): max_entries_per_agent, each mandate link's max_bookings (holds,
-- bookings and waiting entries count alike, §7.1) and the entry, in one step.
-- KEYS: 1 entry, 2 wlq, 3 wla:<agent>, 4 wlseq, 5.. one per mandate link.
-- ARGV: base, entry JSON {id, svc, ag, pr, ws, we, un, now, max, md:[max...]}, mandates JSON, payload.
-- Reply: {"ok", seq} | {"no", reason, limit}.
local base, q, md_json, payload = ARGV[1], cjson.decode(ARGV[2]), ARGV[3], ARGV[4]
if redis.call("EXISTS", KEYS[1]) == 1 then
  return { "no", "entry_id_in_use", "0" }
end
if redis.call("ZCARD", KEYS[3]) >= q.max then
  return { "no", "waitlist_limit", fmt(q.max) }
end
local mk = {}
for i, max in ipairs(q.md) do
  local k = KEYS[4 + i]
  if redis.call("ZCOUNT", k, "(" .. fmt(q.now), INF) >= max then
    return { "no", "mandate_limit", fmt(max) }
  end
  mk[i] = k
end
local seq = redis.call("INCR", KEYS[4])
local e = {
  s = "waiting", svc = q.svc, ag = q.ag, pr = q.pr, ws = fmt(q.ws), we = fmt(q.we), ca = fmt(q.now),
  sq = fmt(seq), un = fmt(q.un), md = md_json, mk = cjson.encode(mk), pl = payload,
}
redis.call("HSET", KEYS[1], unpack(flatten(e)))
redis.call("ZADD", KEYS[2], seq, q.id)
redis.call("ZADD", KEYS[3], q.un, q.id)
for _, k in ipairs(mk) do
  redis.call("ZADD", k, q.un, "w:" .. q.id)
end
return { "ok", fmt(seq) }
