/**
 * Openings public API payloads (path version /v1, no key, every answer `{ ok, data }` or
 * `{ ok: false, error }`), read tolerantly. The shapes are this connector's reading of the description of
 * the public client OSBP's Openings adapter uses; they could not be checked against that
 * adapter's source (see fixtures/openings/SOURCES.md), so every reader here checks what the
 * connector relies on and answers undefined (→ unavailable) on anything else.
 */
import type { WorkingPeriod } from "../../calendar/index.js";

export interface WireBusiness {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  /** IANA zone, or null when the business never set one. */
  readonly timezone: string | null;
  readonly verification: { readonly required: boolean; readonly method?: "sms" | "email" };
}

export interface WireLocation {
  readonly id: string;
  readonly name: string;
  readonly schedules: readonly WorkingPeriod[];
}

interface WireOption {
  readonly id: string;
  readonly name: string;
  readonly durationMinutes: number;
  /** Major units, no currency. */
  readonly price?: number;
}

interface WireService {
  readonly id: string;
  readonly name: string;
  readonly durationMinutes: number;
  readonly price?: number;
  readonly consultation: boolean;
  readonly options: readonly WireOption[];
}

interface WireMember {
  readonly id: string;
  readonly name: string;
  readonly schedules: readonly WorkingPeriod[];
}

export interface WireLocationDetail extends WireLocation {
  readonly members: readonly WireMember[];
  readonly services: readonly WireService[];
}

export interface WireAppointment {
  readonly id: string;
  readonly status: string;
  readonly memberId: string;
  readonly serviceId: string;
  readonly optionId?: string;
  /** Local date and time in the business's zone. */
  readonly date: string;
  readonly time: string;
  readonly durationMinutes?: number;
  readonly notes?: string;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const posInt = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
const money = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;

/** `{ ok: true, data }` → data; anything else → undefined. */
export function dataOf(body: unknown): unknown {
  return isObject(body) && body["ok"] === true && "data" in body ? body["data"] : undefined;
}

/** `{ ok: false, error: { code, message, method } }`. */
export function errorOf(body: unknown): { readonly code?: string; readonly method?: "sms" | "email" } {
  if (!isObject(body) || !isObject(body["error"])) return {};
  const code = str(body["error"]["code"]);
  const m = body["error"]["method"];
  return { ...(code !== undefined ? { code } : {}), ...(m === "sms" || m === "email" ? { method: m } : {}) };
}

const DAY: Readonly<Record<string, WorkingPeriod["day"]>> = {
  "1": 1,
  "2": 2,
  "3": 3,
  "4": 4,
  "5": 5,
  "6": 6,
  "7": 7,
};
const HHMM = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

function schedules(v: unknown): WorkingPeriod[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return undefined;
  const out: WorkingPeriod[] = [];
  for (const s of v) {
    if (!isObject(s)) return undefined;
    const day = DAY[String(s["weekday"])];
    const open = str(s["open"]);
    const close = str(s["close"]);
    if (
      day === undefined ||
      open === undefined ||
      close === undefined ||
      !HHMM.test(open) ||
      !HHMM.test(close)
    ) {
      return undefined;
    }
    out.push({ day, open, close });
  }
  return out;
}

export function readBusiness(data: unknown): WireBusiness | undefined {
  if (!isObject(data)) return undefined;
  const id = str(data["id"]);
  const slug = str(data["slug"]);
  const name = str(data["name"]);
  const tz = data["timezone"];
  if (id === undefined || slug === undefined || name === undefined) return undefined;
  if (tz !== null && typeof tz !== "string") return undefined;
  const v = isObject(data["verification"]) ? data["verification"] : {};
  const method = v["method"] === "sms" || v["method"] === "email" ? v["method"] : undefined;
  return {
    id,
    slug,
    name,
    timezone: tz === "" ? null : tz,
    verification: { required: v["required"] === true, ...(method !== undefined ? { method } : {}) },
  };
}

export function readLocations(data: unknown): WireLocation[] | undefined {
  if (!Array.isArray(data)) return undefined;
  const out: WireLocation[] = [];
  for (const l of data) {
    if (!isObject(l)) return undefined;
    const id = str(l["id"]);
    const name = str(l["name"]);
    const hours = schedules(l["schedules"]);
    if (id === undefined || name === undefined || hours === undefined) return undefined;
    out.push({ id, name, schedules: hours });
  }
  return out;
}

function readOption(o: unknown): WireOption | undefined {
  if (!isObject(o)) return undefined;
  const id = str(o["id"]);
  const name = str(o["name"]);
  const d = posInt(o["duration"]);
  if (id === undefined || name === undefined || d === undefined) return undefined;
  const price = money(o["price"]);
  return { id, name, durationMinutes: d, ...(price !== undefined ? { price } : {}) };
}

export function readLocationDetail(data: unknown): WireLocationDetail | undefined {
  if (!isObject(data) || !Array.isArray(data["members"]) || !Array.isArray(data["services"]))
    return undefined;
  const [base] = readLocations([data]) ?? [];
  if (base === undefined) return undefined;
  const members: WireMember[] = [];
  for (const m of data["members"]) {
    if (!isObject(m)) return undefined;
    const id = str(m["id"]);
    const name = str(m["name"]);
    const hours = schedules(m["schedules"]);
    if (id === undefined || name === undefined || hours === undefined) return undefined;
    members.push({ id, name, schedules: hours });
  }
  const services: WireService[] = [];
  for (const s of data["services"]) {
    if (!isObject(s)) return undefined;
    const id = str(s["id"]);
    const name = str(s["name"]);
    const d = posInt(s["duration"]);
    if (id === undefined || name === undefined || d === undefined) return undefined;
    const options: WireOption[] = [];
    for (const o of Array.isArray(s["options"]) ? s["options"] : []) {
      const option = readOption(o);
      if (option === undefined) return undefined;
      options.push(option);
    }
    const price = money(s["price"]);
    services.push({
      id,
      name,
      durationMinutes: d,
      consultation: s["consultation"] === true,
      options,
      ...(price !== undefined ? { price } : {}),
    });
  }
  return { ...base, members, services };
}

/** Openings of one member on one date: local "HH:MM" start times. */
export function readOpenings(data: unknown): string[] | undefined {
  if (!isObject(data) || !Array.isArray(data["times"])) return undefined;
  const times: string[] = [];
  for (const t of data["times"]) {
    if (typeof t !== "string" || !HHMM.test(t)) return undefined;
    times.push(t);
  }
  return times;
}

export function readNext(data: unknown): { memberId: string; date: string; time: string } | null | undefined {
  if (data === null) return null;
  if (!isObject(data)) return undefined;
  const memberId = str(data["memberId"]);
  const date = str(data["date"]);
  const time = str(data["time"]);
  if (memberId === undefined || date === undefined || time === undefined) return undefined;
  return { memberId, date, time };
}

export function readCustomer(data: unknown): { readonly id: string } | undefined {
  return isObject(data) && str(data["id"]) !== undefined ? { id: data["id"] as string } : undefined;
}

export function readAppointment(data: unknown): WireAppointment | undefined {
  if (!isObject(data)) return undefined;
  const id = str(data["id"]);
  const status = str(data["status"]);
  const memberId = str(data["memberId"]);
  const serviceId = str(data["serviceId"]);
  const date = str(data["date"]);
  const time = str(data["time"]);
  if ([id, status, memberId, serviceId, date, time].some((v) => v === undefined)) return undefined;
  const optionId = str(data["optionId"]);
  const d = posInt(data["duration"]);
  const notes = str(data["notes"]);
  return {
    id: id!,
    status: status!,
    memberId: memberId!,
    serviceId: serviceId!,
    date: date!,
    time: time!,
    ...(optionId !== undefined ? { optionId } : {}),
    ...(d !== undefined ? { durationMinutes: d } : {}),
    ...(notes !== undefined ? { notes } : {}),
  };
}

export function readAppointments(data: unknown): WireAppointment[] | undefined {
  if (!Array.isArray(data)) return undefined;
  const out: WireAppointment[] = [];
  for (const a of data) {
    const appt = readAppointment(a);
    if (appt === undefined) return undefined;
    out.push(appt);
  }
  return out;
}
