/**
 * What the synthetic platform's operations share, and the shape of their answers before
 * connector.ts turns them into a ConnectorResult with upstream metadata.
 */
import type { Clock } from "../../protocol/clock.js";
import type { ConnectorErrorCode } from "../port.js";
import type { SyntheticBackend } from "./backend.js";
import type { SyntheticMessageSink } from "./messages.js";
import type { SyntheticScenario } from "./scenario.js";
import type { VerificationSendLimit } from "./send-limit.js";
import type { Err, Ok } from "../../protocol/result.js";

export interface SyntheticContext {
  readonly scenario: SyntheticScenario;
  /** The organization id: the namespace of this platform's data in the backend. */
  readonly hostId: string;
  readonly backend: SyntheticBackend;
  readonly clock: Clock;
  /** Where verification messages go; absent: the platform delivers them nowhere observable. */
  readonly messages?: SyntheticMessageSink;
  /** Verification sends per contact (the connector option, else the scenario's, else the default). */
  readonly sendLimit: VerificationSendLimit;
}

/** What the platform refuses with. */
interface SyntheticRefusal {
  readonly code: ConnectorErrorCode;
  readonly message: string;
  readonly verificationMethod?: "sms" | "email";
  /** rate_limited: the Retry-After the platform answers with. */
  readonly retryAfterMs?: number;
}

/** The platform's answer: a value with its HTTP status, or a refusal. */
export type Answer<T> = (Ok<T> & { readonly status: 200 | 201 }) | Err<SyntheticRefusal>;

export const answer = <T>(value: T, status: 200 | 201 = 200): Answer<T> => ({ ok: true, value, status });

export const refuse = <T>(code: ConnectorErrorCode, message: string): Answer<T> => ({
  ok: false,
  error: { code, message },
});

/**
 * Optimistic writes (backend.ts) retry on a version conflict; this many tries without
 * winning means the platform is overloaded, and the caller hears "unavailable".
 */
export const MAX_WRITE_ATTEMPTS = 32;

export const busy = <T>(): Answer<T> =>
  refuse("unavailable", "the platform is too busy to take the change; try again");
