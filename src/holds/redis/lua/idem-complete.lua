-- completeIdempotent (§9.1): stores the response for the fence that holds the lock.
-- KEYS[1] idem key. ARGV: fence, requestHash, principal ("" with ARGV[4] = "0" for null),
-- principalPresent, status, body, now, retainMs. Reply: 1 stored | 0 not the lock holder.
local r = hgetall(KEYS[1])
if r == nil or r.st ~= "lock" or r.fe ~= ARGV[1] then
  return 0
end
local now, retain = tonumber(ARGV[7]), tonumber(ARGV[8])
redis.call("DEL", KEYS[1])
local fields = { "st", "done", "rh", ARGV[2], "rs", ARGV[5], "rb", ARGV[6], "ca", ARGV[7], "ku", fmt(now + retain) }
if ARGV[4] == "1" then
  fields[#fields + 1] = "pr"
  fields[#fields + 1] = ARGV[3]
end
redis.call("HSET", KEYS[1], unpack(fields))
redis.call("PEXPIRE", KEYS[1], retain)
return 1
