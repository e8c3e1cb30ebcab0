/** Changes of a booking (§5.7, §5.8, §5.11): the change hold and the atomic move, for every edge. */
export { placeChangeHold } from "./change-hold.js";
export { applyMove } from "./apply-move.js";
