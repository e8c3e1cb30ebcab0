-- abandonIdempotent (§9.1): nothing is stored; the lock is dropped if the fence holds it.
-- KEYS[1] idem key. ARGV: fence. Reply: 1 dropped | 0.
local r = hgetall(KEYS[1])
if r ~= nil and r.st == "lock" and r.fe == ARGV[1] then
  redis.call("DEL", KEYS[1])
  return 1
end
return 0
