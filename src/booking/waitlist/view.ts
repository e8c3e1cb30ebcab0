/**
 * A waitlist entry as the core answers it (SchCP §5.9): its own module, holding types only, so
 * api.ts can name it without reaching the waitlist's use cases.
 */
import type { WaitlistStatus } from "../../holds/waitlist-port.js";
import type { Place } from "../contract.js";

/** An entry as every edge reads it (the SchCP edge writes the WaitlistEntry wire shape from it). */
export interface WaitlistEntryView {
  readonly entryId: string;
  readonly hostId: string;
  readonly status: WaitlistStatus;
  readonly serviceId: string;
  /** Epoch ms, half-open. */
  readonly window: { readonly start: number; readonly end: number };
  readonly createdAt: number;
  /** 1-based place in the line while waiting. */
  readonly position?: number;
  readonly holdId?: string;
  readonly principal: string;
  readonly agentKey: string;
  readonly callbackUrl?: string;
  readonly place?: Place;
  readonly partySize: number;
}
