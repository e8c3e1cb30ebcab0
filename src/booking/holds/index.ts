/** Holds (SchCP §5.2, §5.4): the shared hold engine and the three hold routes' use cases. */
export { createHold } from "./create-hold.js";
export { decodeHoldPayload } from "./payload.js";
export { candidateResources, hoursIndexFor, planSlot, workingResources, type SlotPlan } from "./plan.js";
export { reservesAt } from "./reserve.js";
export { findService, findChosenResource, upstreamRefusal, type ServiceLookup } from "./lookup.js";
export { alternativeAt } from "./alternatives.js";
