/**
 * Fakes for testing the HTTP edge alone: a host directory of bare host configs and a
 * SchcpHostApi & OperatorApi that records every call and answers with the spec's own
 * example bodies (so responses pass the closed schemas) or a refusal the test sets.
 */
import type {
  BookingRefusal,
  HostConfig,
  HostDirectory,
  HostPolicies,
  HostRuntime,
  OperatorApi,
} from "../../../src/booking/api.js";
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import type { SchcpHostApi } from "../../../src/edges/schcp/api.js";
import type { BookingView } from "../../../src/booking/view.js";
import type { Catalog, PlatformConnector } from "../../../src/connectors/port.js";
import { MemoryNonceMemory } from "../../../src/protocol/http-signatures/index.js";
import { MemoryRateLimiter } from "../../../src/edges/http/rate-limit.js";
import type { TokenBucketPolicy } from "../../../src/edges/http/rate-limit.js";
import type { EdgeResponse, HttpAppDeps, IdempotentRequest } from "../../../src/gateway/app/types.js";
import type { Logger } from "../../../src/protocol/logger.js";
import * as ex from "../../protocol/schcp/schemas/spec-examples.js";

/** A booking as the operator use cases answer it (the core's neutral view, booking/view.ts). */
export function sampleView(): BookingView {
  const start = Date.parse("2026-10-15T13:00:00-04:00");
  return {
    bookingId: "b_1",
    hostId: "maple-street-auto",
    status: "confirmed",
    sequence: 0,
    serviceId: "oil-change",
    start,
    end: start + 45 * 60_000,
    resourceIds: ["bay-1"],
    partySize: 1,
    contract: {
      kind: "booking",
      service: { id: "oil-change", name: "Synthetic oil change" },
      start,
      end: start + 45 * 60_000,
      partySize: 1,
      price: { minor: 7900, currency: "CAD" },
      total: { minor: 8927, currency: "CAD" },
      lines: [
        { kind: "service", label: "Synthetic oil change", amount: { minor: 7900, currency: "CAD" } },
        { kind: "tax", label: "HST 13%", amount: { minor: 1027, currency: "CAD" } },
      ],
      retention: "P365D",
    },
    consent: { approved: "offer", mandate: "m-1" },
    principal: "urn:schcp:principal:jwk-thumbprint:abc",
    answer: { by: "host", at: Date.parse("2026-10-14T12:00:00Z") },
    edges: ["schcp"],
    createdAt: start - 86_400_000,
    updatedAt: start - 86_400_000,
  };
}

export const ORIGIN = "https://gateway.example";
export const NOW_MS = 1_792_000_000_000;
export const OPERATOR_TOKEN = "op-secret-token-0123456789";

export const DEFAULT_POLICIES: HostPolicies = {
  holds: {
    maxTtlMs: 600_000,
    maxActivePerAgent: 3,
    requiresMandate: true,
    maxActiveUnproven: 8,
    maxActivePerAttester: 8,
  },
  confirmation: "instant",
  closedMandate: "never",
  retention: "P365D",
  access: "public",
  approvalTimeoutMs: 7_200_000,
  allowWildcardAudience: false,
  horizonMs: 31 * 86_400_000,
};

export function hostConfig(id: string, over: Partial<HostConfig> = {}): HostConfig {
  return {
    id,
    name: id,
    kind: "business",
    timezone: "America/Toronto",
    domain: null,
    connector: { type: "synthetic", settings: { scenario: id } },
    policies: DEFAULT_POLICIES,
    services: [],
    ...over,
  };
}

export function hostDirectory(configs: readonly HostConfig[]): HostDirectory {
  const runtimes = configs.map((config): HostRuntime => ({
    config,
    connector: {} as PlatformConnector,
    catalog: {} as Catalog,
    keys: [],
  }));
  return {
    get: (id) => runtimes.find((r) => r.config.id === id),
    list: () => runtimes,
  };
}

export interface RecordedCall {
  readonly method: string;
  readonly hostId: string;
  readonly caller?: SchcpCaller;
  readonly args: readonly unknown[];
}

type Answer = { ok: true; value: unknown } | { ok: false; error: BookingRefusal };

/** Answers every use case; `answers[method]` overrides the default for one method. */
export class FakeApi implements SchcpHostApi, OperatorApi {
  readonly calls: RecordedCall[] = [];
  readonly answers: Partial<Record<string, Answer | (() => Answer)>> = {};

  private answer<T>(
    method: string,
    hostId: string,
    caller: SchcpCaller | undefined,
    args: unknown[],
    fallback: T,
  ) {
    this.calls.push({ method, hostId, ...(caller !== undefined && { caller }), args });
    const set = this.answers[method];
    const chosen = typeof set === "function" ? set() : set;
    return Promise.resolve((chosen ?? { ok: true, value: fallback }) as { ok: true; value: T });
  }

  /** `code` is a plain string here: the core's HttpRefusalCode type is checked there, not in edge tests. */
  refuse(method: string, refusal: Omit<BookingRefusal, "code"> & { readonly code: string }): void {
    this.answers[method] = { ok: false, error: refusal as BookingRefusal };
  }

  availability(h: string, c: SchcpCaller, b: unknown) {
    return this.answer("availability", h, c, [b], ex.availabilityResponse() as never);
  }
  placeHold(h: string, c: SchcpCaller, b: unknown) {
    return this.answer("placeHold", h, c, [b], ex.hold() as never);
  }
  joinWaitlist(h: string, c: SchcpCaller, b: unknown) {
    return this.answer("joinWaitlist", h, c, [b], {} as never);
  }
  getWaitlistEntry(h: string, c: SchcpCaller, id: string) {
    return this.answer("getWaitlistEntry", h, c, [id], {} as never);
  }
  leaveWaitlist(h: string, c: SchcpCaller, id: string) {
    return this.answer("leaveWaitlist", h, c, [id], {} as never);
  }
  getHold(h: string, c: SchcpCaller, id: string) {
    return this.answer("getHold", h, c, [id], ex.hold() as never);
  }
  releaseHold(h: string, c: SchcpCaller, id: string) {
    return this.answer("releaseHold", h, c, [id], { ...ex.hold(), status: "released" } as never);
  }
  confirm(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("confirm", h, c, [id, b], { status: 201, body: ex.bookingResponse() } as never);
  }
  getBooking(h: string, c: SchcpCaller, id: string) {
    return this.answer("getBooking", h, c, [id], ex.bookingResponse() as never);
  }
  cancel(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("cancel", h, c, [id, b], ex.bookingResponse() as never);
  }
  changeOffer(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("changeOffer", h, c, [id, b], ex.changeOfferResponse() as never);
  }
  reschedule(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("reschedule", h, c, [id, b], ex.bookingResponse() as never);
  }
  proposalResponse(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("proposalResponse", h, c, [id, b], ex.bookingResponse() as never);
  }
  respond(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("respond", h, c, [id, b], ex.bookingResponse() as never);
  }
  commit(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("commit", h, c, [id, b], ex.bookingResponse() as never);
  }
  reviseMeeting(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("reviseMeeting", h, c, [id, b], ex.bookingResponse() as never);
  }
  withdrawMeetingRevision(h: string, c: SchcpCaller, id: string, b: unknown) {
    return this.answer("withdrawMeetingRevision", h, c, [id, b], ex.bookingResponse() as never);
  }
  listBookings(h: string) {
    return this.answer("listBookings", h, undefined, [], [sampleView()] as never);
  }
  pageBookings(h: string, query: unknown) {
    return this.answer("pageBookings", h, undefined, [query], { bookings: [sampleView()] } as never);
  }
  approve(h: string, id: string) {
    return this.answer("approve", h, undefined, [id], sampleView() as never);
  }
  decline(h: string, id: string, input: unknown) {
    return this.answer("decline", h, undefined, [id, input], sampleView() as never);
  }
  hostCancel(h: string, id: string, input: unknown) {
    return this.answer("hostCancel", h, undefined, [id, input], sampleView() as never);
  }
  markAttendance(h: string, id: string, input: unknown) {
    return this.answer("markAttendance", h, undefined, [id, input], sampleView() as never);
  }
  propose(h: string, id: string, input: unknown) {
    return this.answer("propose", h, undefined, [id, input], sampleView() as never);
  }
  counter(h: string, id: string, input: unknown) {
    return this.answer("counter", h, undefined, [id, input], sampleView() as never);
  }
  acceptMeeting(h: string, id: string, input: unknown) {
    return this.answer("acceptMeeting", h, undefined, [id, input], sampleView() as never);
  }
  takeBackMeeting(h: string, id: string, input: unknown) {
    return this.answer("takeBackMeeting", h, undefined, [id, input], sampleView() as never);
  }
}

export class RecordingLogger implements Logger {
  readonly lines: Array<{ level: string; message: string; fields?: Readonly<Record<string, unknown>> }> = [];
  info(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.lines.push({ level: "info", message, ...(fields !== undefined && { fields }) });
  }
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.lines.push({ level: "warn", message, ...(fields !== undefined && { fields }) });
  }
  error(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.lines.push({ level: "error", message, ...(fields !== undefined && { fields }) });
  }
}

/** A pass-through idempotency gate that records what it was asked to guard. */
export class RecordingGate {
  readonly requests: IdempotentRequest[] = [];
  run(request: IdempotentRequest, execute: () => Promise<EdgeResponse>): Promise<EdgeResponse> {
    this.requests.push(request);
    return execute();
  }
}

export interface EdgeFixture {
  readonly deps: HttpAppDeps;
  readonly api: FakeApi;
  readonly gate: RecordingGate;
  readonly logger: RecordingLogger;
  readonly clock: { now(): number; set(ms: number): void };
}

export function edgeFixture(
  opts: {
    hosts?: readonly HostConfig[];
    rate?: TokenBucketPolicy;
    maxBodyBytes?: number;
    validateResponses?: boolean;
  } = {},
): EdgeFixture {
  let now = NOW_MS;
  const clock = { now: () => now, set: (ms: number) => void (now = ms) };
  const api = new FakeApi();
  const gate = new RecordingGate();
  const logger = new RecordingLogger();
  const hosts = hostDirectory(opts.hosts ?? [hostConfig("maple-street-auto"), hostConfig("fades-on-queen")]);
  const deps: HttpAppDeps = {
    publicOrigin: ORIGIN,
    hosts,
    api,
    documents: {
      operator: () => ex.operatorDoc(),
      host: (id) =>
        hosts.get(id) === undefined ? undefined : { ...ex.discovery(), host: { ...ex.discovery().host, id } },
    },
    nonces: new MemoryNonceMemory(() => now / 1000),
    idempotency: gate,
    rateLimiter: new MemoryRateLimiter(opts.rate ?? { capacity: 1000, refillPerSec: 1000 }),
    clock,
    logger,
    operatorToken: OPERATOR_TOKEN,
    ...(opts.maxBodyBytes !== undefined && { maxBodyBytes: opts.maxBodyBytes }),
    validateResponses: opts.validateResponses ?? true,
  };
  return { deps, api, gate, logger, clock };
}
