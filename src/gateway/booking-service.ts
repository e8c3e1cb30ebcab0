/**
 * The booking service the gateway runs: the neutral core (src/booking/core.ts) with the SchCP
 * edge's hooks installed and its use cases (SchcpHostApi) beside the core's. The hooks are
 * always installed: a SchCP booking gets its receipt and webhooks whichever edge or operator
 * action changes it (docs/ARCHITECTURE.md, One core every edge).
 */
import type { BookingDeps } from "../booking/api.js";
import { createBookingCore, type BookingCoreApi, type BookingMaintenance } from "../booking/core.js";
import { SCHCP } from "../edges/schcp/attachment.js";
import { schcpEdgeWith } from "../edges/schcp/edge.js";
import type { SchcpEdgeOptions } from "../edges/schcp/key-app.js";
import { schcpHostApi, type SchcpHostApi } from "../edges/schcp/host-api.js";

export type { BookingMaintenance };

export type BookingService = SchcpHostApi & BookingCoreApi;

/** `schcp`: what the SchCP edge needs beside the core (its key apps for shared booking limits, §3.3). */
export function createBookingService(deps: BookingDeps, schcp: SchcpEdgeOptions = {}): BookingService {
  const core = createBookingCore({ ...deps, edges: { [SCHCP]: schcpEdgeWith(schcp), ...deps.edges } });
  return { ...schcpHostApi(core.deps, core.engine, schcp), ...core.api };
}
