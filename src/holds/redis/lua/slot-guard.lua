-- Cluster only: scripts.ts puts this first, before any other command, in every hold store
-- script it loads on a Redis Cluster.
--
-- A script declares the keys it can name before it runs; the rest (a hold's count and
-- mandate keys, the occupancy of the resources in its record, a principal's bookings) it
-- finds in the records it reads. Redis routes a script by its declared keys only. While a
-- `redis-cli --cluster reshard` moves the host's slot key by key, those other keys can
-- already be on the other master: on the source an access to one fails the script at that
-- command, after the writes before it (Redis does not roll a script back), and on the target
-- (reached by ASK) a key not moved yet reads as missing. Either would leave a hold or a
-- booking half written.
--
-- So the script first touches two keys of its host's slot that never exist. Redis answers
-- that access with an error while the slot is migrating (on the source) or importing (on the
-- target, multi-key with keys missing): the script stops here, having written nothing, and
-- the runner calls it again until the move is over (scripts.ts). (While the cluster is down
-- it stops here too, and that error goes to the caller.) Once the slot is stable, every key
-- of the host is on this master.
do
  local tag = string.match(KEYS[1] or "", "^[^{]*{[^}]+}")
  if tag then
    redis.call("EXISTS", tag .. ":slot-guard:1", tag .. ":slot-guard:2")
  end
end
