/** POST /availability (SchCP §5.1): bounded, filtered to where a hold would be granted. */
export { availability } from "./availability.js";
export {
  DEFAULT_GRANULARITY_MS,
  MAX_CANDIDATE_STARTS,
  MAX_WINDOW_MS,
  parseQueryWindow,
  type QueryWindow,
} from "./window.js";
export { allocationViews, type OccupancyMap } from "./occupancy.js";
export { openings, type Openings, type OpeningsQuery } from "./openings.js";
