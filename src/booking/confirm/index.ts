/** The two-phase confirm against the upstream, for every edge (SchCP §5.3; direct bookings). */
export { CONFIRM_LEASE_MS, fenceHold, settleUpstream, type UpstreamExtras } from "./confirm.js";
export { holdStateRefusal } from "./checks.js";
export { upstreamKey } from "./record-booking.js";
