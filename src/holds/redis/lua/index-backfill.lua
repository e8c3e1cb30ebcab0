-- backfillBookingIndex, one batch: bookings kept before the indexes existed (no order yet)
-- get their order from their creation time, their time index and the core's entry for the
-- payload it read. A booking whose payload changed since is left for the caller to read again.
-- KEYS[1] bx:meta. ARGV: base, then per booking: id, payload read, index entry JSON or "".
-- Reply: {indexed, changed}.
local base = ARGV[1]
local todo = {}
for i = 2, #ARGV, 3 do
  local id = ARGV[i]
  local b = hgetall(base .. "bk:" .. id)
  if b ~= nil and b.ox == nil then
    todo[#todo + 1] = { id = id, b = b, pl = ARGV[i + 1], ix = bx_entry(ARGV[i + 2]), al = decode_list(b.al) }
  end
end
local indexed, changed = 0, 0
for _, t in ipairs(todo) do
  if t.b.pl ~= t.pl then
    changed = changed + 1
  else
    -- Its creation time, after any booking already ordered in the same millisecond.
    local order = tonumber(t.b.ca or "0") * 1024
    while redis.call("ZCOUNT", base .. "bx:all", fmt(order), fmt(order)) > 0 do
      order = order + 1
    end
    bx_order(base, t.id, t.b, order)
    bx_place(base, t.id, t.b, t.al)
    bx_describe(base, base .. "bk:" .. t.id, t.id, t.b, t.ix)
    indexed = indexed + 1
  end
end
return { indexed, changed }
