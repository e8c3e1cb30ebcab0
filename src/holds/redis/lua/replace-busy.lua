-- replaceBusy (§10): the busy time one source (a calendar sync, a platform's own
-- bookings) reports for a resource replaces what that source reported before. A busy
-- block fills the resource's whole capacity and is not an agent's (walk-in reserve).
-- KEYS[1] occ:<rid>, KEYS[2] busy:<rid>. ARGV: base, resourceId, source, JSON [[start, end], …].
local base, rid, source = ARGV[1], ARGV[2], ARGV[3]
local intervals = decode_list(ARGV[4])
for _, m in ipairs(decode_list(redis.call("HGET", KEYS[2], source) or "")) do
  redis.call("ZREM", KEYS[1], m)
end
local members = {}
local len = 0
for _, iv in ipairs(intervals) do
  local s, e = fmt(iv[1]), fmt(iv[2])
  local m = "b|" .. s .. "|0|0|" .. source .. "|" .. e
  redis.call("ZADD", KEYS[1], e, m)
  members[#members + 1] = m
  if iv[2] - iv[1] > len then
    len = iv[2] - iv[1]
  end
end
if #members == 0 then
  redis.call("HDEL", KEYS[2], source)
else
  redis.call("HSET", KEYS[2], source, cjson.encode(members))
  note_length(base, "r:" .. rid, len)
end
return #members
