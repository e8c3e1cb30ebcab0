-- beginIdempotent (§9.1). KEYS[1] idem key.
-- ARGV: requestHash, now, lockMs, newFence, gcMs (how long Redis keeps a lock key).
-- Reply: {"replay"|"conflict", record} | {"in_progress"} | {"new", fence}.
-- Judged by the caller's clock (`now`); Redis expiry only collects garbage.
local hash, now, lock_ms, fence, gc_ms = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local r = hgetall(KEYS[1])
if r ~= nil and r.st == "done" and tonumber(r.ku) > now then
  if r.rh == hash then
    return { "replay", flatten(r) }
  end
  return { "conflict", flatten(r) }
end
if r ~= nil and r.st == "lock" and tonumber(r.lu) > now then
  return { "in_progress" }
end
redis.call("DEL", KEYS[1])
redis.call("HSET", KEYS[1], "st", "lock", "fe", fence, "lu", fmt(now + lock_ms))
redis.call("PEXPIRE", KEYS[1], gc_ms)
return { "new", fence }
