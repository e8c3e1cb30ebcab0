/**
 * The synthetic connector: a credential-free, deterministic booking PLATFORM (kind
 * "platform", SchCP §10 "Platform connector") that powers the embedded default, the demo
 * and the tests. It has its own services, staff and rooms, hours, prices with tax and its
 * own appointment store; it computes its own availability and takes bookings, as strictly
 * as a real upstream.
 *
 * Every operation goes through `call`, the synthetic stand-in for connectors/http.ts: the
 * simulated latency, the fault plan (a fault replaces the answer, or follows the work when
 * afterCommit), and the UpstreamMeta of the answer. Its own store failing is the platform
 * answering 503: nothing is thrown past the port.
 */
import type { Clock } from "../../protocol/clock.js";
import type {
  BookingPort,
  Catalog,
  CatalogSource,
  Connector,
  ConnectorResult,
  Interval,
  SlotSource,
  UpstreamCustomer,
  VerificationPort,
} from "../port.js";
import { MemorySyntheticBackend, type SyntheticBackend } from "./backend.js";
import { cancelBooking, moveBooking, setStatus } from "./changes.js";
import { answer, refuse, type Answer, type SyntheticContext } from "./context.js";
import { createBooking } from "./create.js";
import { FaultPlan, type FaultRule, type SyntheticCall } from "./faults.js";
import type { SyntheticMessageSink } from "./messages.js";
import {
  findAvailability,
  findBookingByIdempotencyKey,
  getBooking,
  readBusy,
  type BusyRead,
} from "./reads.js";
import { catalogOf, validateScenario, type SyntheticScenario } from "./scenario.js";
import { DEFAULT_VERIFICATION_SEND_LIMIT, isSendLimit, type VerificationSendLimit } from "./send-limit.js";
import { callLine, SYNTHETIC_PLATFORM, UpstreamRecorder } from "./upstream.js";
import { sendVerification, verificationMethodOf, verifyCode } from "./verification.js";

export interface SyntheticConnectorOptions {
  readonly scenario: SyntheticScenario;
  readonly clock: Clock;
  /** The appointment store; default a fresh MemorySyntheticBackend. Share one to share a platform. */
  readonly backend?: SyntheticBackend;
  /** Faults to inject; default an empty plan (reachable as connector.faults). */
  readonly faults?: FaultPlan;
  /** Simulated network time before every answer, ms (default 0). */
  readonly latencyMs?: number;
  /** How long a timeout fault hangs unless the rule says (default 2,000 ms). */
  readonly timeoutMs?: number;
  /** Receives every verification message the platform sends (the customer's phone or inbox). */
  readonly messages?: SyntheticMessageSink;
  /** Verification sends per contact; default the scenario's, else 3 per 10 minutes. */
  readonly verificationSendLimit?: VerificationSendLimit;
}

/** A platform with every platform capability (calendar sync and event writes it has not). */
export interface SyntheticConnector extends Connector {
  readonly kind: "platform";
  readonly catalog: CatalogSource;
  readonly slots: SlotSource;
  readonly bookings: BookingPort;
  readonly verification: VerificationPort;
  readonly scenario: SyntheticScenario;
  readonly faults: FaultPlan;
  /**
   * The platform's appointments as busy time (its bookings search): not a port capability,
   * for tests and tools that look at the platform's own records.
   */
  readBusy(range: Interval, resourceIds: readonly string[]): Promise<ConnectorResult<BusyRead>>;
  /** Test hook: the code most recently sent to this phone or email and not yet used. */
  lastCodeFor(contact: string): Promise<string | undefined>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Throws TypeError for an invalid scenario (a programmer error: check config with validateScenario). */
export function createSyntheticConnector(opts: SyntheticConnectorOptions): SyntheticConnector {
  const valid = validateScenario(opts.scenario);
  if (!valid.ok)
    throw new TypeError(`invalid synthetic scenario at ${valid.error.field}: ${valid.error.message}`);
  const { scenario, clock } = opts;
  if (opts.verificationSendLimit !== undefined && !isSendLimit(opts.verificationSendLimit))
    throw new TypeError("verificationSendLimit is { maxSends ≥ 1, windowMs ≥ 1000 }, whole numbers");
  const ctx: SyntheticContext = {
    scenario,
    hostId: scenario.organization.id,
    backend: opts.backend ?? new MemorySyntheticBackend(),
    clock,
    sendLimit:
      opts.verificationSendLimit ?? scenario.verificationSendLimit ?? DEFAULT_VERIFICATION_SEND_LIMIT,
    ...(opts.messages === undefined ? {} : { messages: opts.messages }),
  };
  const faults = opts.faults ?? new FaultPlan();
  const latencyMs = opts.latencyMs ?? 0;
  const timeoutMs = opts.timeoutMs ?? 2000;
  const recorder = new UpstreamRecorder();

  const faultError = async (line: string, rule: FaultRule) => {
    switch (rule.fault) {
      case "timeout":
        await sleep(rule.delayMs ?? timeoutMs);
        return recorder.error(line, "timeout", "the platform did not answer in time");
      case "rate_limited":
        return recorder.error(line, "rate_limited", "too many requests", {
          retryAfterMs: (rule.retryAfterSeconds ?? 2) * 1000,
        });
      case "unavailable":
        return recorder.error(line, "unavailable", "the platform is unavailable", {
          status: rule.status ?? 503,
        });
      case "slot_taken":
        return recorder.error(line, "slot_taken", "that time is no longer available");
      case "unauthorized":
        return recorder.error(line, "unauthorized", "the access token was revoked or has expired");
      case "verification_required":
        return recorder.error(line, "verification_required", "the customer must be verified first", {
          verificationMethod: verificationMethodOf(ctx) ?? "sms",
        });
    }
  };

  async function call<T>(info: SyntheticCall, work: () => Promise<Answer<T>>): Promise<ConnectorResult<T>> {
    const line = callLine(info);
    if (latencyMs > 0) await sleep(latencyMs);
    const fault = faults.take(info);
    if (fault !== undefined && fault.afterCommit !== true) return faultError(line, fault);
    let outcome: Answer<T>;
    try {
      outcome = await work();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      outcome = refuse("unavailable", `the platform's own store failed: ${detail}`);
    }
    if (fault !== undefined) return faultError(line, fault);
    if (outcome.ok) return recorder.ok(line, outcome.status, outcome.value);
    const { code, message, verificationMethod, retryAfterMs } = outcome.error;
    const extra = {
      ...(verificationMethod === undefined ? {} : { verificationMethod }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
    return recorder.error(line, code, message, extra);
  }

  return {
    kind: "platform",
    platform: SYNTHETIC_PLATFORM,
    scenario,
    faults,

    catalog: {
      read: () => call<Catalog>({ operation: "catalog" }, () => Promise.resolve(answer(catalogOf(scenario)))),
    },
    slots: {
      find: (query) => call({ operation: "findAvailability", query }, () => findAvailability(ctx, query)),
    },
    bookings: {
      meetingsTentative: true,
      create: (request) =>
        call({ operation: "createBooking", create: request, idempotencyKey: request.idempotencyKey }, () =>
          createBooking(ctx, request),
        ),
      findByIdempotencyKey: (key) =>
        call({ operation: "findBookingByIdempotencyKey", idempotencyKey: key }, () =>
          findBookingByIdempotencyKey(ctx, key),
        ),
      get: (upstreamId) => call({ operation: "getBooking", upstreamId }, () => getBooking(ctx, upstreamId)),
      setStatus: (upstreamId, status) =>
        call({ operation: "setStatus", upstreamId, status }, () => setStatus(ctx, upstreamId, status)),
      move: (upstreamId, change) =>
        call({ operation: "moveBooking", upstreamId }, () => moveBooking(ctx, upstreamId, change)),
      cancel: (upstreamId, reason) =>
        call({ operation: "cancelBooking", upstreamId }, () => cancelBooking(ctx, upstreamId, reason)),
    },
    verification: {
      send: (customer: UpstreamCustomer, purpose: string) =>
        call({ operation: "sendVerification" }, () => sendVerification(ctx, customer, purpose)),
      verify: (customer: UpstreamCustomer, purpose: string, code: string) =>
        call({ operation: "verifyCode" }, () => verifyCode(ctx, customer, purpose, code)),
    },

    readBusy: (range, resourceIds) =>
      call({ operation: "readBusy" }, () => readBusy(ctx, range, resourceIds)),

    async lastCodeFor(contact) {
      return (await ctx.backend.getCode(ctx.hostId, contact.trim()))?.code;
    },
  };
}
