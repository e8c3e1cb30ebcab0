/** Settling confirms a crash left half-done, by asking the upstream, never creating (docs/ARCHITECTURE.md, Two-phase confirm and reconciliation). */
export { reconcileStuckConfirms } from "./reconcile.js";
export type { ReconcileOptions, ReconcileReport } from "./reconcile.js";
