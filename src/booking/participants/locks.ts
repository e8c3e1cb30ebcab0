/**
 * §5.10 Locks: "A tentative booking counts against the booker's agent cap and the new-guest
 * pool (§7.2) like a hold", and a booker vouched for by an attester "keeps drawing on that
 * attester's pool while the booking is tentative" (§7.5).
 *
 * The core's part is the booking's index status (bookings/index-entry.ts): a booking whose
 * status is "tentative" is locked. The count is the hold store's, in the one atomic step that
 * places a hold (HoldStore.placeHold), so a confirm that makes a booking tentative and a hold
 * racing it never both fit under a cap's last unit: MemoryHoldStore keeps the tentative
 * bookings with the pool their hold drew on (holds/memory/place-hold.ts), RedisHoldStore
 * keeps each in its hold's live counts while tentative (holds/redis/lua/booking-index.lua
 * bx_locks). The rest of the Locks rule (no credit until final, a decline a released hold, a
 * lapse an expired one) is in respond.ts, lapse.ts and operator/approve.ts.
 */
export {};
