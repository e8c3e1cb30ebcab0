/**
 * Openings (the salon platform behind OSBP's one external adapter) as a platform connector:
 * catalog from the business, its location and that location's members and services (with
 * options), slots from each member's openings per date, bookings through customer
 * create-or-find and appointment create (with the raw verification code; HTTP 428 is
 * verification_required), verification send/verify with purpose `booking:{businessId}`.
 *
 * Assumptions (README.md here; fixtures/openings/SOURCES.md):
 * - prices are major units without a currency: the host's configured currency is applied and
 *   the amount scaled by its ISO 4217 exponent (fromMajorUnits), never by a fixed 100;
 * - openings are local "HH:MM" times: placed in time with the business's zone; a business with
 *   a null zone and no zone from the operator gets no instants (unsupported), never a guess;
 * - the public API takes no cancel or move and has no by-id readback: move/cancel/setStatus
 *   answer unsupported, get answers what this process was told, and a create whose answer was
 *   lost is looked up in the customer's history (gated behind verification: only when the
 *   create carried a code) or else checked against the member's openings.
 * - a verification code is scoped to the business (purpose booking:{businessId}), not to one
 *   booking attempt (OSBP "Attempt-scoped capabilities"): it stays usable for its TTL.
 */
import type { WorkingPeriod } from "../../calendar/index.js";
import { fromMajorUnits } from "../../protocol/money/index.js";
import { dateOfEpochDay, epochDay, type LocalDate } from "../../protocol/time/calendar.js";
import { instantToWallClock, wallClockToInstant } from "../../protocol/time/index.js";
import type { Logger } from "../../protocol/logger.js";
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamNotice,
  type UpstreamPacing,
  type UpstreamResponse,
} from "../http.js";
import { CreateJournal, replayed } from "../http/create-journal.js";
import type { Connector } from "../port.js";
import type {
  BookingAbilities,
  BookingPort,
  UpstreamBooking,
  UpstreamCreate,
  UpstreamCustomer,
  UpstreamStatus,
} from "../ports/bookings.js";
import type { Catalog, CatalogService, CatalogSource } from "../ports/catalog.js";
import type { ConnectorError, ConnectorResult, PlatformIdentity, UpstreamMeta } from "../ports/result.js";
import type { AvailabilityQuery, SlotSource, UpstreamSlot } from "../ports/slots.js";
import type { VerificationPort } from "../ports/verification.js";
import { parseOpeningsSettings, type OpeningsSettings } from "./settings.js";
import {
  dataOf,
  errorOf,
  readAppointment,
  readAppointments,
  readBusiness,
  readCustomer,
  readLocationDetail,
  readLocations,
  readNext,
  readOpenings,
  type WireAppointment,
  type WireBusiness,
  type WireLocationDetail,
} from "./wire.js";

/** Path-versioned API: the pin is the /v1 prefix on every request (OSBP "Platform Metadata"). */
export const OPENINGS_PLATFORM: PlatformIdentity = { vendor: "openings", api_version: "v1" };

/**
 * The public API shows a customer's appointments (history, behind verification) but has no
 * by-id readback, move or cancel (README.md).
 */
export const OPENINGS_BOOKING_ABILITIES: BookingAbilities = {
  findByKey: "lookup",
  readback: false,
  move: false,
  cancel: false,
};

export interface OpeningsDeps {
  readonly fetch?: typeof fetch;
  readonly clock?: { now(): number };
  readonly logger?: Pick<Logger, "warn">;
  readonly onNotice?: (notice: UpstreamNotice) => void;
  /** Retry-After honoured across calls and processes (connectors/http/pacing.ts). */
  readonly pacing?: UpstreamPacing;
}

export interface OpeningsConnector extends Connector {
  readonly kind: "platform";
  readonly catalog: CatalogSource;
  readonly slots: SlotSource;
  readonly bookings: BookingPort;
  readonly verification: VerificationPort;
  /** The location's next free start for a service (Openings "next availability"), or null. */
  nextAvailable(serviceId: string): Promise<ConnectorResult<UpstreamSlot | null>>;
}

interface Context {
  readonly business: WireBusiness;
  readonly location: WireLocationDetail;
  readonly timezone: string | undefined;
}

interface Known {
  readonly booking: UpstreamBooking;
  readonly upstream?: UpstreamMeta;
  readonly customerId?: string;
}

interface Attempt {
  readonly request: UpstreamCreate;
  /** Absent for an attempt handed back by the caller that named no member. */
  readonly memberId?: string;
  readonly customerId: string;
}

/** The marker the create writes into the notes; the history shows it back when it echoes notes. */
const marker = (key: string): string => `[booking-gateway ${key}]`;

type Answer = ConnectorResult<UpstreamResponse>;

const MAX_DAYS = 31;
const SEP = ":";

const fail = <T>(error: ConnectorError, upstream?: UpstreamMeta): ConnectorResult<T> =>
  upstream === undefined ? { ok: false, error } : { ok: false, error, upstream };
const withMeta = <T>(value: T, upstream?: UpstreamMeta): ConnectorResult<T> =>
  upstream === undefined ? { ok: true, value } : { ok: true, value, upstream };
const unreadable = <T>(what: string, upstream?: UpstreamMeta): ConnectorResult<T> =>
  fail({ code: "unavailable", message: `Openings answered an unreadable ${what}` }, upstream);

const isoDate = (d: LocalDate): string =>
  `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

const STATUS: Readonly<Record<string, UpstreamStatus>> = {
  pending: "tentative",
  requested: "tentative",
  booked: "confirmed",
  confirmed: "confirmed",
  cancelled: "cancelled",
  canceled: "cancelled",
  completed: "completed",
  no_show: "no_show",
};

/** "svc" or "svc:option" (a service option is offered as its own catalog service). */
const splitService = (id: string): { serviceId: string; optionId?: string } => {
  const at = id.indexOf(SEP);
  return at === -1 ? { serviceId: id } : { serviceId: id.slice(0, at), optionId: id.slice(at + 1) };
};

export function createOpeningsConnector(rawSettings: unknown, deps: OpeningsDeps = {}): OpeningsConnector {
  const parsed = parseOpeningsSettings(rawSettings);
  if (!parsed.ok) throw new Error(`openings settings ${parsed.error.field || "/"}: ${parsed.error.message}`);
  const settings: OpeningsSettings = parsed.value;
  const clock = deps.clock ?? { now: () => Date.now() };
  const client: UpstreamClient = createUpstreamClient({
    vendor: OPENINGS_PLATFORM.vendor,
    apiVersion: OPENINGS_PLATFORM.api_version,
    baseUrl: settings.baseUrl,
    pin: { pathPrefix: "/v1" },
    // No credential is sent, so no status can mean a revoked one: a 401/403 from the public API
    // means the customer is not verified (history), mapped below.
    unauthorizedStatuses: [],
    clock,
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.maxPerSecond !== undefined ? { maxPerSecond: settings.maxPerSecond } : {}),
    ...(deps.fetch !== undefined ? { fetch: deps.fetch } : {}),
    ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
    ...(deps.onNotice !== undefined ? { onNotice: deps.onNotice } : {}),
    ...(deps.pacing !== undefined ? { pacing: deps.pacing } : {}),
  });
  const journal = new CreateJournal<Attempt, Known>();
  let context: Context | undefined;

  const call = (
    method: string,
    path: string,
    extra: {
      query?: Record<string, string | undefined>;
      body?: unknown;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Answer> => client.request({ method, path, ...extra });

  /** A 2xx `{ ok, data }` answer's data, or the error the status means. */
  function dataFrom<T>(r: Answer, read: (d: unknown) => T | undefined, what: string): ConnectorResult<T> {
    if (!r.ok) return r;
    const { status, body } = r.value;
    if (status >= 200 && status < 300) {
      const value = read(dataOf(body));
      return value === undefined ? unreadable(what, r.upstream) : withMeta(value, r.upstream);
    }
    return fail(statusError(status, errorOf(body), what), r.upstream);
  }

  async function loadContext(): Promise<ConnectorResult<Context>> {
    const b = dataFrom(
      await call("GET", `/businesses/${encodeURIComponent(settings.businessSlug)}`),
      readBusiness,
      "business",
    );
    if (!b.ok) return b;
    let locationId = settings.locationId;
    if (locationId === undefined) {
      const ls = dataFrom(
        await call("GET", `/businesses/${encodeURIComponent(b.value.id)}/locations`),
        readLocations,
        "location list",
      );
      if (!ls.ok) return ls;
      if (ls.value.length !== 1) {
        return fail(
          {
            code: "invalid_request",
            message: `Openings business has ${ls.value.length} locations: set locationId in the host's settings`,
          },
          ls.upstream,
        );
      }
      locationId = ls.value[0]!.id;
    }
    const l = dataFrom(
      await call("GET", `/locations/${encodeURIComponent(locationId)}`),
      readLocationDetail,
      "location",
    );
    if (!l.ok) return l;
    context = { business: b.value, location: l.value, timezone: b.value.timezone ?? settings.timezone };
    return withMeta(context, l.upstream);
  }

  const ensureContext = async (): Promise<ConnectorResult<Context>> =>
    context ? { ok: true, value: context } : loadContext();

  const NO_ZONE: ConnectorError = {
    code: "unsupported",
    message:
      "Openings reports no time zone for this business and none is configured: local times are not placed in time",
  };
  const noZone = (upstream?: UpstreamMeta): ConnectorResult<never> => fail(NO_ZONE, upstream);

  function durationOf(ctx: Context, id: string): number | undefined {
    const { serviceId, optionId } = splitService(id);
    const s = ctx.location.services.find((x) => x.id === serviceId);
    if (s === undefined) return undefined;
    if (optionId === undefined) return s.durationMinutes * 60_000;
    const o = s.options.find((x) => x.id === optionId);
    return o === undefined ? undefined : o.durationMinutes * 60_000;
  }

  function instantOf(date: string, time: string, tz: string): number | undefined {
    const [y, m, d] = date.split("-").map(Number);
    const [hh, mm] = time.split(":").map(Number);
    const r = wallClockToInstant(
      {
        year: y ?? NaN,
        month: m ?? NaN,
        day: d ?? NaN,
        hour: hh ?? NaN,
        minute: mm ?? NaN,
        second: 0,
        millisecond: 0,
      },
      tz,
    );
    return r.ok ? r.value : undefined;
  }

  const localDay = (ms: number, tz: string): LocalDate => {
    const w = instantToWallClock(ms, tz);
    return { year: w.year, month: w.month, day: w.day };
  };
  const localTime = (ms: number, tz: string): string => {
    const w = instantToWallClock(ms, tz);
    return `${String(w.hour).padStart(2, "0")}:${String(w.minute).padStart(2, "0")}`;
  };

  function price(amount: number | undefined): CatalogService["price"] {
    if (amount === undefined) return undefined;
    // Openings' price: major units, no currency; the host's currency, scaled by its exponent.
    const minor = fromMajorUnits(amount, settings.currency, "");
    return minor.ok ? { minor: minor.value, currency: settings.currency } : undefined;
  }

  const catalog: CatalogSource = {
    async read() {
      context = undefined;
      const r = await loadContext();
      if (!r.ok) return r;
      const ctx = r.value;
      if (ctx.timezone === undefined) return noZone(r.upstream);
      const requiresVerification = ctx.business.verification.required;
      const services: CatalogService[] = [];
      for (const s of ctx.location.services) {
        const variants = [
          { id: s.id, name: s.name, minutes: s.durationMinutes, amount: s.price },
          ...s.options.map((o) => ({
            id: `${s.id}${SEP}${o.id}`,
            name: `${s.name} (${o.name})`,
            minutes: o.durationMinutes,
            amount: o.price ?? s.price,
          })),
        ];
        for (const v of variants) {
          const p = price(v.amount);
          services.push({
            id: v.id,
            name: v.name,
            duration: v.minutes * 60_000,
            bufferAfterMs: 0,
            ...(p !== undefined ? { price: p, pricePer: "booking" as const } : {}),
            priceType: s.consultation ? "quote_required" : p !== undefined ? "fixed" : "unknown",
            requires: [{ resourceType: "person" }],
            requiresVerification,
            requiresConsultation: s.consultation,
            // Openings takes no payment through its public API.
            payment: { requirement: "none" },
          });
        }
      }
      const hours = (own: readonly WorkingPeriod[]): readonly WorkingPeriod[] =>
        own.length > 0 ? own : ctx.location.schedules;
      const value: Catalog = {
        organization: {
          id: ctx.business.id,
          name: ctx.business.name,
          timezone: ctx.timezone,
          currency: settings.currency,
        },
        services,
        resources: ctx.location.members.map((m) => ({
          id: m.id,
          type: "person",
          name: m.name,
          capacity: 1,
          hours: hours(m.schedules),
          staff: true,
        })),
        taxes: [],
        verificationMethod: requiresVerification ? (ctx.business.verification.method ?? "unknown") : "none",
      };
      return withMeta(value, r.upstream);
    },
  };

  async function openings(
    ctx: Context,
    memberId: string,
    date: string,
    id: string,
  ): Promise<ConnectorResult<string[]>> {
    const { serviceId, optionId } = splitService(id);
    return dataFrom(
      await call(
        "GET",
        `/locations/${encodeURIComponent(ctx.location.id)}/members/${encodeURIComponent(memberId)}/openings`,
        {
          query: { date, serviceId, optionId },
        },
      ),
      readOpenings,
      "openings list",
    );
  }

  const slots: SlotSource = {
    async find(query: AvailabilityQuery) {
      const c = await ensureContext();
      if (!c.ok) return c;
      const ctx = c.value;
      const tz = ctx.timezone;
      if (tz === undefined) return noZone();
      const duration = durationOf(ctx, query.serviceId);
      if (duration === undefined)
        return fail({ code: "not_found", message: "Openings: no such service at this location" });
      if (query.range.end <= query.range.start) return { ok: true, value: [] };
      const first = epochDay(localDay(query.range.start, tz));
      const last = Math.min(epochDay(localDay(query.range.end - 1, tz)), first + MAX_DAYS - 1);
      const members = query.resourceIds?.length
        ? [...query.resourceIds]
        : ctx.location.members.map((m) => m.id);
      const found: UpstreamSlot[] = [];
      let meta: UpstreamMeta | undefined;
      for (const memberId of members) {
        for (let day = first; day <= last; day++) {
          const date = isoDate(dateOfEpochDay(day));
          const r = await openings(ctx, memberId, date, query.serviceId);
          if (!r.ok) return r;
          meta = r.upstream;
          for (const t of r.value) {
            const start = instantOf(date, t, tz);
            if (start === undefined || start < query.range.start || start >= query.range.end) continue;
            found.push({ serviceId: query.serviceId, start, end: start + duration, resourceIds: [memberId] });
          }
        }
      }
      found.sort((a, b) => a.start - b.start);
      return withMeta(found, meta);
    },
  };

  function bookingOf(
    ctx: Context,
    a: WireAppointment,
    key: string | undefined,
    fallbackEnd?: number,
  ): UpstreamBooking | undefined {
    if (ctx.timezone === undefined) return undefined;
    const start = instantOf(a.date, a.time, ctx.timezone);
    if (start === undefined) return undefined;
    const id = a.optionId !== undefined ? `${a.serviceId}${SEP}${a.optionId}` : a.serviceId;
    const duration = a.durationMinutes !== undefined ? a.durationMinutes * 60_000 : durationOf(ctx, id);
    const end = duration !== undefined ? start + duration : fallbackEnd;
    return {
      upstreamId: a.id,
      ...(key !== undefined ? { idempotencyKey: key } : {}),
      serviceId: id,
      start,
      ...(end !== undefined ? { end } : {}),
      resourceIds: [a.memberId],
      status: STATUS[a.status] ?? "unknown",
    };
  }

  async function customerFor(
    ctx: Context,
    c: UpstreamCustomer | undefined,
  ): Promise<ConnectorResult<string>> {
    if (c === undefined || (c.phone === undefined && c.email === undefined)) {
      return fail({
        code: "invalid_request",
        message: "Openings books for a customer with a phone number or an email",
      });
    }
    const r = dataFrom(
      await call("POST", "/customers", {
        body: {
          businessId: ctx.business.id,
          ...(c.name !== undefined ? { name: c.name } : {}),
          ...(c.phone !== undefined ? { phone: c.phone } : {}),
          ...(c.email !== undefined ? { email: c.email } : {}),
        },
      }),
      readCustomer,
      "customer",
    );
    return r.ok ? withMeta(r.value.id, r.upstream) : r;
  }

  /** Members free at the start (the create named none): the first whose openings include it. */
  async function pickMember(
    ctx: Context,
    request: UpstreamCreate,
    tz: string,
  ): Promise<ConnectorResult<string | null>> {
    const date = isoDate(localDay(request.start, tz));
    const time = localTime(request.start, tz);
    let meta: UpstreamMeta | undefined;
    for (const m of ctx.location.members) {
      const r = await openings(ctx, m.id, date, request.serviceId);
      if (!r.ok) return r;
      meta = r.upstream;
      if (r.value.includes(time)) return withMeta(m.id, meta);
    }
    return withMeta(null, meta);
  }

  /**
   * What became of a create whose answer was lost. The customer's history when the attempt
   * carried a verification code (history is gated behind verification): an appointment at the
   * attempted start, of that service, with that member, whose notes carry this key's marker (or
   * that shows no notes and is not cancelled) is the one, adopted whatever its state; none such
   * means nothing was booked. Without a code, or when the history refuses it, the openings:
   * the time still open with the member (every member when the attempt named none) means
   * nothing was booked. Otherwise it cannot tell: `unavailable`, and nothing is sent again.
   */
  async function resolve(
    ctx: Context,
    key: string,
    attempt: Attempt,
    tz: string,
  ): Promise<ConnectorResult<Known | null>> {
    const code = attempt.request.verificationCode;
    if (code !== undefined) {
      const h = dataFrom(
        await call("GET", `/customers/${encodeURIComponent(attempt.customerId)}/appointments`, {
          query: { businessId: ctx.business.id },
          headers: { "x-verification-code": code },
        }),
        readAppointments,
        "appointment history",
      );
      if (h.ok) {
        const ours = (a: WireAppointment, b: UpstreamBooking | undefined): b is UpstreamBooking =>
          b !== undefined &&
          b.start === attempt.request.start &&
          b.serviceId === attempt.request.serviceId &&
          (attempt.memberId === undefined || a.memberId === attempt.memberId) &&
          (a.notes !== undefined ? a.notes.includes(marker(key)) : b.status !== "cancelled");
        const match = h.value.map((a) => ({ a, b: bookingOf(ctx, a, key) })).find(({ a, b }) => ours(a, b));
        if (match?.b !== undefined) {
          const known: Known = {
            booking: match.b,
            customerId: attempt.customerId,
            ...(h.upstream ? { upstream: h.upstream } : {}),
          };
          journal.markBooked(key, known);
          return withMeta(known, h.upstream);
        }
        journal.markRefused(key, h.upstream);
        return withMeta(null, h.upstream);
      }
      if (h.error.code !== "verification_required" && h.error.code !== "verification_failed") return h;
    }
    const date = isoDate(localDay(attempt.request.start, tz));
    const time = localTime(attempt.request.start, tz);
    const members =
      attempt.memberId !== undefined ? [attempt.memberId] : ctx.location.members.map((m) => m.id);
    let meta: UpstreamMeta | undefined;
    for (const memberId of members) {
      const r = await openings(ctx, memberId, date, attempt.request.serviceId);
      if (!r.ok) return r;
      meta = r.upstream;
      if (!r.value.includes(time)) {
        return fail(
          {
            code: "unavailable",
            message:
              "Openings: outcome unknown: a create's answer was lost and its time is now taken; without the customer's verification code the history cannot show whether it is this booking, so it is not sent again",
          },
          meta,
        );
      }
    }
    journal.markRefused(key, meta);
    return withMeta(null, meta);
  }

  /** An attempt the caller hands back (another process sent it): its customer found again. */
  async function attemptOf(ctx: Context, request: UpstreamCreate): Promise<ConnectorResult<Attempt>> {
    const customer = await customerFor(ctx, request.customer);
    if (!customer.ok) return customer;
    const memberId = request.resourceIds[0];
    return withMeta(
      { request, customerId: customer.value, ...(memberId !== undefined ? { memberId } : {}) },
      customer.upstream,
    );
  }

  async function book(request: UpstreamCreate): Promise<ConnectorResult<UpstreamBooking>> {
    const key = request.idempotencyKey;
    const known = journal.booked(key);
    if (known !== undefined) return withMeta(known.booking, replayed(known.upstream));
    const c = await ensureContext();
    if (!c.ok) return c;
    const ctx = c.value;
    const tz = ctx.timezone;
    if (tz === undefined) return noZone();
    const pending = journal.unresolvedAttempt(key);
    if (pending !== undefined) {
      const r = await resolve(ctx, key, pending.request, tz);
      if (!r.ok) return r;
      if (r.value !== null) return withMeta(r.value.booking, r.upstream);
    }
    let memberId = request.resourceIds[0];
    if (memberId === undefined) {
      const picked = await pickMember(ctx, request, tz);
      if (!picked.ok) return picked;
      if (picked.value === null)
        return fail(
          { code: "slot_taken", message: "Openings: no member is free at that time" },
          picked.upstream,
        );
      memberId = picked.value;
    }
    const customer = await customerFor(ctx, request.customer);
    if (!customer.ok) return customer;
    const { serviceId, optionId } = splitService(request.serviceId);
    const attempt: Attempt = { request, memberId, customerId: customer.value };
    journal.markSent(key, attempt, clock.now());
    const r = await call("POST", "/appointments", {
      body: {
        businessId: ctx.business.id,
        locationId: ctx.location.id,
        memberId,
        serviceId,
        ...(optionId !== undefined ? { optionId } : {}),
        customerId: customer.value,
        date: isoDate(localDay(request.start, tz)),
        time: localTime(request.start, tz),
        // The key rides in the notes, so the salon can match an answer that was lost.
        notes: `${request.notes ? `${request.notes.slice(0, 900)}\n` : ""}[booking-gateway ${key}]`,
        // The raw code passes through to the platform and is kept nowhere (OSBP "Verification is sacred").
        ...(request.verificationCode !== undefined ? { verificationCode: request.verificationCode } : {}),
      },
    });
    if (!r.ok) {
      if (r.error.code !== "timeout" && r.error.code !== "unavailable") journal.markRefused(key, r.upstream);
      return r;
    }
    const { status, body } = r.value;
    if (status === 200 || status === 201) {
      const a = readAppointment(dataOf(body));
      const booking = a && bookingOf(ctx, a, key, request.end);
      if (booking === undefined) return unreadable("appointment", r.upstream);
      journal.markBooked(key, {
        booking,
        customerId: customer.value,
        ...(r.upstream ? { upstream: r.upstream } : {}),
      });
      return withMeta(booking, r.upstream);
    }
    journal.markRefused(key, r.upstream);
    return fail(statusError(status, errorOf(body), "appointment"), r.upstream);
  }

  const unsupported = (what: string): ConnectorResult<never> =>
    fail({
      code: "unsupported",
      message: `Openings' public API cannot ${what}: the salon does it in Openings`,
    });

  const bookings: BookingPort = {
    abilities: OPENINGS_BOOKING_ABILITIES,
    create: (request) => journal.single(request.idempotencyKey, () => book(request)),
    get(upstreamId) {
      const known = journal.find((k) => k.booking.upstreamId === upstreamId);
      // Not "not_found": the appointment may well exist (made before a restart). Its only
      // readback is the customer's history, gated behind a code a read cannot have (OSBP
      // "booking.status": fail closed with booking_status_requires_verification).
      return Promise.resolve(
        known
          ? withMeta(known.booking, replayed(known.upstream))
          : fail({
              code: "verification_required",
              message:
                "Openings has no public appointment readback; its customer history needs the customer verified",
              verificationMethod: context?.business.verification.method ?? "unknown",
            }),
      );
    },
    async findByIdempotencyKey(key, request) {
      const known = journal.booked(key);
      if (known !== undefined) return withMeta(known.booking, replayed(known.upstream));
      const refused = journal.refusal(key);
      if (refused !== undefined) return withMeta(null, replayed(refused.upstream));
      const pending = journal.unresolvedAttempt(key)?.request;
      // Never sent here and nothing to ask the platform with: memory alone, no call made.
      if (pending === undefined && request === undefined) return { ok: true, value: null };
      const c = await ensureContext();
      if (!c.ok) return c;
      if (c.value.timezone === undefined) return noZone();
      // Sent by this process, or handed back by the caller (sent elsewhere).
      const attempt =
        pending !== undefined ? withMeta(pending) : await attemptOf(c.value, request as UpstreamCreate);
      if (!attempt.ok) return attempt;
      const r = await resolve(c.value, key, attempt.value, c.value.timezone);
      return r.ok ? withMeta(r.value?.booking ?? null, r.upstream) : r;
    },
    move: () => Promise.resolve(unsupported("move an appointment")),
    cancel: () => Promise.resolve(unsupported("cancel an appointment")),
    setStatus: () => Promise.resolve(unsupported("change an appointment's status")),
  };

  function destination(
    c: UpstreamCustomer,
  ): { channel: "sms" | "email"; phone?: string; email?: string } | undefined {
    if (c.phone !== undefined) return { channel: "sms", phone: c.phone };
    if (c.email !== undefined) return { channel: "email", email: c.email };
    return undefined;
  }

  async function verificationCall(
    path: string,
    customer: UpstreamCustomer,
    code?: string,
  ): Promise<ConnectorResult<{ readonly method: "sms" | "email" }>> {
    const c = await ensureContext();
    if (!c.ok) return c;
    const to = destination(customer);
    if (to === undefined)
      return fail({ code: "invalid_request", message: "Openings verifies a phone number or an email" });
    const r = await call("POST", path, {
      // Openings scopes a code to the business, whatever purpose the caller names.
      body: {
        businessId: c.value.business.id,
        purpose: `booking:${c.value.business.id}`,
        ...to,
        ...(code !== undefined ? { code } : {}),
      },
    });
    if (!r.ok) return r;
    const { status, body } = r.value;
    if (status >= 200 && status < 300) {
      const data = dataOf(body) as { method?: unknown; verified?: unknown } | undefined;
      if (code !== undefined && data?.verified !== true) {
        return fail({ code: "verification_failed", message: "Openings did not accept the code" }, r.upstream);
      }
      return withMeta({ method: to.channel }, r.upstream);
    }
    return fail(statusError(status, errorOf(body), "verification"), r.upstream);
  }

  const verification: VerificationPort = {
    send: (customer) => verificationCall("/verifications", customer),
    verify: (customer, _purpose, code) => verificationCall("/verifications/verify", customer, code),
  };

  return {
    platform: OPENINGS_PLATFORM,
    kind: "platform",
    catalog,
    slots,
    bookings,
    verification,
    async nextAvailable(id) {
      const c = await ensureContext();
      if (!c.ok) return c;
      const tz = c.value.timezone;
      if (tz === undefined) return noZone();
      const { serviceId, optionId } = splitService(id);
      const r = dataFrom(
        await call("GET", `/locations/${encodeURIComponent(c.value.location.id)}/next-availability`, {
          query: { serviceId, optionId },
        }),
        (d) => (d === null ? null : (readNext(d) ?? undefined)),
        "next availability",
      );
      if (!r.ok) return r;
      if (r.value === null) return withMeta(null, r.upstream);
      const start = instantOf(r.value.date, r.value.time, tz);
      const duration = durationOf(c.value, id);
      if (start === undefined) return unreadable("next availability", r.upstream);
      return withMeta(
        {
          serviceId: id,
          start,
          ...(duration !== undefined ? { end: start + duration } : {}),
          resourceIds: [r.value.memberId],
        },
        r.upstream,
      );
    },
  };
}

/** A non-2xx answer the transport rules left to the connector. */
function statusError(
  status: number,
  e: { code?: string; method?: "sms" | "email" },
  what: string,
): ConnectorError {
  switch (status) {
    case 401:
    case 403:
    case 428:
      return {
        code: "verification_required",
        message: "Openings needs the customer verified before booking",
        verificationMethod: e.method ?? "unknown",
      };
    case 409:
      return { code: "slot_taken", message: "Openings: that time is no longer open" };
    case 404:
      return { code: "not_found", message: `Openings: ${what} not found` };
    case 422:
      return e.code === "invalid_code" || e.code === "verification_failed"
        ? { code: "verification_failed", message: "Openings did not accept the verification code" }
        : {
            code: "invalid_request",
            message: `Openings refused the ${what} (HTTP 422${e.code ? ` ${e.code}` : ""})`,
          };
    default:
      return {
        code: "invalid_request",
        message: `Openings refused the ${what} (HTTP ${status}${e.code ? ` ${e.code}` : ""})`,
      };
  }
}
