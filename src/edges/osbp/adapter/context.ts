/** What the adapter's methods share: the booking core, the host's catalog, the stores. */
import type { DirectBookingApi } from "../../../booking/direct/index.js";
import type { Catalog } from "../../../booking/catalog.js";
import type { Logger } from "../../../protocol/logger.js";
import type { Result } from "../../../protocol/result.js";
import type { ApprovalGate, Problem } from "../../../protocol/osbp/index.js";
import type { OsbpIdempotencyStore } from "../idempotency/port.js";
import type { ServiceDefaults } from "./catalog-facts.js";
import type { SchedulePlace } from "./slots.js";
import type { Clock } from "../../../protocol/clock.js";

export interface AdapterContext {
  readonly core: DirectBookingApi;
  readonly hostId: string;
  readonly idempotency: OsbpIdempotencyStore;
  readonly clock: Clock;
  readonly gate: ApprovalGate;
  readonly defaults: ServiceDefaults;
  readonly logger: Pick<Logger, "warn" | "error">;
  /** The host's catalog as the core reads it, or the Problem when the host is gone. */
  catalog(): Result<Catalog, Problem>;
  /** The host's name and location for Slots (call after catalog() answered ok). */
  place(): SchedulePlace;
}
