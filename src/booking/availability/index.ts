/**
 * Availability for every edge: `openings`, the starts a hold would be granted at, bounded by
 * the query window (SchCP POST /availability is built over it in ../schcp/availability.ts).
 */
export { MAX_CANDIDATE_STARTS } from "./window.js";
export type { OccupancyMap } from "../../holds/port.js";
export { openings, type OpeningsQuery } from "./openings.js";
