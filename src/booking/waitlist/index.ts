/** The waitlist (SchCP §5.9): join, read, leave, the freed-time offer and its sweep. */
export { joinWaitlist } from "./join.js";
export { leaveWaitlist, readWaitlistEntry } from "./read.js";
export { sweepWaitlist, type WaitlistSweep } from "./sweep.js";
export type { WaitlistEntryView } from "./entry.js";
