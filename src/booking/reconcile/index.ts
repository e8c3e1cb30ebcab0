/** Settling confirms a crash left half-done, by asking the upstream, never creating (DESIGN.md). */
export { reconcileStuckConfirms } from "./reconcile.js";
export type { ReconcileOptions, ReconcileReport } from "./reconcile.js";
