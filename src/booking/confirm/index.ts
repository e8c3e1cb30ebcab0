/** POST /holds/{id}/confirm, two-phase against the upstream (SchCP §5.3). */
export { CONFIRM_LEASE_MS, confirmHold } from "./confirm.js";
export type { ConfirmResult } from "./confirm.js";
export { upstreamKey } from "./record-booking.js";
