/** The pure §5.2 "who, when and where" rules; each refusal names its policy in basis (§9.2). */
export { bookingRefusal, notFound, withAttestRemedy, withContactRemedy } from "./refusal.js";
export { checkAccess } from "./access.js";
export { checkEligibility } from "./eligibility.js";
export {
  checkHorizon,
  checkMaxAdvance,
  checkMinNotice,
  checkReleaseSchedule,
  checkWhen,
  releaseInstant,
} from "./booking-window.js";
export { checkPlace } from "./place.js";
export { checkFreeTextNotes } from "./free-text.js";
export { checkPartySize, partyCapacity } from "./party-size.js";
export { spanZoneView, weekdayOf, zoneView, type ZoneView } from "./zone-view.js";
