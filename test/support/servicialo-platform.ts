/**
 * A stateful Servicialo v1.2.0 REST upstream (specs/servicialo-a2a-v1.2.0.md, "Alternative:
 * REST Endpoints") for tests, with no transport of its own: `handle(method, path, body,
 * headers)` answers a request as the platform would, and records it. Two transports serve it:
 * nock in process for the connector's unit tests and contract subject
 * (test/connectors/servicialo/fake-servicialo.ts) and a loopback socket for the `mcp` child
 * processes of the end-to-end suite (test/e2e/support/fake-servicialo.ts), so both suites test
 * against the same platform rules.
 *
 * In the shapes of fixtures/servicialo (SOURCES.md names the spec section of each): services
 * from the recorded fixture, one-hour slots 09:00-13:00 America/Santiago on weekdays per
 * provider minus live sessions, book with the platform's double-booking check (409
 * SLOT_CONFLICT), cancel and reschedule behind X-Org-Api-Key (services, availability and book
 * are public, "The 5 Intents"); a revoked key makes cancel and reschedule 401. A service in
 * `prepaid` is booked only with a `paymentIntentId`; without one, book answers 402
 * PAYMENT_REQUIRED ("3. book_session", Error Responses). Status faults are answered here; a
 * timeout or a lost answer is the transport's to play (the work of a lost answer is still done
 * here).
 */
import type { FakeFault, PlatformReply, RecordedRequest } from "./platform-fake.js";
import { wallClockToInstant } from "../../src/protocol/time/index.js";
import { readFixtureJson } from "./fixtures.js";

export const ORG = "clinica-demo";
export const PREFIX = `/api/servicialo/${ORG}`;
export const TZ = "America/Santiago";
export const SERVICE = "cmiofz81v00fdus0wfmw2tav9";
export const PROVIDERS = [
  { id: "clx1abc123", name: "Dra. Maria Gonzalez" },
  { id: "clx2def456", name: "Klgo. Pedro Soto" },
];

export interface Session {
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

export type { FakeFault, PlatformReply, RecordedRequest };

export interface ServicialoPlatformOptions {
  /** The organization key cancel and reschedule require. */
  readonly apiKey: string;
  /**
   * The day availability assumes when a query names no `date` (a one-day query) or no `from`
   * (a range). Unset: a query with neither `date`, `from` nor `next` answers 400, and a range
   * starts today.
   */
  readonly defaultDay?: string;
  /** Record each request's path with its query (default), or the path alone. */
  readonly recordQuery?: boolean;
}

export function operationOf(method: string, path: string): FakeOperation | undefined {
  const p = path.split("?")[0] ?? "";
  if (method === "GET" && p === `${PREFIX}/services`) return "services";
  if (method === "GET" && p === `${PREFIX}/availability`) return "availability";
  if (method === "POST" && p === `${PREFIX}/book`) return "book";
  if (method === "POST" && /\/sessions\/[^/]+\/cancel$/.test(p)) return "cancel";
  if (method === "POST" && /\/sessions\/[^/]+\/reschedule$/.test(p)) return "reschedule";
  return undefined;
}

function localInstant(date: string, hour: number): number {
  const [y, m, d] = date.split("-").map(Number);
  const r = wallClockToInstant(
    { year: y ?? 0, month: m ?? 0, day: d ?? 0, hour, minute: 0, second: 0, millisecond: 0 },
    TZ,
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const addDays = (date: string, n: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

type Reply = [number, unknown];

export class ServicialoPlatform {
  readonly sessions = new Map<string, Session>();
  readonly requests: RecordedRequest[] = [];
  /** Services that require prepayment: book without a paymentIntentId answers 402. */
  readonly prepaid = new Set<string>();
  /** The organization key was revoked: the calls behind it (cancel, reschedule) answer 401. */
  revoked = false;
  /** Headers added to every answer (Deprecation / Sunset tests). */
  extraHeaders: Record<string, string> = {};
  private readonly faults = new Map<FakeOperation, FakeFault[]>();
  private readonly services = readFixtureJson<{ body: unknown }>("servicialo/services.json").body;
  private readonly paymentRequired = readFixtureJson<{ status: number; body: unknown }>(
    "servicialo/book-402-payment-required.json",
  );
  private nextId = 1;
  private nextRequest = 1;

  constructor(private readonly options: ServicialoPlatformOptions) {}

  inject(operation: FakeOperation, fault: FakeFault): void {
    this.faults.set(operation, [...(this.faults.get(operation) ?? []), fault]);
  }

  /** Drops every queued fault and un-revokes the key. */
  restore(): void {
    this.faults.clear();
    this.revoked = false;
  }

  /** The next fault queued for an operation, left in the queue. */
  nextFault(operation: FakeOperation): FakeFault | undefined {
    return this.faults.get(operation)?.[0];
  }

  /** Takes the next fault of an operation off its queue. */
  takeFault(operation: FakeOperation): FakeFault | undefined {
    return this.faults.get(operation)?.shift();
  }

  /** Faults queued for an operation and not yet served. */
  faultsLeft(operation: FakeOperation): number {
    return this.faults.get(operation)?.length ?? 0;
  }

  live(): Session[] {
    return [...this.sessions.values()].filter((s) => s.status !== "cancelled");
  }

  /** One request: recorded, then answered (a queued status fault first). */
  handle(
    method: string,
    uri: string,
    body: unknown,
    req: Readonly<Record<string, string | string[] | undefined>>,
  ): PlatformReply {
    const path = this.options.recordQuery === false ? (uri.split("?")[0] ?? "") : uri;
    this.requests.push({ method, path, headers: req, body });
    const headers = {
      "content-type": "application/json",
      "x-request-id": `req-${this.nextRequest++}`,
      ...this.extraHeaders,
    };
    const op = operationOf(method, uri);
    if (op === undefined) return { status: 404, body: { error: "Not found" }, headers };
    const fault = this.nextFault(op);
    if (fault?.kind === "status") {
      this.takeFault(op);
      return {
        status: fault.status,
        body: fault.body ?? JSON.stringify({ error: "fault" }),
        headers: { ...headers, ...fault.headers },
      };
    }
    const [status, answer] = this.route(op, new URL(uri, "http://servicialo.invalid"), body, req);
    return { status, body: answer, headers };
  }

  private route(
    op: FakeOperation,
    url: URL,
    body: unknown,
    req: Readonly<Record<string, string | string[] | undefined>>,
  ): Reply {
    const b = (body ?? {}) as Record<string, unknown>;
    switch (op) {
      case "services":
        return [200, this.services];
      case "availability":
        return this.availability(url.searchParams);
      case "book":
        return this.book(b);
      case "cancel":
      case "reschedule": {
        if (this.revoked || req["x-org-api-key"] !== this.options.apiKey)
          return [401, { error: "API key requerida (X-Org-Api-Key)", code: "UNAUTHORIZED" }];
        const id = decodeURIComponent(url.pathname.split("/").at(-2) ?? "");
        const session = this.sessions.get(id);
        if (session === undefined) return [404, { error: "Session not found" }];
        return op === "cancel" ? this.cancel(session) : this.reschedule(session, b);
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

  private availability(q: URLSearchParams): Reply {
    const serviceId = q.get("serviceId");
    if (!serviceId) return [400, { error: "serviceId is required" }];
    const known = (this.services as { services: { id: string; duration_minutes: number | null }[] }).services;
    const service = known.find((s) => s.id === serviceId);
    if (service === undefined) return [404, { error: "Service not found" }];
    const providerId = q.get("providerId") ?? PROVIDERS[0]!.id;
    const provider = PROVIDERS.find((p) => p.id === providerId);
    if (provider === undefined) return [404, { error: "No provider found for this service" }];
    const iso = (ms: number) => new Date(ms).toISOString();
    const svc = { id: serviceId, duration_minutes: service.duration_minutes ?? 60 };
    if (q.get("next") === null && q.get("from") === null) {
      const date = q.get("date") ?? this.options.defaultDay;
      if (date === undefined) return [400, { error: "date, from or next is required" }];
      const free = this.freeStarts(serviceId, providerId, date);
      return [
        200,
        {
          date,
          provider,
          service: svc,
          available_slots: free.map((s) => ({ start: iso(s.start), end: iso(s.end) })),
          timezone: TZ,
          ...(free.length === 0
            ? { reason: this.live().length > 0 ? "ALL_SLOTS_BOOKED" : "NO_SLOTS_FOR_DATE" }
            : {}),
        },
      ];
    }
    const from = q.get("from") ?? this.options.defaultDay ?? new Date().toISOString().slice(0, 10);
    const days = Number(q.get("days") ?? "7");
    const slots = [];
    for (let i = 0; i < days; i++) {
      const day = addDays(from, i);
      for (const s of this.freeStarts(serviceId, providerId, day))
        slots.push({ date: day, start: iso(s.start), end: iso(s.end), provider });
    }
    const next = q.get("next");
    return [200, { slots: next !== null ? slots.slice(0, Number(next)) : slots, service: svc, timezone: TZ }];
  }

  private book(body: Record<string, unknown>): Reply {
    const email = body["clientEmail"];
    const at = body["scheduledAt"];
    if (typeof email !== "string" || typeof at !== "string" || !/(Z|[+-]\d\d:\d\d)$/.test(at))
      return [400, { error: "Invalid data", code: "VALIDATION_ERROR", details: {} }];
    const serviceId = String(body["serviceId"]);
    if (this.prepaid.has(serviceId) && typeof body["paymentIntentId"] !== "string")
      return [this.paymentRequired.status, this.paymentRequired.body];
    const providerId = typeof body["providerId"] === "string" ? body["providerId"] : PROVIDERS[0]!.id;
    const start = Date.parse(at);
    const minutes = typeof body["duration"] === "number" ? body["duration"] : 60;
    const clash = this.live().some(
      (s) =>
        s.providerId === providerId &&
        s.start < start + minutes * 60_000 &&
        start < s.start + s.minutes * 60_000,
    );
    if (clash) return [409, { error: "Provider already has a session at this time", code: "SLOT_CONFLICT" }];
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
    ];
  }

  private cancel(s: Session): Reply {
    if (s.status === "cancelled")
      return [409, { error: "Session is already cancelled", code: "ALREADY_CANCELLED" }];
    s.status = "cancelled";
    return [200, { sessionId: s.id, status: "cancelled", policy_applied: { penalty: "none" } }];
  }

  private reschedule(s: Session, body: Record<string, unknown>): Reply {
    const at = body["scheduledAt"];
    if (typeof at !== "string") return [400, { error: "Invalid data", details: {} }];
    const start = Date.parse(at);
    const clash = this.live().some(
      (o) =>
        o.id !== s.id &&
        o.providerId === s.providerId &&
        o.start < start + s.minutes * 60_000 &&
        start < o.start + o.minutes * 60_000,
    );
    if (clash) return [400, { error: "Provider already has a session at this time", code: "SLOT_INVALID" }];
    s.start = start;
    return [
      200,
      {
        sessionId: s.id,
        status: s.status === "agendado" ? "scheduled" : "pending_confirmation",
        scheduledAt: new Date(start).toISOString(),
        duration: s.minutes,
      },
    ];
  }
}
