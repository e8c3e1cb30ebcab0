-- placeHold (§4.1, §5.2, §7.1, §7.2): place.lua's place_hold, the one atomic step.
-- KEYS and ARGV: place.lua's header (ARGV: request JSON, owner JSON, payload).
return place_hold(cjson.decode(ARGV[1]), ARGV[2], ARGV[3], KEYS, nil)
