/** The waitlist (SchCP §5.9): join, read, leave, the freed-time offer and its sweep. */
export { joinWaitlist, MAX_WAITLIST_WINDOW_MS, type JoinWaitlistParams } from "./join.js";
export { leaveWaitlist, readWaitlistEntry } from "./read.js";
export { MAX_OFFERS_PER_FREED_TIME, offerFreedTime, type FreedAt, type FreedTimeResult } from "./offer.js";
export { sweepWaitlist, type WaitlistSweep } from "./sweep.js";
export { entryView, type WaitlistEntryView } from "./entry.js";
