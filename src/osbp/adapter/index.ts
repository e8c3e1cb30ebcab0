/**
 * The generic OSBP BookingAdapter (OSBP "Adapter Contract") over the Connector port: ONE adapter
 * for every platform-kind connector (the synthetic platform today; Square, Openings and
 * Servicialo later). Nothing in it knows which platform it drives.
 *
 * Calendar-kind connectors are out of scope: a calendar has no services, prices or policies of
 * its own to describe, so every method answers the adapter-specific Problem
 * unsupported_connector (not retryable) for them, and for any connector without the platform
 * capabilities (catalog, slots, bookings). Verification is optional: without it the
 * verification tools answer verification_unsupported.
 *
 * Every method runs inside one boundary that turns an unexpected throw (a connector or store bug)
 * into internal_adapter_error with a generic message, logged on the operator channel, so the
 * exported adapter is safe for conformance kits as well as behind the MCP edge.
 */
import {
  hasCapabilities,
  type Connector,
  type ConnectorResult,
  type PlatformConnector,
} from "../../connectors/port.js";
import {
  createApprovalGate,
  problem,
  toolInputProblem,
  validateToolInput,
  type AdapterResult,
  type ApprovalGate,
  type Booking,
  type BookingAdapter,
  type PlatformIdentity,
  type Policy,
  type Service,
  type Slot,
  type ToolInputs,
  type ToolName,
  type UpstreamMeta,
  type VerificationChallenge,
} from "../../protocol/osbp/index.js";
import { parseLocalDate } from "../../protocol/time/index.js";
import type { OsbpIdempotencyStore } from "../idempotency/port.js";
import { toBooking } from "./booking-status.js";
import { createCatalogCache } from "./catalog-cache.js";
import {
  checkSchedule,
  resolveProvider,
  resolveService,
  staffShape,
  toPolicy,
  toService,
} from "./catalog-facts.js";
import type { AdapterContext } from "./context.js";
import { createBooking } from "./create-booking.js";
import { knownZone, localDayRange } from "./local-time.js";
import { adapterProblem, connectorProblem } from "./problems.js";
import { slotsFromUpstream } from "./slots.js";
import { createUpstreamNotices } from "./upstream-notices.js";
import { checkPurpose, upstreamCustomer } from "./verification.js";

export interface ConnectorAdapterOptions {
  readonly connector: Connector;
  readonly idempotency: OsbpIdempotencyStore;
  /** Epoch ms. */
  readonly clock: { now(): number };
  /** Default: createApprovalGate({ now: () => clock.now() }) (random secret, tokens die with the process). */
  readonly approvalGate?: ApprovalGate;
  /** OSBP service.describe / availability.find: "the adapter may substitute its configured default". */
  readonly defaults?: { readonly serviceId?: string; readonly scheduleId?: string };
  /** Operator channel: Deprecation/Sunset warnings (once per endpoint per process), errors. */
  readonly logger?: { warn(line: string): void; error(line: string): void };
  /** How long a catalog read is reused, ms (default 60 000; 0 reads it on every call). */
  readonly catalogTtlMs?: number;
}

export interface ConnectorAdapter extends BookingAdapter {
  readonly platform: PlatformIdentity;
  /** The UpstreamMeta of the most recent upstream result (same object until the next call). */
  readonly upstreamMeta: UpstreamMeta | undefined;
}

/** A connector without the verification capability: no upstream call, so no metadata. */
const noVerification = (): Promise<ConnectorResult<never>> =>
  Promise.resolve({
    ok: false,
    error: { code: "unsupported", message: "the platform has no customer verification" },
  });

/** stdout carries the MCP stdio protocol, so the default operator channel is stderr. */
const STDERR_LOGGER = {
  warn: (line: string) => console.warn(line),
  error: (line: string) => console.error(line),
};

export function createConnectorAdapter(opts: ConnectorAdapterOptions): ConnectorAdapter {
  const { connector, clock } = opts;
  const logger = opts.logger ?? STDERR_LOGGER;
  const notices = createUpstreamNotices(connector.platform.vendor, (line) => logger.warn(line));

  const platform: PlatformConnector | undefined =
    connector.kind === "platform" && hasCapabilities(connector, ["catalog", "slots", "bookings"])
      ? connector
      : undefined;
  let latest: UpstreamMeta | undefined;

  // Each result carries its own call's metadata: the notices read it from there.
  const upstream: AdapterContext["upstream"] = async (run) => {
    if (platform === undefined)
      return { ok: false, error: { code: "unsupported", message: "not a booking platform connector" } };
    const result = await run(platform);
    if (result.upstream !== undefined) {
      notices.observe(result.upstream);
      latest = result.upstream;
    }
    return result;
  };
  const catalogCache = createCatalogCache(() => upstream((c) => c.catalog.read()), clock, opts.catalogTtlMs);

  const ctx: AdapterContext = {
    connector,
    idempotency: opts.idempotency,
    clock,
    gate: opts.approvalGate ?? createApprovalGate({ now: () => clock.now() }),
    defaults: opts.defaults ?? {},
    logger,
    async catalog() {
      const r = await catalogCache.get();
      return r.ok ? r : { ok: false, problem: connectorProblem(r.error, "read") };
    },
    upstream,
  };

  /** The method boundary: connector kind, input schema, and the catch-all for throws. */
  function method<N extends ToolName, T>(
    tool: N,
    body: (input: ToolInputs[N]) => Promise<AdapterResult<T>>,
  ): (input: ToolInputs[N]) => Promise<AdapterResult<T>> {
    return async (input) => {
      if (platform === undefined) {
        return {
          ok: false,
          problem: adapterProblem(
            "unsupported_connector",
            connector.kind === "calendar"
              ? "This OSBP adapter drives booking platforms; the connected upstream is a calendar."
              : "This OSBP adapter drives booking platforms; the connected upstream cannot list slots or take bookings.",
          ),
        };
      }
      const checked = validateToolInput(tool, input);
      if (!checked.ok) return { ok: false, problem: toolInputProblem(checked.error) };
      try {
        return await body(checked.value);
      } catch (error) {
        const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
        logger.error(`osbp adapter: ${tool} failed unexpectedly: ${detail}`);
        return {
          ok: false,
          problem: problem(
            "internal_adapter_error",
            "The adapter failed unexpectedly; the failure was recorded.",
          ),
        };
      }
    };
  }

  const describeService = method("service.describe", async (input): Promise<AdapterResult<Service>> => {
    const catalog = await ctx.catalog();
    if (!catalog.ok) return catalog;
    const service = resolveService(catalog.value, input.service_id, ctx.defaults);
    if (!service.ok) return { ok: false, problem: service.error };
    return { ok: true, value: toService(catalog.value, service.value) };
  });

  const findAvailability = method("availability.find", async (input): Promise<AdapterResult<Slot[]>> => {
    const read = await ctx.catalog();
    if (!read.ok) return read;
    const catalog = read.value;
    const service = resolveService(catalog, input.service_id, ctx.defaults);
    if (!service.ok) return { ok: false, problem: service.error };
    // A schedule this business does not have is a Problem, not an empty list: an empty list
    // would read as "fully booked" and send the agent to another day instead of fixing the id.
    const schedule = checkSchedule(catalog, input.schedule_id, ctx.defaults);
    if (schedule !== undefined) return { ok: false, problem: schedule };
    const shape = staffShape(catalog, service.value);
    if (!shape.ok) return { ok: false, problem: shape.error };
    const provider = resolveProvider(shape.value, input.provider_id);
    if (!provider.ok) return { ok: false, problem: provider.error };
    const date = parseLocalDate(input.date, "/date");
    if (!date.ok)
      return {
        ok: false,
        problem: adapterProblem("invalid_input", `Invalid input: ${date.error.message}`, { field: "/date" }),
      };
    const zone = catalog.organization.timezone;
    const range = knownZone(zone) ? localDayRange(date.value, zone) : undefined;
    if (range === undefined) {
      // Slots are merchant-local; without a real zone neither the day nor a start can be placed.
      return {
        ok: false,
        problem: adapterProblem(
          "unknown_timezone",
          "The platform reports a time zone that is not an IANA zone, so its merchant-local day cannot be computed.",
        ),
      };
    }
    const found = await ctx.upstream((c) =>
      c.slots.find({
        serviceId: service.value.id,
        range,
        ...(provider.value === undefined ? {} : { resourceIds: [provider.value.id] }),
      }),
    );
    if (!found.ok) return { ok: false, problem: connectorProblem(found.error, "read") };
    return {
      ok: true,
      value: slotsFromUpstream(catalog, service.value, shape.value, found.value, input.provider_id),
    };
  });

  const explainPolicy = method("policy.explain", async (input): Promise<AdapterResult<Policy>> => {
    const catalog = await ctx.catalog();
    if (!catalog.ok) return catalog;
    const service = resolveService(catalog.value, input.service_id, ctx.defaults);
    if (!service.ok) return { ok: false, problem: service.error };
    return { ok: true, value: toPolicy(catalog.value, service.value) };
  });

  const sendVerification = method(
    "verification.send",
    async (input): Promise<AdapterResult<VerificationChallenge>> => {
      const catalog = await ctx.catalog();
      if (!catalog.ok) return catalog;
      const purpose = checkPurpose(catalog.value, input.purpose);
      if (purpose !== undefined) return { ok: false, problem: purpose };
      const sent = await ctx.upstream((c) =>
        c.verification === undefined
          ? noVerification()
          : c.verification.send(upstreamCustomer(input.customer), input.purpose),
      );
      if (!sent.ok) return { ok: false, problem: connectorProblem(sent.error, "verification") };
      return { ok: true, value: { sent: true, method: sent.value.method, purpose: input.purpose } };
    },
  );

  // See verification.ts: the port's verifyCode is an independent check that does not consume
  // the code booking.create needs.
  const verifyCode = method(
    "verification.verify",
    async (input): Promise<AdapterResult<VerificationChallenge>> => {
      const catalog = await ctx.catalog();
      if (!catalog.ok) return catalog;
      const purpose = checkPurpose(catalog.value, input.purpose);
      if (purpose !== undefined) return { ok: false, problem: purpose };
      const checked = await ctx.upstream((c) =>
        c.verification === undefined
          ? noVerification()
          : c.verification.verify(upstreamCustomer(input.customer), input.purpose, input.code),
      );
      if (!checked.ok) return { ok: false, problem: connectorProblem(checked.error, "verification") };
      return { ok: true, value: { verified: true, method: checked.value.method, purpose: input.purpose } };
    },
  );

  // Always a fresh platform read: the answer claims current platform state.
  const getBooking = method("booking.status", async (input): Promise<AdapterResult<Booking>> => {
    const catalog = await ctx.catalog();
    if (!catalog.ok) return catalog;
    const read = await ctx.upstream((c) => c.bookings.get(input.booking_id));
    if (!read.ok) return { ok: false, problem: connectorProblem(read.error, "status") };
    return { ok: true, value: toBooking(catalog.value, read.value) };
  });

  return {
    platform: connector.platform,
    get upstreamMeta(): UpstreamMeta | undefined {
      return latest;
    },
    describeService,
    findAvailability,
    explainPolicy,
    sendVerification,
    verifyCode,
    createBooking: method("booking.create", (input) => createBooking(ctx, input)),
    getBooking,
  };
}
