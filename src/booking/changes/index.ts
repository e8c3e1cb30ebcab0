/** Changes (SchCP §5.7, §5.8, §5.11): change offers, reschedule, answers to host proposals. */
export { changeOffer } from "./change-offer.js";
export { reschedule } from "./reschedule.js";
export { proposalResponse } from "./proposal-response.js";
export type { ChangeHoldParams, CreateHold } from "./hold-engine.js";
