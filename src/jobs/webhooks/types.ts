import type { Outbox } from "../../booking/api.js";
import type { JobCounts } from "../job-counts.js";

/**
 * The Outbox port (src/booking/api.ts) plus a lifecycle. enqueue never rejects: an event
 * that cannot be queued is logged (webhooks are an optimization, SchCP §5.8: agents can
 * poll), so a host's approve or cancel never fails because of its notification.
 */
export interface WebhookOutbox extends Outbox {
  /** Stops taking events, finishes (or drains) what is in flight, releases connections. */
  close(): Promise<void>;
  /** The deliveries it holds, by state (metrics). */
  jobCounts?(): Promise<JobCounts>;
}
