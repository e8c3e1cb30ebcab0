/** Holds (SchCP §5.2, §5.4): the shared hold engine and the three hold routes' use cases. */
export { createHold, type CreatedHold } from "./create-hold.js";
export type { CreateHoldParams } from "./params.js";
export { decodeHoldOrThrow, decodeHoldPayload, encodeHoldPayload } from "./payload.js";
export {
  candidateResources,
  hoursIndexFor,
  planSlot,
  workingResources,
  type PlanOptions,
  type SlotPlan,
} from "./plan.js";
export { reservesAt } from "./reserve.js";
export { findService, findChosenResource, upstreamRefusal, type ServiceLookup } from "./lookup.js";
export { ALTERNATIVE_STEP_MS, alternativeAt, alternativeStartsFor } from "./alternatives.js";
export { MAX_ALTERNATIVES } from "./outcome.js";
export { grantTtl, type TtlGrant } from "./ttl.js";
