/**
 * check_availability (A2A §2) over the core's directOpenings: the same starts a SchCP agent
 * would be offered (live holds and bookings from every edge, window, notice, horizon).
 *
 * Modes, in the spec's precedence: next (1–50) > from (+days 1–90, default 7) > date; none:
 * today in the host's zone. Days are the host's local days (DST-correct).
 *
 * A single day without slots carries `reason`, derived from what the gateway knows:
 *   NO_AVAILABILITY_CONFIGURED  the provider has no working hours on that weekday
 *   NO_SLOTS_FOR_DATE           it has, but the day's last working period has already closed,
 *                               or the day lies past the horizon the gateway offers
 *   ALL_SLOTS_BOOKED            it has working time still ahead and nothing is free: taken by
 *                               bookings or live holds (here or upstream), or inside the notice
 *
 * Each slot of a priced service also carries `price` and `currency` (not in A2A §2; readers
 * ignore unknown members): the all-in amount of a booking at that start, surcharges included,
 * which is the total book_session records (services.ts "Which amount `price` is"). When this
 * host's own upstream states a slot's total (another gateway's A2A edge), that total is the one
 * sent, so a chain of gateways quotes what the business records.
 */
import type { BookingCoreApi } from "../../../booking/core.js";
import type { Caller, HostRuntime } from "../../../booking/api.js";
import type { CatalogResource, CatalogService } from "../../../booking/catalog.js";
import type { Money } from "../../../protocol/money/index.js";
import {
  addDays,
  instantToWallClock,
  isoWeekday,
  parseLocalDate,
  wallClockToInstant,
  type LocalDate,
} from "../../../protocol/time/index.js";
import type { IntentOutcome } from "../port.js";
import { providerJson, resolveProvider } from "./provider.js";
import { allInPrice, durationMinutes, priceText, publicServices } from "./services.js";
import { answer, failure, refusalOutcome, utc } from "./wire.js";

const DAY_MS = 86_400_000;
const pad = (n: number): string => String(n).padStart(2, "0");
const dateText = (d: LocalDate): string => `${String(d.year).padStart(4, "0")}-${pad(d.month)}-${pad(d.day)}`;

function midnight(d: LocalDate, zone: string): number {
  const r = wallClockToInstant({ ...d, hour: 0, minute: 0, second: 0, millisecond: 0 }, zone);
  if (!r.ok) throw new Error(`no midnight for ${dateText(d)} in ${zone}`);
  return r.value;
}

/** A whole-number query parameter in [min, max], or an error text. */
function intParam(v: unknown, name: string, min: number, max: number): number | string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= min && n <= max
    ? n
    : `${name} must be an integer between ${min} and ${max}`;
}

function dateParam(v: unknown, name: string): LocalDate | string {
  const d = parseLocalDate(v, name);
  return d.ok ? d.value : `${name} must be a date (YYYY-MM-DD)`;
}

export async function checkAvailability(
  core: BookingCoreApi,
  host: HostRuntime,
  caller: Caller,
  params: Readonly<Record<string, unknown>>,
  now: number,
): Promise<IntentOutcome> {
  const serviceId = params.serviceId;
  if (typeof serviceId !== "string" || serviceId === "") return failure(400, "serviceId is required");
  const service = publicServices(host).find((s) => s.id === serviceId);
  if (service === undefined) return failure(404, "Service not found");
  const provider = resolveProvider(host, service, params.providerId);
  if (provider === undefined) return failure(404, "No provider found for this service");
  const zone = host.config.timezone;

  const next = intParam(params.next, "next", 1, 50);
  const days = intParam(params.days, "days", 1, 90);
  if (typeof next === "string") return failure(400, next);
  if (typeof days === "string") return failure(400, days);
  const today = instantToWallClock(now, zone);

  if (next !== undefined) {
    const from = midnight(today, zone);
    const open = await openings(core, host, caller, service, provider, from, from + 91 * DAY_MS);
    if (!Array.isArray(open)) return open;
    return multiDay(host, service, provider, open.slice(0, next), now);
  }
  if (params.from !== undefined && params.from !== "") {
    const from = dateParam(params.from, "from");
    if (typeof from === "string") return failure(400, from);
    const start = midnight(from, zone);
    const end = midnight(addDays(from, days ?? 7), zone);
    const open = await openings(core, host, caller, service, provider, start, end);
    return Array.isArray(open) ? multiDay(host, service, provider, open, now) : open;
  }
  const date = params.date === undefined || params.date === "" ? today : dateParam(params.date, "date");
  if (typeof date === "string") return failure(400, date);
  const start = midnight(date, zone);
  const end = midnight(addDays(date, 1), zone);
  const open = await openings(core, host, caller, service, provider, start, end);
  if (!Array.isArray(open)) return open;
  const body: Record<string, unknown> = {
    date: dateText(date),
    provider: providerJson(provider),
    service: { id: service.id, duration_minutes: durationMinutes(service) },
    available_slots: open.map((o) => ({
      start: utc(o.start),
      end: utc(o.end),
      ...slotPrice(host, service, o, now),
    })),
    timezone: zone,
  };
  if (open.length === 0) body.reason = emptyDayReason(host, provider, date, end, now);
  return answer(200, body);
}

/** `stated`: the upstream's own all-in total at that start, when it states one (core openings). */
type Slot = { start: number; end: number; stated?: Money };

async function openings(
  core: BookingCoreApi,
  host: HostRuntime,
  caller: Caller,
  service: CatalogService,
  provider: CatalogResource,
  start: number,
  end: number,
): Promise<Slot[] | IntentOutcome> {
  const r = await core.openings(host.config.id, caller, {
    serviceId: service.id,
    range: { start, end },
    partySize: 1,
    resourceId: provider.id,
  });
  if (!r.ok) return refusalOutcome(r.error);
  const length = service.duration === "open" ? 0 : service.duration;
  return r.value.map((o) => ({
    start: o.start,
    end: o.end ?? o.start + length,
    ...(o.stated !== undefined && { stated: o.stated }),
  }));
}

/** The slot's all-in `price` and `currency`, or nothing for an unpriced service. */
function slotPrice(host: HostRuntime, service: CatalogService, o: Slot, now: number) {
  const total = allInPrice(host, service, now, o.start, o.stated);
  return total === undefined ? {} : { price: priceText(total), currency: total.currency };
}

function multiDay(
  host: HostRuntime,
  service: CatalogService,
  provider: CatalogResource,
  open: readonly Slot[],
  now: number,
) {
  const zone = host.config.timezone;
  return answer(200, {
    slots: open.map((o) => ({
      date: dateText(instantToWallClock(o.start, zone)),
      start: utc(o.start),
      end: utc(o.end),
      provider: providerJson(provider),
      ...slotPrice(host, service, o, now),
    })),
    service: { id: service.id, duration_minutes: durationMinutes(service) },
    timezone: zone,
  });
}

/** The rule in the file comment. */
function emptyDayReason(
  host: HostRuntime,
  provider: CatalogResource,
  date: LocalDate,
  dayEnd: number,
  now: number,
): "NO_AVAILABILITY_CONFIGURED" | "NO_SLOTS_FOR_DATE" | "ALL_SLOTS_BOOKED" {
  const weekday = isoWeekday(date);
  const periods = provider.hours.filter((p) => p.day === weekday);
  if (periods.length === 0) return "NO_AVAILABILITY_CONFIGURED";
  const zone = host.config.timezone;
  const lastClose = Math.max(
    ...periods.map((p) => {
      if (p.close === "24:00" || p.close <= p.open) return dayEnd;
      const [h = 0, m = 0] = p.close.split(":").map(Number);
      const at = wallClockToInstant({ ...date, hour: h, minute: m, second: 0, millisecond: 0 }, zone);
      return at.ok ? at.value : dayEnd;
    }),
  );
  if (lastClose <= now) return "NO_SLOTS_FOR_DATE";
  if (midnight(date, zone) >= now + host.config.policies.horizonMs) return "NO_SLOTS_FOR_DATE";
  return "ALL_SLOTS_BOOKED";
}
