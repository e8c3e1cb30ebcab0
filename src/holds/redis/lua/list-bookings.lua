-- listBookings: a page of the host's bookings, newest first, from bx:all or bx:st:<status>
-- (booking-index.lua), resuming below the cursor (an order; orders are unique). With a time
-- filter a page reads at most `budget` index entries, so it may come back short with a cursor.
-- Read-only.
-- KEYS[1] the index. ARGV: base, cursor or "", limit, from or "", to or "", budget.
-- Reply: {next cursor or "", id, fields, id, fields, ...}.
local base, cursor, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local from, to, budget = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local max = cursor == "" and "+inf" or "(" .. cursor
local out = { "" }
local found, read, last = 0, 0, nil
while true do
  local batch = redis.call("ZREVRANGEBYSCORE", KEYS[1], max, "-inf", "WITHSCORES", "LIMIT", 0, limit)
  if #batch == 0 then
    return out
  end
  for i = 1, #batch, 2 do
    if found >= limit or read >= budget then
      out[1] = last
      return out
    end
    local id = batch[i]
    last = fmt(tonumber(batch[i + 1]))
    read = read + 1
    local fields = redis.call("HGETALL", base .. "bk:" .. id)
    if #fields > 0 then
      local st = nil
      for j = 1, #fields, 2 do
        if fields[j] == "st" then
          st = tonumber(fields[j + 1])
        end
      end
      if (from == nil or st >= from) and (to == nil or st < to) then
        out[#out + 1] = id
        out[#out + 1] = fields
        found = found + 1
      end
    end
  end
  max = "(" .. last
end
