/**
 * The generic OSBP BookingAdapter (OSBP "Adapter Contract") over the booking core: ONE adapter
 * for every platform-kind host (the synthetic platform today; Square, Openings and Servicialo
 * later). It never talks to a connector: availability.find asks the core's openings (what a
 * SchCP agent would be offered: live holds, bookings, window, notice, horizon), booking.create
 * is the core's bookNow (a hold and its two-phase confirm under the BookingMandate as the
 * core's Authority), booking.status reads the core's booking with a fresh platform read, and
 * verification passes through the core. So a SchCP hold binds OSBP agents and an OSBP booking
 * binds SchCP agents, and a host_approval host answers "pending" on every edge.
 *
 * Calendar-kind hosts are served the same way (docs/ARCHITECTURE.md, Calendar sync): the core
 * sees them as a platform whose catalog is the host's configuration (services, prices, the
 * person or rooms as providers), whose free starts are working hours minus the synced busy
 * time, and whose bookings are events the gateway writes; so availability comes from the
 * sync, booking.create answers pending until the approver answers the link, and
 * booking.status follows the core's booking.
 *
 * Every method runs inside one boundary that turns an unexpected throw (a core or store bug)
 * into internal_adapter_error with a generic message, logged on the operator channel, so the
 * exported adapter is safe for conformance kits as well as behind the MCP edge.
 */
import { allInPrice } from "../../../booking/pricing/index.js";
import type { DirectBookingApi } from "../../../booking/direct/index.js";
import { hostTimeRefusal } from "../../../booking/hosts/refusals.js";
import { err, ok, type Result } from "../../../protocol/result.js";
import { traceUpstream } from "../../../booking/hosts/upstream-trail.js";
import type { Catalog } from "../../../booking/catalog.js";
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
  type Problem,
  type Service,
  type Slot,
  type ToolInputs,
  type ToolName,
  type UpstreamMeta,
  type VerificationChallenge,
} from "../../../protocol/osbp/index.js";
import type { Logger } from "../../../protocol/logger.js";
import { parseLocalDate } from "../../../protocol/time/index.js";
import type { OsbpIdempotencyStore } from "../idempotency/port.js";
import { toBooking } from "./booking-status.js";
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
import { isOsbpBooking } from "./authority.js";
import { openingsByProvider } from "./openings.js";
import { adapterProblem, upstreamProblem } from "./problems.js";
import { refusalProblem } from "./refusals.js";
import { schedulePlace, slotsFromUpstream, type SchedulePlace } from "./slots.js";
import { createUpstreamNotices } from "./upstream-notices.js";
import { checkPurpose, upstreamCustomer } from "./verification.js";
import type { Clock } from "../../../protocol/clock.js";
export interface CoreAdapterOptions {
  /**
   * The booking core (BookingService): the adapter's only way to the host's platform. A
   * promise when the core is still being built (an embedded adapter created synchronously).
   */
  readonly core: DirectBookingApi | Promise<DirectBookingApi>;
  /** The platform the host's connector drives (OSBP Platform Metadata). */
  readonly platform: PlatformIdentity;
  /** The one host this adapter serves (OSBP "Non-Goals": no multi-tenant hosting). */
  readonly hostId: string;
  readonly idempotency: OsbpIdempotencyStore;
  /** Epoch ms. */
  readonly clock: Clock;
  /** Default: createApprovalGate({ clock }) (random secret, tokens die with the process). */
  readonly approvalGate?: ApprovalGate;
  /** OSBP service.describe / availability.find: "the adapter may substitute its configured default". */
  readonly defaults?: { readonly serviceId?: string; readonly scheduleId?: string };
  /** Operator channel: Deprecation/Sunset warnings (once per endpoint per process), errors. */
  readonly logger?: Pick<Logger, "warn" | "error">;
}

export interface CoreAdapter extends BookingAdapter {
  readonly platform: PlatformIdentity;
  /** The most recent UpstreamMeta any call of this adapter saw. */
  readonly upstreamMeta: UpstreamMeta | undefined;
  /** The last upstream call a method's own result came from (exact under concurrency). */
  upstreamOf(result: unknown): UpstreamMeta | undefined;
  /**
   * Every service of the host as service.describe reports it, catalog order. Not an OSBP tool
   * (v0.1.0 has none that lists): the MCP edge reads it at startup for service discovery.
   */
  listServices(): Promise<AdapterResult<Service[]>>;
}

/** stdout carries the MCP stdio protocol, so the default operator channel is stderr. */
const STDERR_LOGGER: Pick<Logger, "warn" | "error"> = {
  warn: (line: string) => console.warn(line),
  error: (line: string) => console.error(line),
};

export function createCoreAdapter(opts: CoreAdapterOptions): CoreAdapter {
  const { hostId, clock, platform } = opts;
  const logger = opts.logger ?? STDERR_LOGGER;
  const notices = createUpstreamNotices(platform.vendor, (line) => logger.warn(line));
  let core: DirectBookingApi | undefined;
  const ready = Promise.resolve(opts.core).then((c) => {
    core = c;
    return c;
  });
  // A failed build is reported by each call's boundary, not as an unhandled rejection here.
  ready.catch(() => undefined);
  // The most recent upstream metadata any call saw (the contract's upstreamMeta), and each
  // result's own (upstreamOf), from the per-call trail (booking/hosts/upstream-trail.ts).
  let lastUpstream: UpstreamMeta | undefined;
  const perResult = new WeakMap<object, UpstreamMeta>();

  const ctx: AdapterContext = {
    get core(): DirectBookingApi {
      if (core === undefined) throw new Error("osbp adapter: the booking core is not ready");
      return core;
    },
    hostId,
    idempotency: opts.idempotency,
    clock,
    gate: opts.approvalGate ?? createApprovalGate({ clock }),
    defaults: opts.defaults ?? {},
    logger,
    catalog(): Result<Catalog, Problem> {
      const host = core?.host(hostId);
      if (host === undefined) return err(problem("internal_adapter_error"));
      // A host whose credentials were revoked, or whose catalog was never read, has nothing
      // true to describe (booking/hosts/health.ts).
      const unhealthy = hostTimeRefusal(host, clock.now());
      if (unhealthy !== undefined) return err(refusalProblem(unhealthy, "read"));
      return ok(host.catalog);
    },
    place(): SchedulePlace {
      const host = core?.host(hostId);
      if (host === undefined) return { organizationName: "" };
      return {
        ...schedulePlace(host.config.name, host.config.location, host.catalog.organization.location),
        allIn: (service, start, stated) => allInPrice(host, service, clock.now(), start, stated),
      };
    },
  };

  /** The method boundary: host kind, input schema, and the catch-all for throws. */
  function method<N extends ToolName, T>(
    tool: N,
    body: (input: ToolInputs[N]) => Promise<AdapterResult<T>>,
  ): (input: ToolInputs[N]) => Promise<AdapterResult<T>> {
    return async (input) => {
      let c: DirectBookingApi;
      try {
        c = await ready;
      } catch (error) {
        logger.error(`osbp adapter: the booking core could not start: ${String(error)}`);
        return { ok: false, problem: problem("internal_adapter_error") };
      }
      if (c.host(hostId) === undefined) return { ok: false, problem: problem("internal_adapter_error") };
      const checked = validateToolInput(tool, input);
      if (!checked.ok) return { ok: false, problem: toolInputProblem(checked.error) };
      try {
        const { value, upstream } = await traceUpstream(() => body(checked.value));
        for (const meta of upstream) notices.observe(meta);
        const last = upstream[upstream.length - 1];
        if (last !== undefined) {
          lastUpstream = last;
          perResult.set(value, last);
        }
        return value;
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
    const catalog = ctx.catalog();
    if (!catalog.ok) return { ok: false, problem: catalog.error };
    const service = resolveService(catalog.value, input.service_id, ctx.defaults);
    if (!service.ok) return { ok: false, problem: service.error };
    return Promise.resolve({
      ok: true,
      value: toService(catalog.value, service.value, (s) => ctx.place().allIn?.(s, undefined)),
    });
  });

  const findAvailability = method("availability.find", async (input): Promise<AdapterResult<Slot[]>> => {
    const read = ctx.catalog();
    if (!read.ok) return { ok: false, problem: read.error };
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
        problem: adapterProblem("invalid_input", `Invalid input: date: ${date.error.message}`),
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
    const found = await openingsByProvider(ctx, service.value, shape.value, provider.value, range);
    if (!found.ok) return { ok: false, problem: found.error };
    return {
      ok: true,
      value: slotsFromUpstream(
        catalog,
        ctx.place(),
        service.value,
        shape.value,
        found.value,
        input.provider_id,
      ),
    };
  });

  const explainPolicy = method("policy.explain", async (input): Promise<AdapterResult<Policy>> => {
    const catalog = ctx.catalog();
    if (!catalog.ok) return { ok: false, problem: catalog.error };
    const service = resolveService(catalog.value, input.service_id, ctx.defaults);
    if (!service.ok) return { ok: false, problem: service.error };
    return Promise.resolve({ ok: true, value: toPolicy(catalog.value, service.value) });
  });

  const sendVerification = method(
    "verification.send",
    async (input): Promise<AdapterResult<VerificationChallenge>> => {
      const catalog = ctx.catalog();
      if (!catalog.ok) return { ok: false, problem: catalog.error };
      const purpose = checkPurpose(catalog.value, input.purpose);
      if (purpose !== undefined) return { ok: false, problem: purpose };
      const sent = await ctx.core.sendVerification(hostId, upstreamCustomer(input.customer), input.purpose);
      if (!sent.ok) return { ok: false, problem: upstreamProblem(sent.error, "verification") };
      return { ok: true, value: { sent: true, method: sent.value.method, purpose: input.purpose } };
    },
  );

  // See verification.ts: the port's verifyCode is an independent check that does not consume
  // the code booking.create needs.
  const verifyCode = method(
    "verification.verify",
    async (input): Promise<AdapterResult<VerificationChallenge>> => {
      const catalog = ctx.catalog();
      if (!catalog.ok) return { ok: false, problem: catalog.error };
      const purpose = checkPurpose(catalog.value, input.purpose);
      if (purpose !== undefined) return { ok: false, problem: purpose };
      const checked = await ctx.core.verifyCode(
        hostId,
        upstreamCustomer(input.customer),
        input.purpose,
        input.code,
      );
      if (!checked.ok) return { ok: false, problem: upstreamProblem(checked.error, "verification") };
      return { ok: true, value: { verified: true, method: checked.value.method, purpose: input.purpose } };
    },
  );

  // The core's booking with a fresh platform read: the answer claims current platform state.
  const getBooking = method("booking.status", async (input): Promise<AdapterResult<Booking>> => {
    const catalog = ctx.catalog();
    if (!catalog.ok) return { ok: false, problem: catalog.error };
    const read = await ctx.core.readBooking(hostId, input.booking_id);
    // Only bookings this edge made: an OSBP agent has no business reading another edge's.
    if (!read.ok || !isOsbpBooking(read.value.state)) {
      return {
        ok: false,
        problem: read.ok ? problem("booking_not_found") : refusalProblem(read.error, "status"),
      };
    }
    return { ok: true, value: toBooking(catalog.value, read.value.state, read.value.upstream) };
  });

  return {
    platform,
    get upstreamMeta(): UpstreamMeta | undefined {
      return lastUpstream;
    },
    upstreamOf: (result) =>
      typeof result === "object" && result !== null ? perResult.get(result) : undefined,
    describeService,
    findAvailability,
    explainPolicy,
    sendVerification,
    verifyCode,
    createBooking: method("booking.create", (input) => createBooking(ctx, input)),
    getBooking,
    async listServices(): Promise<AdapterResult<Service[]>> {
      await ready.catch(() => undefined);
      const catalog = ctx.catalog();
      if (!catalog.ok) return { ok: false, problem: catalog.error };
      return {
        ok: true,
        value: catalog.value.services.map((s) =>
          toService(catalog.value, s, (one) => ctx.place().allIn?.(one, undefined)),
        ),
      };
    },
  };
}
