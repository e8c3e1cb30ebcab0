/**
 * What every edge's discovery states about a host in the core's terms: how it answers a new
 * booking. The SchCP documents themselves (SchCP §2) are the SchCP edge's
 * (src/edges/schcp/discovery/).
 */
export { confirmationOf } from "./confirmation.js";
