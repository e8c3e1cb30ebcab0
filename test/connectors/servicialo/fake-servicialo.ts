/**
 * A stateful Servicialo v1.2.0 REST upstream scripted with nock, for the connector's tests:
 * services from the recorded fixture, one-hour slots 09:00-13:00 local on weekdays per provider
 * minus live sessions, book with the platform's double-booking check (409 SLOT_CONFLICT),
 * cancel and reschedule behind X-Org-Api-Key (services, availability and book are public,
 * "The 5 Intents"). Faults: the next matching call answers 429, a 5xx or a malformed body, gets
 * no answer (timeout), or is done and its answer lost; a revoked key makes cancel and
 * reschedule 401.
 */
import nock from "nock";
import { wallClockToInstant } from "../../../src/protocol/time/index.js";
import { readFixtureJson } from "../../support/fixtures.js";

export const BASE = "https://coordinalo.test";
export const ORG = "clinica-demo";
export const PREFIX = `/api/servicialo/${ORG}`;
export const API_KEY = "org-key-7f3a9c-SECRET";
export const TZ = "America/Santiago";
export const SERVICE = "cmiofz81v00fdus0wfmw2tav9";
export const PROVIDERS = [
  { id: "clx1abc123", name: "Dra. Maria Gonzalez" },
  { id: "clx2def456", name: "Klgo. Pedro Soto" },
];

interface Fixture {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

interface Session {
  readonly id: string;
  readonly serviceId: string;
  readonly providerId: string;
  start: number;
  readonly minutes: number;
  status: "agendado" | "pendiente_confirmacion" | "cancelled";
  readonly email: string;
  readonly notes?: string;
}

export type FakeOperation = "services" | "availability" | "book" | "cancel" | "reschedule";

export type FakeFault =
  | {
      readonly kind: "status";
      readonly status: number;
      readonly headers?: Record<string, string>;
      readonly body?: string;
    }
  | { readonly kind: "timeout" }
  | { readonly kind: "lost_response" };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
}

const operationOf = (method: string, path: string): FakeOperation | undefined => {
  const p = path.split("?")[0] ?? "";
  if (method === "GET" && p === `${PREFIX}/services`) return "services";
  if (method === "GET" && p === `${PREFIX}/availability`) return "availability";
  if (method === "POST" && p === `${PREFIX}/book`) return "book";
  if (method === "POST" && /\/sessions\/[^/]+\/cancel$/.test(p)) return "cancel";
  if (method === "POST" && /\/sessions\/[^/]+\/reschedule$/.test(p)) return "reschedule";
  return undefined;
};

function localInstant(date: string, hour: number): number {
  const [y, m, d] = date.split("-").map(Number);
  const r = wallClockToInstant(
    { year: y ?? 0, month: m ?? 0, day: d ?? 0, hour, minute: 0, second: 0, millisecond: 0 },
    TZ,
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function addDays(date: string, n: number): string {
  const t = Date.parse(`${date}T00:00:00Z`) + n * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

export class FakeServicialo {
  readonly sessions = new Map<string, Session>();
  readonly requests: RecordedRequest[] = [];
  private readonly faults = new Map<FakeOperation, FakeFault[]>();
  private nextId = 1;
  private nextRequest = 1;
  /** The organization key was revoked: the calls behind it (cancel, reschedule) answer 401. */
  revoked = false;
  /** Headers added to every answer (Deprecation / Sunset tests). */
  extraHeaders: Record<string, string> = {};

  constructor() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- nock binds `this` to the request
    const fake = this;
    const scope = nock(BASE).persist();
    scope.get(/.*/).reply(function (uri, body) {
      return fake.handle("GET", uri, body, this.req.headers);
    });
    scope.post(/.*/).reply(function (uri, body) {
      return fake.handle("POST", uri, body, this.req.headers);
    });
  }

  private readonly services = readFixtureJson<Fixture>("servicialo/services.json");

  inject(operation: FakeOperation, fault: FakeFault): void {
    const list = this.faults.get(operation) ?? [];
    list.push(fault);
    this.faults.set(operation, list);
  }

  restore(): void {
    this.faults.clear();
    this.revoked = false;
  }

  live(): Session[] {
    return [...this.sessions.values()].filter((s) => s.status !== "cancelled");
  }

  /** Faults that happen in transport (no answer) are served by the fetch below. */
  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const op = operationOf(init?.method ?? "GET", url.pathname);
    const next = op ? this.faults.get(op)?.[0] : undefined;
    if (next?.kind === "timeout" || next?.kind === "lost_response") {
      this.faults.get(op!)?.shift();
      if (next.kind === "lost_response") await globalThis.fetch(input, init);
      return new Promise<Response>((_resolve, reject) => {
        const signal = init?.signal;
        if (signal?.aborted) reject(new DOMException("aborted", "AbortError"));
        signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    }
    return globalThis.fetch(input, init);
  };

  private handle(
    method: string,
    uri: string,
    body: unknown,
    req: Readonly<Record<string, string | string[] | undefined>>,
  ): nock.ReplyFnResult {
    this.requests.push({ method, path: uri, headers: req, body });
    const headers = {
      "content-type": "application/json",
      "x-request-id": `req-${this.nextRequest++}`,
      ...this.extraHeaders,
    };
    const op = operationOf(method, uri);
    if (op === undefined) return [404, { error: "Not found" }, headers];
    const fault = this.faults.get(op)?.[0];
    if (fault?.kind === "status") {
      this.faults.get(op)?.shift();
      return [
        fault.status,
        fault.body ?? JSON.stringify({ error: "fault" }),
        { ...headers, ...fault.headers },
      ];
    }
    const url = new URL(uri, BASE);
    switch (op) {
      case "services":
        return [200, this.services.body as nock.Body, headers];
      case "availability":
        return this.availability(url.searchParams, headers);
      case "book":
        return this.book(body as Record<string, unknown>, headers);
      case "cancel":
      case "reschedule": {
        const key = req["x-org-api-key"];
        if (this.revoked || key !== API_KEY)
          return [401, { error: "API key requerida (X-Org-Api-Key)", code: "UNAUTHORIZED" }, headers];
        const id = decodeURIComponent(url.pathname.split("/").at(-2) ?? "");
        const session = this.sessions.get(id);
        if (session === undefined) return [404, { error: "Session not found" }, headers];
        return op === "cancel"
          ? this.cancel(session, headers)
          : this.reschedule(session, body as Record<string, unknown>, headers);
      }
    }
  }

  private freeStarts(serviceId: string, providerId: string, date: string): { start: number; end: number }[] {
    const day = new Date(`${date}T12:00:00Z`).getUTCDay();
    if (day === 0 || day === 6) return [];
    const minutes = serviceId === SERVICE ? 60 : 45;
    const out: { start: number; end: number }[] = [];
    for (let h = 9; h < 13; h++) {
      const start = localInstant(date, h);
      const end = start + minutes * 60_000;
      const clash = this.live().some(
        (s) => s.providerId === providerId && s.start < end && start < s.start + s.minutes * 60_000,
      );
      if (!clash) out.push({ start, end });
    }
    return out;
  }

  private availability(q: URLSearchParams, headers: Record<string, string>): nock.ReplyFnResult {
    const serviceId = q.get("serviceId");
    if (!serviceId) return [400, { error: "serviceId is required" }, headers];
    const known = (this.services.body as { services: { id: string; duration_minutes: number | null }[] })
      .services;
    const service = known.find((s) => s.id === serviceId);
    if (service === undefined) return [404, { error: "Service not found" }, headers];
    const providerId = q.get("providerId") ?? PROVIDERS[0]!.id;
    const provider = PROVIDERS.find((p) => p.id === providerId);
    if (provider === undefined) return [404, { error: "No provider found for this service" }, headers];
    const iso = (ms: number) => new Date(ms).toISOString();
    const svc = { id: serviceId, duration_minutes: service.duration_minutes ?? 60 };
    const date = q.get("date");
    if (q.get("next") === null && q.get("from") === null) {
      const day = date ?? "2026-12-07";
      const free = this.freeStarts(serviceId, providerId, day);
      return [
        200,
        {
          date: day,
          provider,
          service: svc,
          available_slots: free.map((s) => ({ start: iso(s.start), end: iso(s.end) })),
          timezone: TZ,
          ...(free.length === 0
            ? { reason: this.live().length > 0 ? "ALL_SLOTS_BOOKED" : "NO_SLOTS_FOR_DATE" }
            : {}),
        },
        headers,
      ];
    }
    const from = q.get("from") ?? "2026-12-07";
    const days = Number(q.get("days") ?? "7");
    const slots = [];
    for (let i = 0; i < days; i++) {
      const day = addDays(from, i);
      for (const s of this.freeStarts(serviceId, providerId, day)) {
        slots.push({ date: day, start: iso(s.start), end: iso(s.end), provider });
      }
    }
    const next = q.get("next");
    return [
      200,
      { slots: next !== null ? slots.slice(0, Number(next)) : slots, service: svc, timezone: TZ },
      headers,
    ];
  }

  private book(body: Record<string, unknown>, headers: Record<string, string>): nock.ReplyFnResult {
    const email = body["clientEmail"];
    const at = body["scheduledAt"];
    if (typeof email !== "string" || typeof at !== "string" || !/(Z|[+-]\d\d:\d\d)$/.test(at)) {
      return [400, { error: "Invalid data", code: "VALIDATION_ERROR", details: {} }, headers];
    }
    const serviceId = String(body["serviceId"]);
    const providerId = typeof body["providerId"] === "string" ? body["providerId"] : PROVIDERS[0]!.id;
    const start = Date.parse(at);
    const minutes = typeof body["duration"] === "number" ? body["duration"] : 60;
    const clash = this.live().some(
      (s) =>
        s.providerId === providerId &&
        s.start < start + minutes * 60_000 &&
        start < s.start + s.minutes * 60_000,
    );
    if (clash)
      return [409, { error: "Provider already has a session at this time", code: "SLOT_CONFLICT" }, headers];
    const id = `cmsession${String(this.nextId++).padStart(4, "0")}`;
    const pending = body["initialStatus"] === "pending_confirmation";
    const session: Session = {
      id,
      serviceId,
      providerId,
      start,
      minutes,
      status: pending ? "pendiente_confirmacion" : "agendado",
      email,
      ...(typeof body["notes"] === "string" ? { notes: body["notes"] } : {}),
    };
    this.sessions.set(id, session);
    return [
      201,
      {
        servicialo_version: "1.0",
        success: true,
        session: {
          id,
          status: session.status,
          derived_state: "agendado",
          derived_state_index: 1,
          scheduled_at: new Date(start).toISOString(),
          duration_minutes: minutes,
          service: "Asesoria Lactancia",
          client_email: email,
        },
        client_portal_url: null,
        order_id: `${id}-order`,
        venta_id: `${id}-venta`,
      },
      headers,
    ];
  }

  private cancel(s: Session, headers: Record<string, string>): nock.ReplyFnResult {
    if (s.status === "cancelled")
      return [409, { error: "Session is already cancelled", code: "ALREADY_CANCELLED" }, headers];
    s.status = "cancelled";
    return [200, { sessionId: s.id, status: "cancelled", policy_applied: { penalty: "none" } }, headers];
  }

  private reschedule(
    s: Session,
    body: Record<string, unknown>,
    headers: Record<string, string>,
  ): nock.ReplyFnResult {
    const at = body["scheduledAt"];
    if (typeof at !== "string") return [400, { error: "Invalid data", details: {} }, headers];
    const start = Date.parse(at);
    const clash = this.live().some(
      (o) =>
        o.id !== s.id &&
        o.providerId === s.providerId &&
        o.start < start + s.minutes * 60_000 &&
        start < o.start + o.minutes * 60_000,
    );
    if (clash)
      return [400, { error: "Provider already has a session at this time", code: "SLOT_INVALID" }, headers];
    s.start = start;
    return [
      200,
      {
        sessionId: s.id,
        status: s.status === "agendado" ? "scheduled" : "pending_confirmation",
        scheduledAt: new Date(start).toISOString(),
        duration: s.minutes,
      },
      headers,
    ];
  }
}
