/**
 * Servicialo / Coordinalo as a platform connector (specs/servicialo-a2a-v1.2.0.md, REST under
 * /api/servicialo/{orgSlug}, "the recommended integration path for structured agents"):
 * catalog from list_services, slots from check_availability, bookings through book_session,
 * cancel_session and reschedule_session. No verification capability: Servicialo has none.
 *
 * What the REST API does not have, and what the connector does instead (README.md here):
 * - no readback of a session (no GET, no search): get and findByIdempotencyKey answer from what
 *   this process was told (CreateJournal), with the telling call's metadata marked a replay; a
 *   create whose answer was lost (or an attempt handed back by the caller) is checked against
 *   availability (the attempted start still free: nothing was booked; taken: outcome unknown);
 * - no idempotent create: one create per key in flight; the platform's own double-booking
 *   check (409 SLOT_CONFLICT for the same provider and time) is what stops a second booking
 *   when a process retries after losing an answer.
 */
import type { Logger } from "../../protocol/logger.js";
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamNotice,
  type UpstreamPacing,
} from "../http.js";
import { CreateJournal, replayed } from "../http/create-journal.js";
import type { Connector } from "../port.js";
import type {
  BookingAbilities,
  BookingMove,
  BookingPort,
  UpstreamBooking,
  UpstreamCreate,
  UpstreamStatus,
} from "../ports/bookings.js";
import type { Catalog, CatalogService, CatalogSource } from "../ports/catalog.js";
import type { ConnectorError, ConnectorResult, PlatformIdentity, UpstreamMeta } from "../ports/result.js";
import type { AvailabilityQuery, SlotSource, UpstreamSlot } from "../ports/slots.js";
import { fromMajorUnits } from "../../protocol/money/index.js";
import { dateOfEpochDay, epochDay, type LocalDate } from "../../protocol/time/calendar.js";
import { formatInstant, instantToWallClock } from "../../protocol/time/index.js";
import { parseServicialoSettings, type ServicialoSettings } from "./settings.js";
import {
  readAvailability,
  readBooked,
  readCancelled,
  readError,
  readRescheduled,
  readServices,
  readStatedTotal,
  statusOf,
  type WireAvailability,
  type WireSession,
} from "./wire.js";

/**
 * Servicialo has no request-side version (no header, no path segment): the pin recorded is the
 * documented spec version, servicialo-a2a v1.2.0 (/work/shared/specs, retrieved 2026-12), and
 * the answers' `servicialo_version` body member is what drifts visibly (OSBP "Platform Metadata").
 */
export const SERVICIALO_PLATFORM: PlatformIdentity = { vendor: "servicialo", api_version: "1.2.0" };

/**
 * Servicialo v1.2.0 REST has no session read, list or search (README.md "Idempotency"): a key
 * is found only in this process's memory, and a lost create only proven absent.
 */
export const SERVICIALO_BOOKING_ABILITIES: BookingAbilities = {
  findByKey: "none",
  readback: false,
  move: true,
  cancel: true,
};

export interface ServicialoDeps {
  readonly fetch?: typeof fetch;
  readonly clock?: { now(): number };
  readonly sleep?: (ms: number) => Promise<void>;
  readonly logger?: Pick<Logger, "warn">;
  readonly onNotice?: (notice: UpstreamNotice) => void;
  /** Wait before the one retry of a 500 or 502 ("Error Recovery": retry once after 5 seconds). */
  readonly retryDelayMs?: number;
  /** Retry-After honoured across calls and processes (connectors/http/pacing.ts). */
  readonly pacing?: UpstreamPacing;
}

export interface ServicialoConnector extends Connector {
  readonly kind: "platform";
  readonly catalog: CatalogSource;
  readonly slots: SlotSource;
  readonly bookings: BookingPort;
  /** Single-day mode: the day's free starts, and the platform's reason when there are none. */
  day(
    serviceId: string,
    date: string,
    providerId?: string,
  ): Promise<ConnectorResult<{ readonly slots: readonly UpstreamSlot[]; readonly reason?: string }>>;
  /** Next-N mode: the next `n` (1-50) free starts. */
  next(serviceId: string, n: number, providerId?: string): Promise<ConnectorResult<readonly UpstreamSlot[]>>;
}

interface Known {
  readonly booking: UpstreamBooking;
  readonly upstream?: UpstreamMeta;
}

type Sent = ConnectorResult<{ readonly status: number; readonly body: unknown }>;

const MAX_RANGE_DAYS = 90;

/**
 * "4. cancel_session", Request Fields: `cancelledBy` is "client", "provider", "admin" or
 * "system" (default "system"). The guest is the client; the host (the business, its operator)
 * is the provider side; the gateway acting on its own (an approval deadline) is the system.
 */
const CANCELLED_BY = { guest: "client", host: "provider", system: "system" } as const;

const fail = <T>(error: ConnectorError, upstream?: UpstreamMeta): ConnectorResult<T> =>
  upstream === undefined ? { ok: false, error } : { ok: false, error, upstream };

const withMeta = <T>(value: T, upstream?: UpstreamMeta): ConnectorResult<T> =>
  upstream === undefined ? { ok: true, value } : { ok: true, value, upstream };

const unreadable = <T>(what: string, upstream?: UpstreamMeta): ConnectorResult<T> =>
  fail({ code: "unavailable", message: `Servicialo answered an unreadable ${what}` }, upstream);

const isoDate = (d: LocalDate): string =>
  `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

export function createServicialoConnector(
  rawSettings: unknown,
  deps: ServicialoDeps = {},
): ServicialoConnector {
  const parsed = parseServicialoSettings(rawSettings);
  if (!parsed.ok)
    throw new Error(`servicialo settings ${parsed.error.field || "/"}: ${parsed.error.message}`);
  const settings: ServicialoSettings = parsed.value;
  const clock = deps.clock ?? { now: () => Date.now() };
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const retryDelayMs = deps.retryDelayMs ?? 5_000;
  const apiKey = settings.apiKey;
  const client: UpstreamClient = createUpstreamClient({
    vendor: SERVICIALO_PLATFORM.vendor,
    apiVersion: SERVICIALO_PLATFORM.api_version,
    baseUrl: settings.baseUrl,
    pin: { pathPrefix: `/api/servicialo/${encodeURIComponent(settings.orgSlug)}` },
    ...(apiKey !== undefined ? { credentials: () => Promise.resolve({ "X-Org-Api-Key": apiKey }) } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.maxPerSecond !== undefined ? { maxPerSecond: settings.maxPerSecond } : {}),
    ...(deps.fetch !== undefined ? { fetch: deps.fetch } : {}),
    clock,
    ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
    ...(deps.onNotice !== undefined ? { onNotice: deps.onNotice } : {}),
    ...(deps.pacing !== undefined ? { pacing: deps.pacing } : {}),
  });
  // Each booking with the metadata of the call that last told us about it (no readback exists);
  // answered again from memory, that metadata is marked a replay.
  const journal = new CreateJournal<UpstreamCreate, Known>();
  const answer = (k: Known): ConnectorResult<UpstreamBooking> => withMeta(k.booking, replayed(k.upstream));
  const byId = (id: string) => (k: Known) => k.booking.upstreamId === id;
  // The verbatim start text of each slot seen, so a booking sends the slot's start as it came.
  const startTexts = new Map<number, string>();
  // Each service's listed currency (last catalog read): a slot's stated total in another is not read.
  const currencies = new Map<string, string>();

  /** One call; a 500 or 502 is retried once ("HTTP Status Codes": 500 retry once; 502 retry). */
  async function send(
    method: string,
    path: string,
    extra: { query?: Record<string, string | number | undefined>; body?: unknown; authed?: boolean } = {},
  ): Promise<{ readonly result: Sent; readonly retried: boolean }> {
    const request = {
      method,
      path,
      ...(extra.query !== undefined ? { query: extra.query } : {}),
      ...(extra.body !== undefined ? { body: extra.body } : {}),
      anonymous: extra.authed !== true,
    };
    const first = await client.request(request);
    const status = first.upstream?.status;
    if (first.ok || (status !== 500 && status !== 502)) return { result: first, retried: false };
    await sleep(retryDelayMs);
    return { result: await client.request(request), retried: true };
  }

  function serviceOf(
    w: NonNullable<ReturnType<typeof readServices>>["services"][number],
  ): CatalogService | undefined {
    if (w.duration_minutes === null) return undefined;
    let price: CatalogService["price"];
    if (w.price !== undefined && w.currency !== undefined) {
      // "price": whole currency units as a numeric string; scaled by the ISO 4217 exponent.
      const minor = fromMajorUnits(typeof w.price === "string" ? w.price.trim() : w.price, w.currency, "");
      if (minor.ok) price = { minor: minor.value, currency: w.currency };
    }
    return {
      id: w.id,
      name: w.name,
      duration: w.duration_minutes * 60_000,
      bufferAfterMs: 0,
      ...(price !== undefined
        ? { price, pricePer: "booking" as const, priceType: "fixed" as const }
        : { priceType: "unknown" as const }),
      requires:
        settings.providers !== undefined && settings.providers.length > 0 ? [{ resourceType: "person" }] : [],
      ...(settings.paymentRequirement !== undefined
        ? { payment: { requirement: settings.paymentRequirement } }
        : {}),
    };
  }

  const catalog: CatalogSource = {
    async read() {
      const { result } = await send("GET", "/services");
      if (!result.ok) return result;
      const wire = readServices(result.value.status === 200 ? result.value.body : undefined);
      if (result.value.status === 404) {
        return fail(
          { code: "not_found", message: "Servicialo: organization not found or not public" },
          result.upstream,
        );
      }
      if (wire === undefined) return unreadable("services list", result.upstream);
      const services = wire.services.map(serviceOf).filter((s): s is CatalogService => s !== undefined);
      currencies.clear();
      for (const s of services) if (s.price !== undefined) currencies.set(s.id, s.price.currency);
      const value: Catalog = {
        organization: {
          id: settings.orgSlug,
          name: wire.organization.name,
          timezone: settings.timezone,
          ...(wire.services[0]?.currency !== undefined ? { currency: wire.services[0].currency } : {}),
          ...(wire.organization.confirmation !== undefined
            ? { confirmation: wire.organization.confirmation }
            : {}),
        },
        services,
        resources: (settings.providers ?? []).map((p) => ({
          id: p.id,
          type: "person",
          name: p.name,
          capacity: 1,
          // Servicialo computes availability itself and publishes no weekly hours: the gateway
          // must not narrow its slots by hours of its own, so every provider is open all week.
          hours: ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => ({ day, open: "00:00", close: "24:00" })),
          staff: true,
        })),
        taxes: [],
        verificationMethod: "none",
      };
      return { ok: true, value, ...(result.upstream ? { upstream: result.upstream } : {}) };
    },
  };

  function slotsOf(serviceId: string, wire: WireAvailability): UpstreamSlot[] {
    const out: UpstreamSlot[] = [];
    for (const s of wire.slots) {
      const start = Date.parse(s.start);
      const end = Date.parse(s.end);
      if (Number.isNaN(start) || Number.isNaN(end)) continue;
      if (startTexts.size > 5_000) startTexts.clear();
      startTexts.set(start, s.start);
      // The slot's all-in total when the platform states one (wire.ts WireSlot): the gateway
      // quotes that, so what an agent shows is what the business records at that start.
      const total = readStatedTotal(s, currencies.get(serviceId));
      out.push({
        serviceId,
        start,
        end,
        resourceIds: s.providerId !== undefined ? [s.providerId] : [],
        ...(total !== undefined ? { total } : {}),
      });
    }
    return out;
  }

  function availabilityError<T>(r: Sent): ConnectorResult<T> | undefined {
    if (!r.ok) return r;
    if (r.value.status === 200) return undefined;
    const e = readError(r.value.body);
    if (r.value.status === 404) {
      return fail({ code: "not_found", message: `Servicialo: ${e.error ?? "not found"}` }, r.upstream);
    }
    return fail(
      {
        code: "invalid_request",
        message: `Servicialo refused the availability query (HTTP ${r.value.status})`,
      },
      r.upstream,
    );
  }

  async function availability(
    serviceId: string,
    mode: { date: string } | { from: string; days: number } | { next: number },
    providerId: string | undefined,
  ): Promise<ConnectorResult<{ slots: UpstreamSlot[]; reason?: string }>> {
    const { result } = await send("GET", "/availability", { query: { serviceId, providerId, ...mode } });
    const bad = availabilityError<{ slots: UpstreamSlot[] }>(result);
    if (bad !== undefined) return bad;
    const wire = readAvailability(result.ok ? result.value.body : undefined);
    if (wire === undefined) return unreadable("availability answer", result.upstream);
    return {
      ok: true,
      value: {
        slots: slotsOf(serviceId, wire),
        ...(wire.reason !== undefined ? { reason: wire.reason } : {}),
      },
      ...(result.upstream ? { upstream: result.upstream } : {}),
    };
  }

  const localDay = (ms: number): LocalDate => {
    const w = instantToWallClock(ms, settings.timezone);
    return { year: w.year, month: w.month, day: w.day };
  };

  const providersFor = (ids: readonly string[] | undefined): (string | undefined)[] =>
    ids !== undefined && ids.length > 0
      ? [...ids]
      : settings.providers !== undefined && settings.providers.length > 0
        ? settings.providers.map((p) => p.id)
        : [undefined];

  const slots: SlotSource = {
    async find(query: AvailabilityQuery) {
      if (query.range.end <= query.range.start) return { ok: true, value: [] };
      const first = epochDay(localDay(query.range.start));
      const last = epochDay(localDay(query.range.end - 1));
      const found: UpstreamSlot[] = [];
      let meta: UpstreamMeta | undefined;
      for (const providerId of providersFor(query.resourceIds)) {
        for (let day = first; day <= last; day += MAX_RANGE_DAYS) {
          const days = Math.min(MAX_RANGE_DAYS, last - day + 1);
          const from = isoDate(dateOfEpochDay(day));
          // One local day: the single-day mode (it also says why a day is empty).
          const mode = days === 1 ? { date: from } : { from, days };
          const r = await availability(query.serviceId, mode, providerId);
          if (!r.ok) return r;
          meta = r.upstream;
          found.push(
            ...r.value.slots.filter((s) => s.start >= query.range.start && s.start < query.range.end),
          );
        }
      }
      found.sort((a, b) => a.start - b.start);
      return { ok: true, value: found, ...(meta ? { upstream: meta } : {}) };
    },
  };

  const startText = (ms: number): string => startTexts.get(ms) ?? formatInstant(ms, settings.timezone);

  function bookingFrom(
    session: WireSession,
    base: { serviceId: string; resourceIds: readonly string[]; idempotencyKey?: string },
    fallbackStatus: UpstreamStatus,
  ): UpstreamBooking | undefined {
    const start = Date.parse(session.scheduled_at);
    if (Number.isNaN(start)) return undefined;
    const status = statusOf(session);
    // A book answer of this gateway's own A2A edge states the total it recorded (wire.ts).
    const total = readStatedTotal(session, currencies.get(base.serviceId));
    return {
      upstreamId: session.id,
      ...(base.idempotencyKey !== undefined ? { idempotencyKey: base.idempotencyKey } : {}),
      serviceId: base.serviceId,
      start,
      ...(session.duration_minutes !== undefined ? { end: start + session.duration_minutes * 60_000 } : {}),
      resourceIds: base.resourceIds,
      status: status === "unknown" ? fallbackStatus : status,
      ...(total !== undefined ? { total } : {}),
    };
  }

  /**
   * A lost create: is its start still free with that provider (with every configured provider
   * when it named none)? Then no live session holds it, so none of ours does.
   */
  async function stillFree(request: UpstreamCreate): Promise<ConnectorResult<boolean>> {
    const date = isoDate(localDay(request.start));
    let meta: UpstreamMeta | undefined;
    for (const providerId of providersFor(request.resourceIds)) {
      const r = await availability(request.serviceId, { date }, providerId);
      if (!r.ok) return r;
      meta = r.upstream;
      if (!r.value.slots.some((s) => s.start === request.start)) return withMeta(false, meta);
    }
    return withMeta(true, meta);
  }

  /**
   * What became of a create whose answer was lost, as far as Servicialo can tell: the time
   * free means nothing was booked (the key is free again); taken, it cannot tell whether the
   * session is ours (`ambiguous`), and the create is never sent again.
   */
  async function settle(key: string, request: UpstreamCreate): Promise<ConnectorResult<null>> {
    const free = await stillFree(request);
    if (!free.ok) return free;
    if (!free.value) return ambiguous(free.upstream);
    journal.markRefused(key, free.upstream);
    return withMeta(null, free.upstream);
  }

  async function pickProvider(request: UpstreamCreate): Promise<ConnectorResult<string | undefined>> {
    const date = isoDate(localDay(request.start));
    let meta: UpstreamMeta | undefined;
    for (const p of settings.providers ?? []) {
      const r = await availability(request.serviceId, { date }, p.id);
      if (!r.ok) return r;
      meta = r.upstream;
      if (r.value.slots.some((s) => s.start === request.start)) return withMeta(p.id, meta);
    }
    return withMeta(undefined, meta);
  }

  const ambiguous = (upstream?: UpstreamMeta): ConnectorResult<never> =>
    fail(
      {
        code: "unavailable",
        message:
          "Servicialo: outcome unknown: a create's answer was lost and its time is now taken; Servicialo has no session readback to tell whether the session is this booking, so it is not sent again (the business can match it by the [booking-gateway <key>] note)",
      },
      upstream,
    );

  async function book(request: UpstreamCreate): Promise<ConnectorResult<UpstreamBooking>> {
    const key = request.idempotencyKey;
    const known = journal.booked(key);
    if (known !== undefined) return answer(known);
    const pending = journal.unresolvedAttempt(key);
    if (pending !== undefined) {
      const settled = await settle(key, pending.request);
      if (!settled.ok) return settled;
    }
    const email = request.customer?.email ?? settings.fallbackClientEmail;
    if (email === undefined) {
      return fail({
        code: "invalid_request",
        message: "Servicialo needs the customer's email (clientEmail) to book",
      });
    }
    const [first, ...rest] = (request.customer?.name ?? "").trim().split(/\s+/);
    let providerId = request.resourceIds[0];
    if (providerId === undefined && settings.providers !== undefined && settings.providers.length > 0) {
      // No provider named: the first configured provider free at that start, so the booking
      // knows whose time it holds (the platform's own default would be "first assigned").
      const picked = await pickProvider(request);
      if (!picked.ok) return picked;
      if (picked.value === undefined) {
        return fail(
          { code: "slot_taken", message: "Servicialo: no provider is free at that time" },
          picked.upstream,
        );
      }
      providerId = picked.value;
    }
    const body = {
      clientEmail: email,
      ...(first ? { clientName: first } : {}),
      ...(rest.length > 0 ? { clientLastName: rest.join(" ") } : {}),
      ...(request.customer?.phone !== undefined ? { clientPhone: request.customer.phone } : {}),
      serviceId: request.serviceId,
      ...(providerId !== undefined ? { providerId } : {}),
      // "Use the exact slot time from check_availability in scheduledAt", with its offset.
      scheduledAt: startText(request.start),
      ...(request.end !== undefined ? { duration: Math.round((request.end - request.start) / 60_000) } : {}),
      // The key rides in the notes the provider sees, so the business can match a lost answer.
      notes: `${request.notes ? `${request.notes.slice(0, 1900)}\n` : ""}[booking-gateway ${key}]`,
      initialStatus: request.tentative ? "pending_confirmation" : "scheduled",
    };
    journal.markSent(
      key,
      { ...request, resourceIds: providerId !== undefined ? [providerId] : [] },
      clock.now(),
    );
    const { result, retried } = await send("POST", "/book", { body });
    if (!result.ok) {
      // No answer, or a 5xx: the platform may have booked. Otherwise it refused.
      if (result.error.code !== "timeout" && result.error.code !== "unavailable")
        journal.markRefused(key, result.upstream);
      return result;
    }
    const { status, body: reply } = result.value;
    const meta = result.upstream;
    if (status === 201 || status === 200) {
      const session = readBooked(reply);
      const booking =
        session &&
        bookingFrom(
          session,
          { serviceId: request.serviceId, resourceIds: providerId ? [providerId] : [], idempotencyKey: key },
          request.tentative ? "tentative" : "confirmed",
        );
      if (booking === undefined) return unreadable("booking answer", meta);
      journal.markBooked(key, { booking, ...(meta ? { upstream: meta } : {}) });
      return { ok: true, value: booking, ...(meta ? { upstream: meta } : {}) };
    }
    const e = readError(reply);
    if (status === 409 && retried) return ambiguous(meta);
    journal.markRefused(key, meta);
    return fail(bookError(status, e, settings.paymentUrl), meta);
  }

  const bookings: BookingPort = {
    abilities: SERVICIALO_BOOKING_ABILITIES,
    create: (request) => journal.single(request.idempotencyKey, () => book(request)),

    get(upstreamId) {
      // No session readback in Servicialo v1.2.0: what this process was told, or not_found.
      const known = journal.find(byId(upstreamId));
      return Promise.resolve(
        known !== undefined
          ? answer(known)
          : fail({
              code: "not_found",
              message: "Servicialo has no session readback; this session is unknown here",
            }),
      );
    },

    async findByIdempotencyKey(key, attempt) {
      const known = journal.booked(key);
      if (known !== undefined) return answer(known);
      const refused = journal.refusal(key);
      if (refused !== undefined) return withMeta(null, replayed(refused.upstream));
      // Sent by this process and unanswered, or sent elsewhere (the caller hands the attempt back).
      const request = journal.unresolvedAttempt(key)?.request ?? attempt;
      if (request !== undefined) return settle(key, request);
      // Never sent here and nothing to ask the platform with: memory alone, no call made.
      return { ok: true, value: null };
    },

    async move(upstreamId, change: BookingMove) {
      const known = journal.find(byId(upstreamId))?.booking;
      const provider = known?.resourceIds[0];
      if (change.resourceIds.length > 0 && provider !== undefined && change.resourceIds[0] !== provider) {
        // Refused here, before any request ("5. reschedule_session": "Changing the provider
        // while rescheduling is not supported"): the platform never saw it, so it is not its
        // refusal (unsupported, not invalid_request).
        return fail({
          code: "unsupported",
          message: "Servicialo cannot change the provider when rescheduling; nothing was sent to it",
        });
      }
      const { result } = await send("POST", `/sessions/${encodeURIComponent(upstreamId)}/reschedule`, {
        body: { scheduledAt: startText(change.start) },
        authed: true,
      });
      if (!result.ok) return result;
      const { status, body } = result.value;
      if (status === 200) {
        const session = readRescheduled(body);
        const booking =
          session &&
          bookingFrom(
            session,
            {
              serviceId: known?.serviceId ?? "",
              resourceIds: known?.resourceIds ?? [],
              ...(known?.idempotencyKey ? { idempotencyKey: known.idempotencyKey } : {}),
            },
            known?.status ?? "confirmed",
          );
        if (booking === undefined) return unreadable("reschedule answer", result.upstream);
        journal.update(byId(upstreamId), () => ({
          booking,
          ...(result.upstream ? { upstream: result.upstream } : {}),
        }));
        return { ok: true, value: booking, ...(result.upstream ? { upstream: result.upstream } : {}) };
      }
      return fail(rescheduleError(status, readError(body)), result.upstream);
    },

    async cancel(upstreamId, reason, by) {
      // Cancelled already, by this process: answered as it is, with the call that cancelled it.
      const before = journal.find(byId(upstreamId));
      if (before?.booking.status === "cancelled") return answer(before);
      const { result } = await send("POST", `/sessions/${encodeURIComponent(upstreamId)}/cancel`, {
        body: {
          ...(reason !== undefined ? { reason: reason.slice(0, 500) } : {}),
          cancelledBy: CANCELLED_BY[by ?? "system"],
        },
        authed: true,
      });
      if (!result.ok) return result;
      const { status, body } = result.value;
      const e = readError(body);
      // Cancelling a cancelled session answers it as it is (the port's cancel is idempotent).
      const done =
        (status === 200 && readCancelled(body) !== undefined) ||
        (status === 409 && e.code === "ALREADY_CANCELLED");
      if (done) {
        const known = journal.find(byId(upstreamId))?.booking;
        const booking: UpstreamBooking = known
          ? { ...known, status: "cancelled" }
          : // Unknown to this process (no readback): the id and the state are all the platform said.
            { upstreamId, serviceId: "", start: 0, resourceIds: [], status: "cancelled" };
        journal.update(byId(upstreamId), () => ({
          booking,
          ...(result.upstream ? { upstream: result.upstream } : {}),
        }));
        return { ok: true, value: booking, ...(result.upstream ? { upstream: result.upstream } : {}) };
      }
      if (status === 404)
        return fail({ code: "not_found", message: "Servicialo: session not found" }, result.upstream);
      return fail(
        {
          code: "invalid_request",
          message: `Servicialo refused the cancel (HTTP ${status}${e.currentStatus ? `, session is ${e.currentStatus}` : ""})`,
        },
        result.upstream,
      );
    },

    async setStatus(upstreamId, status) {
      if (status === "cancelled") return bookings.cancel(upstreamId);
      return fail({ code: "unsupported", message: `Servicialo's REST API cannot set a session ${status}` });
    },
  };

  return {
    platform: SERVICIALO_PLATFORM,
    kind: "platform",
    catalog,
    slots,
    bookings,
    async day(serviceId, date, providerId) {
      return availability(serviceId, { date }, providerId);
    },
    async next(serviceId, n, providerId) {
      const r = await availability(serviceId, { next: Math.max(1, Math.min(50, Math.floor(n))) }, providerId);
      return r.ok ? { ok: true, value: r.value.slots, ...(r.upstream ? { upstream: r.upstream } : {}) } : r;
    },
  };
}

/**
 * book_session errors ("3. book_session", Error Responses). `paymentUrl` is the business's own
 * page from the host's settings: the 402 body names none.
 */
function bookError(
  status: number,
  e: { error?: string; code?: string },
  paymentUrl?: string,
): ConnectorError {
  switch (e.code ?? "") {
    case "SLOT_CONFLICT":
    case "OUTSIDE_PROVIDER_HOURS":
      return { code: "slot_taken", message: `Servicialo: ${e.code}` };
    case "PAST_DATE":
    case "VALIDATION_ERROR":
      return { code: "invalid_request", message: `Servicialo: ${e.code}` };
  }
  if (status === 402 || /^PAYMENT_/.test(e.code ?? "")) return paymentRequired(e.code, paymentUrl);
  if (status === 409) return { code: "slot_taken", message: "Servicialo: conflict" };
  if (status === 404)
    return {
      code: "not_found",
      message: `Servicialo: ${e.error === "Provider not found" ? "provider" : "service"} not found`,
    };
  return { code: "invalid_request", message: `Servicialo refused the booking (HTTP ${status})` };
}

/**
 * 402: PAYMENT_REQUIRED ("Service requires pre-payment"), and PAYMENT_NOT_APPROVED /
 * _INSUFFICIENT / _ALREADY_USED, which concern a `paymentIntentId` this gateway never sends
 * (it collects no payment), read the same way. "Error Recovery": "Inform user that prepayment
 * is needed, do NOT collect payment"; "HTTP Status Codes": 402 is not retryable. The spec's body
 * is `{ error, code, ... }` with no link or amount documented, so neither is read from it; the
 * message names the platform's code only (its `error` text is not echoed).
 */
function paymentRequired(code: string | undefined, paymentUrl: string | undefined): ConnectorError {
  const named = code !== undefined && /^PAYMENT_[A-Z_]+$/.test(code) ? code : "HTTP 402";
  return {
    code: "payment_required",
    message: `Servicialo ${named}: the service must be paid for up front, with the business`,
    ...(paymentUrl !== undefined ? { payment: { url: paymentUrl } } : {}),
  };
}

/** reschedule_session errors: every refusal is 400 SLOT_INVALID, told apart by its text. */
function rescheduleError(
  status: number,
  e: { error?: string; code?: string; currentStatus?: string },
): ConnectorError {
  if (status === 404) return { code: "not_found", message: "Servicialo: session not found" };
  if (status === 409) return { code: "slot_taken", message: "Servicialo: conflict" };
  if (
    status === 400 &&
    e.code === "SLOT_INVALID" &&
    e.currentStatus === undefined &&
    !/past/i.test(e.error ?? "")
  ) {
    return { code: "slot_taken", message: "Servicialo: the new time is not free" };
  }
  return {
    code: "invalid_request",
    message: `Servicialo refused the reschedule (HTTP ${status}${e.currentStatus ? `, session is ${e.currentStatus}` : ""})`,
  };
}
