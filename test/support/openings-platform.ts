/**
 * A stateful Openings platform for tests, with no transport of its own: `handle(method, path,
 * body, headers)` answers a request as the platform would, and records it. Two transports serve
 * it: nock in process for the connector's unit tests (test/connectors/openings/fake-openings.ts)
 * and a loopback socket for the `mcp` child processes of the end-to-end suite
 * (test/e2e/support/fake-openings.ts), so both suites test against the same platform rules.
 *
 * The shapes are those of fixtures/openings, which are ASSUMED (its SOURCES.md says why): the
 * business, its one location and that location's detail come from the fixtures; openings every
 * 30 minutes 09:00-11:30 local on weekdays per member minus live appointments; customers
 * created or found by phone/email; verification codes per destination with purpose
 * `booking:{businessId}` (a check does not consume them); appointment create with the
 * platform's own conflict check (409), 428 without a required code and 422 on a wrong one;
 * history gated behind the code. Status faults are answered here; a timeout or a lost answer
 * is the transport's to play (the work of a lost answer is still done here).
 */
import type { FakeFault, PlatformReply, RecordedRequest } from "./platform-fake.js";
import { wallClockToInstant } from "../../src/protocol/time/index.js";
import { readFixtureJson } from "./fixtures.js";

export const SLUG = "salon-lumen";
export const BUSINESS = "biz_lumen";
export const LOCATION = "loc_main";
export const TZ = "America/New_York";
/** The code every verification send delivers. */
export const CODE = "246810";

interface Fixture {
  readonly status: number;
  readonly body: { ok: boolean; data: Record<string, unknown> };
}

export interface Appointment {
  readonly id: string;
  readonly memberId: string;
  readonly serviceId: string;
  readonly optionId?: string;
  readonly date: string;
  readonly time: string;
  readonly start: number;
  readonly minutes: number;
  readonly customerId: string;
  readonly notes?: string;
  status: "confirmed" | "cancelled";
}

export type FakeOperation =
  | "business"
  | "locations"
  | "location"
  | "openings"
  | "next"
  | "customers"
  | "appointments"
  | "history"
  | "verify";

export type { FakeFault, PlatformReply, RecordedRequest };

export function operationOf(method: string, path: string): FakeOperation | undefined {
  const p = path.split("?")[0] ?? "";
  if (method === "GET" && /^\/v1\/businesses\/[^/]+$/.test(p)) return "business";
  if (method === "GET" && /^\/v1\/businesses\/[^/]+\/locations$/.test(p)) return "locations";
  if (method === "GET" && /^\/v1\/locations\/[^/]+$/.test(p)) return "location";
  if (method === "GET" && /^\/v1\/locations\/[^/]+\/members\/[^/]+\/openings$/.test(p)) return "openings";
  if (method === "GET" && /^\/v1\/locations\/[^/]+\/next-availability$/.test(p)) return "next";
  if (method === "POST" && p === "/v1/customers") return "customers";
  if (method === "POST" && p === "/v1/appointments") return "appointments";
  if (method === "GET" && /^\/v1\/customers\/[^/]+\/appointments$/.test(p)) return "history";
  if (method === "POST" && (p === "/v1/verifications" || p === "/v1/verifications/verify")) return "verify";
  return undefined;
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");
const pad = (n: number) => String(n).padStart(2, "0");

function instant(date: string, time: string): number {
  const [y, m, d] = date.split("-").map(Number);
  const [hh, mm] = time.split(":").map(Number);
  const r = wallClockToInstant(
    { year: y!, month: m!, day: d!, hour: hh!, minute: mm!, second: 0, millisecond: 0 },
    TZ,
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

type Ok = (data: unknown, status?: number) => PlatformReply;
type No = (status: number, code: string, extra?: Record<string, unknown>) => PlatformReply;

export class OpeningsPlatform {
  readonly appointments = new Map<string, Appointment>();
  readonly requests: RecordedRequest[] = [];
  readonly customers = new Map<string, string>();
  private readonly faults = new Map<FakeOperation, FakeFault[]>();
  private readonly codes = new Map<string, string>();
  private nextId = 1;
  private nextRequest = 1;
  /** The business's zone as Openings reports it, overridable per test. */
  timezone: string | null = TZ;
  verificationRequired = false;
  extraHeaders: Record<string, string> = {};
  private readonly location = readFixtureJson<Fixture>("openings/location.json").body.data;
  private readonly business = readFixtureJson<Fixture>("openings/business.json").body.data;
  private readonly locations = readFixtureJson<{ body: unknown }>("openings/locations.json").body;

  inject(operation: FakeOperation, fault: FakeFault): void {
    const list = this.faults.get(operation) ?? [];
    list.push(fault);
    this.faults.set(operation, list);
  }

  /** Drops every queued fault. */
  restore(): void {
    this.faults.clear();
  }

  /** The next fault queued for an operation, left in the queue. */
  nextFault(operation: FakeOperation): FakeFault | undefined {
    return this.faults.get(operation)?.[0];
  }

  /** Takes the next fault of an operation off its queue. */
  takeFault(operation: FakeOperation): FakeFault | undefined {
    return this.faults.get(operation)?.shift();
  }

  live(): Appointment[] {
    return [...this.appointments.values()].filter((a) => a.status !== "cancelled");
  }

  private minutesOf(serviceId: string, optionId: string | null | undefined): number | undefined {
    const services = this.location["services"] as {
      id: string;
      duration: number;
      options: { id: string; duration: number }[];
    }[];
    const s = services.find((x) => x.id === serviceId);
    if (s === undefined) return undefined;
    if (!optionId) return s.duration;
    return s.options.find((o) => o.id === optionId)?.duration;
  }

  private open(memberId: string, date: string, minutes: number): string[] {
    const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
    if (weekday === 0 || weekday === 6) return [];
    const out: string[] = [];
    for (let slot = 0; slot < 6; slot++) {
      const time = `${pad(9 + Math.floor(slot / 2))}:${slot % 2 === 0 ? "00" : "30"}`;
      const start = instant(date, time);
      const end = start + minutes * 60_000;
      const clash = this.live().some(
        (a) => a.memberId === memberId && a.start < end && start < a.start + a.minutes * 60_000,
      );
      if (!clash) out.push(time);
    }
    return out;
  }

  /** One request: recorded, then answered (a queued status fault first). */
  handle(
    method: string,
    uri: string,
    body: unknown,
    req: Readonly<Record<string, string | string[] | undefined>>,
  ): PlatformReply {
    this.requests.push({ method, path: uri, headers: req, body });
    const headers = {
      "content-type": "application/json",
      "x-request-id": `op-${this.nextRequest++}`,
      ...this.extraHeaders,
    };
    const op = operationOf(method, uri);
    const ok: Ok = (data, status = 200) => ({ status, body: { ok: true, data }, headers });
    const no: No = (status, code, extra = {}) => ({
      status,
      body: { ok: false, error: { code, message: code, ...extra } },
      headers,
    });
    if (op === undefined) return no(404, "not_found");
    const fault = this.nextFault(op);
    if (fault?.kind === "status") {
      this.takeFault(op);
      return {
        status: fault.status,
        body: fault.body ?? JSON.stringify({ ok: false, error: { code: "fault" } }),
        headers: { ...headers, ...fault.headers },
      };
    }
    const url = new URL(uri, "http://openings.invalid");
    const parts = url.pathname.split("/");
    const b = (body ?? {}) as Record<string, unknown>;
    switch (op) {
      case "business":
        if (parts[3] !== SLUG) return no(404, "not_found");
        return ok({
          ...this.business,
          timezone: this.timezone,
          verification: { required: this.verificationRequired, method: "sms" },
        });
      case "locations":
        return { status: 200, body: this.locations, headers };
      case "location":
        return parts[3] === LOCATION ? ok(this.location) : no(404, "not_found");
      case "openings": {
        const minutes = this.minutesOf(
          url.searchParams.get("serviceId") ?? "",
          url.searchParams.get("optionId"),
        );
        if (minutes === undefined) return no(404, "not_found");
        const date = url.searchParams.get("date") ?? "";
        return ok({ date, memberId: parts[5], times: this.open(parts[5]!, date, minutes) });
      }
      case "next": {
        const minutes =
          this.minutesOf(url.searchParams.get("serviceId") ?? "", url.searchParams.get("optionId")) ?? 30;
        for (let day = 7; day < 21; day++) {
          const date = `2026-12-${pad(day)}`;
          for (const m of ["mem_ana", "mem_ben"]) {
            const [time] = this.open(m, date, minutes);
            if (time) return ok({ memberId: m, date, time });
          }
        }
        return ok(null);
      }
      case "customers": {
        const who = text(b["phone"] ?? b["email"]);
        if (!who) return no(400, "invalid_customer");
        const id = this.customers.get(who) ?? `cus_${pad(this.customers.size + 1)}`;
        this.customers.set(who, id);
        return ok({ id });
      }
      case "verify": {
        const who = text(b["phone"] ?? b["email"]);
        if (b["purpose"] !== `booking:${BUSINESS}`) return no(400, "invalid_purpose");
        if (url.pathname.endsWith("/verify")) return ok({ verified: this.codes.get(who) === b["code"] });
        this.codes.set(who, CODE);
        return ok({ method: b["phone"] !== undefined ? "sms" : "email" });
      }
      case "history": {
        const customerId = parts[3]!;
        const who = [...this.customers].find(([, id]) => id === customerId)?.[0];
        if (who === undefined || this.codes.get(who) !== req["x-verification-code"])
          return no(401, "verification_required");
        return ok(
          [...this.appointments.values()].filter((a) => a.customerId === customerId).map((a) => this.wire(a)),
        );
      }
      case "appointments":
        return this.create(b, ok, no);
    }
  }

  private wire(a: Appointment): Record<string, unknown> {
    return {
      id: a.id,
      status: a.status,
      memberId: a.memberId,
      serviceId: a.serviceId,
      ...(a.optionId ? { optionId: a.optionId } : {}),
      date: a.date,
      time: a.time,
      duration: a.minutes,
      ...(a.notes ? { notes: a.notes } : {}),
    };
  }

  private create(b: Record<string, unknown>, ok: Ok, no: No): PlatformReply {
    const customerId = text(b["customerId"]);
    const who = [...this.customers].find(([, id]) => id === customerId)?.[0];
    if (who === undefined) return no(400, "unknown_customer");
    if (this.verificationRequired) {
      if (b["verificationCode"] === undefined) return no(428, "verification_required", { method: "sms" });
      if (this.codes.get(who) !== b["verificationCode"]) return no(422, "invalid_code");
    }
    const serviceId = String(b["serviceId"]);
    const optionId = typeof b["optionId"] === "string" ? b["optionId"] : undefined;
    const minutes = this.minutesOf(serviceId, optionId);
    if (minutes === undefined) return no(404, "not_found");
    const date = String(b["date"]);
    const time = String(b["time"]);
    const memberId = String(b["memberId"]);
    if (!this.open(memberId, date, minutes).includes(time)) return no(409, "slot_unavailable");
    const id = `apt_${pad(this.nextId++)}`;
    const a: Appointment = {
      id,
      memberId,
      serviceId,
      ...(optionId ? { optionId } : {}),
      date,
      time,
      start: instant(date, time),
      minutes,
      customerId,
      ...(typeof b["notes"] === "string" ? { notes: b["notes"] } : {}),
      status: "confirmed",
    };
    this.appointments.set(id, a);
    return ok(this.wire(a), 201);
  }
}
