/**
 * Availability for every edge: `openings`, the starts a hold would be granted at, bounded by
 * the query window (SchCP POST /availability is built over it in ../schcp/availability.ts).
 */
export {
  DEFAULT_GRANULARITY_MS,
  MAX_CANDIDATE_STARTS,
  MAX_WINDOW_MS,
  parseQueryWindow,
  type QueryWindow,
  type WindowQuery,
} from "./window.js";
export { allocationViews } from "./occupancy.js";
export type { OccupancyMap } from "../../holds/port.js";
export { openings, type Openings, type OpeningsQuery } from "./openings.js";
