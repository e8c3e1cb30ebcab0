/**
 * The conformance host as an OSBP BookingAdapter (OSBP "Adapter Contract"): the generic
 * connector adapter over a fresh synthetic platform for Bayview Reference Studio, in process,
 * with no accounts, secrets or network. A conformance kit drives it directly, or an OSBP
 * server wraps it; the hooks below let a kit play the customer (read the code the platform
 * "texted") and the merchant (inspect or fault the platform).
 */
import {
  createSyntheticConnector,
  FaultPlan,
  type SyntheticBackend,
  type SyntheticConnector,
  type SyntheticMessageSink,
  type VerificationSendLimit,
} from "../../connectors/synthetic/index.js";
import type { Logger } from "../../protocol/logger.js";
import type { ApprovalGate } from "../../protocol/osbp/index.js";
import { inProcessCore } from "../in-process-core.js";
import { createCoreAdapter, type CoreAdapter } from "../../edges/osbp/adapter/index.js";
import { MemoryIdempotencyStore } from "../../edges/osbp/idempotency/memory.js";
import type { OsbpIdempotencyStore } from "../../edges/osbp/idempotency/port.js";
import { CONFORMANCE_SERVICE_ROLES } from "./fixtures.js";
import { conformanceHostConfig, conformanceScenario } from "./host.js";
import { type Clock, systemClock } from "../../protocol/clock.js";

export interface ConformanceAdapterOptions {
  /** Epoch ms; default the system clock. */
  readonly clock?: Clock;
  /** The platform's store; default a fresh in-memory one (share one to share the platform). */
  readonly backend?: SyntheticBackend;
  /** Upstream faults to inject; reachable afterwards as adapter.connector.faults. */
  readonly faults?: FaultPlan;
  /** Receives every verification message the platform sends (the customer's phone). */
  readonly messages?: SyntheticMessageSink;
  /** Default a fresh MemoryIdempotencyStore. */
  readonly idempotency?: OsbpIdempotencyStore;
  /** Default the adapter's own (random secret, ten-minute tokens). */
  readonly approvalGate?: ApprovalGate;
  /** The platform's verification send limit; default 3 per contact per 10 minutes. */
  readonly verificationSendLimit?: VerificationSendLimit;
  /** Operator channel; default the adapter's (stderr). */
  readonly logger?: Pick<Logger, "warn" | "error">;
}

export interface ConformanceAdapter extends CoreAdapter {
  /** The synthetic platform behind the adapter (its faults, catalog, bookings). */
  readonly connector: SyntheticConnector;
  /** The code the platform most recently sent to this phone or email and not yet used. */
  lastVerificationCode(contact: string): Promise<string | undefined>;
}

/** The conformance host's adapter; service.describe and availability.find default to fixed_usd (the haircut). */
export function createAdapter(options: ConformanceAdapterOptions = {}): ConformanceAdapter {
  const clock = options.clock ?? systemClock;
  const connector = createSyntheticConnector({
    scenario: conformanceScenario,
    clock,
    ...(options.backend === undefined ? {} : { backend: options.backend }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
    ...(options.messages === undefined ? {} : { messages: options.messages }),
    ...(options.verificationSendLimit === undefined
      ? {}
      : { verificationSendLimit: options.verificationSendLimit }),
  });
  const config = conformanceHostConfig();
  const adapter = createCoreAdapter({
    // The gateway's own booking core over the platform, in this process (booking/direct).
    core: inProcessCore(config, connector, clock),
    hostId: config.id,
    platform: connector.platform,
    idempotency: options.idempotency ?? new MemoryIdempotencyStore(),
    clock,
    defaults: { serviceId: CONFORMANCE_SERVICE_ROLES.fixed_usd },
    ...(options.approvalGate === undefined ? {} : { approvalGate: options.approvalGate }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  // Delegation, not a spread: platform and upstreamMeta must stay live reads of the adapter.
  return {
    get platform() {
      return adapter.platform;
    },
    get upstreamMeta() {
      return adapter.upstreamMeta;
    },
    upstreamOf: (result) => adapter.upstreamOf(result),
    describeService: (input) => adapter.describeService(input),
    findAvailability: (input) => adapter.findAvailability(input),
    explainPolicy: (input) => adapter.explainPolicy(input),
    sendVerification: (input) => adapter.sendVerification(input),
    verifyCode: (input) => adapter.verifyCode(input),
    createBooking: (input) => adapter.createBooking(input),
    getBooking: (input) => adapter.getBooking(input),
    listServices: () => adapter.listServices(),
    connector,
    lastVerificationCode: (contact) => connector.lastCodeFor(contact),
  };
}

/**
 * How the platform behaves for a conformance run:
 * - "normal": as configured;
 * - "slot_taken": every appointment create answers HTTP 409 (someone else took the time), so a
 *   kit sees slot_taken after the approval gate, with nothing booked;
 * - "rate_limited": every upstream call answers HTTP 429 with Retry-After: 30, so any tool that
 *   reaches the platform answers rate_limited.
 */
export type ConformanceMode = "normal" | "slot_taken" | "rate_limited";

/** A conformance adapter in a mode; the mode's fault rules are added after any in options.faults. */
export function createConformanceAdapter(
  mode: ConformanceMode = "normal",
  options: ConformanceAdapterOptions = {},
): ConformanceAdapter {
  const faults = options.faults ?? new FaultPlan();
  switch (mode) {
    case "normal":
      break;
    case "slot_taken":
      faults.add({ operation: "createBooking", fault: "slot_taken", times: Infinity });
      break;
    case "rate_limited":
      // The gateway reads the catalog as the host starts, before any tool call: that one read
      // succeeds, so the host serves and each tool that reaches the platform hears the 429.
      faults.add({
        operation: "*",
        fault: "rate_limited",
        times: Infinity,
        retryAfterSeconds: 30,
        when: (call) => call.operation !== "catalog",
      });
      break;
    default:
      throw new TypeError(`unknown conformance mode ${String(mode)}`);
  }
  return createAdapter({ ...options, faults });
}
