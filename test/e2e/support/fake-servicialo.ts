/**
 * A stateful Servicialo v1.2.0 REST upstream (specs/servicialo-a2a-v1.2.0.md, "Alternative:
 * REST Endpoints") as a real loopback HTTP server, for the end-to-end suite: the `mcp` child
 * process reaches it over its socket. Ported from the connector tests' nock fake
 * (test/connectors/servicialo/fake-servicialo.ts), in the shapes of fixtures/servicialo/
 * (SOURCES.md names the spec section of each): services from the recorded fixture, one-hour
 * slots 09:00–13:00 America/Santiago on weekdays per provider minus live sessions, book with the
 * platform's double-booking check (409 SLOT_CONFLICT), cancel and reschedule behind
 * X-Org-Api-Key. Faults queue per operation; "lost_response" books, then drops the connection.
 * A service in `prepaid` is booked only with a `paymentIntentId`; without one, book answers
 * 402 PAYMENT_REQUIRED ("3. book_session", Error Responses; fixtures/servicialo).
 */
import { wallClockToInstant } from "../../../src/protocol/time/index.js";
import { readFixtureJson } from "../../support/fixtures.js";
import { startLoopback, type FakeAnswer, type FakeRequest, type LoopbackServer } from "./fake-loopback.js";

export const SERVICIALO_ORG = "clinica-demo";
export const SERVICIALO_API_KEY = "org-key-e2e-SECRET";
export const SERVICIALO_TZ = "America/Santiago";
export const SERVICIALO_SERVICE = "cmiofz81v00fdus0wfmw2tav9";
export const SERVICIALO_PROVIDERS = [
  { id: "clx1abc123", name: "Dra. Maria Gonzalez" },
  { id: "clx2def456", name: "Klgo. Pedro Soto" },
];
const PREFIX = `/api/servicialo/${SERVICIALO_ORG}`;

export interface ServicialoSession {
  readonly id: string;
  readonly serviceId: string;
  readonly providerId: string;
  start: number;
  readonly minutes: number;
  status: "agendado" | "pendiente_confirmacion" | "cancelled";
  readonly email: string;
  readonly notes?: string;
}

export type ServicialoOperation = "services" | "availability" | "book" | "cancel" | "reschedule";
export type ServicialoFault = { readonly kind: "lost_response" };

export interface ServicialoRecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

type Reply = [number, unknown];

const operationOf = (method: string, p: string): ServicialoOperation | undefined => {
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
    SERVICIALO_TZ,
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const addDays = (date: string, n: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

export class FakeServicialoServer {
  readonly sessions = new Map<string, ServicialoSession>();
  readonly requests: ServicialoRecordedRequest[] = [];
  private readonly faults = new Map<ServicialoOperation, ServicialoFault[]>();
  /** Services that require prepayment: book without a paymentIntentId answers 402. */
  readonly prepaid = new Set<string>();
  private readonly services = readFixtureJson<{ body: unknown }>("servicialo/services.json").body;
  private readonly paymentRequired = readFixtureJson<{ status: number; body: unknown }>(
    "servicialo/book-402-payment-required.json",
  );
  private server?: LoopbackServer;
  private nextId = 1;
  private nextRequest = 1;

  async start(): Promise<string> {
    this.server = await startLoopback((req) => this.handle(req));
    return this.server.origin;
  }

  close(): Promise<void> {
    return this.server?.close() ?? Promise.resolve();
  }

  /** Faults queued for an operation and not yet served. */
  faultsLeft(operation: ServicialoOperation): number {
    return this.faults.get(operation)?.length ?? 0;
  }

  inject(operation: ServicialoOperation, fault: ServicialoFault): void {
    this.faults.set(operation, [...(this.faults.get(operation) ?? []), fault]);
  }

  live(): ServicialoSession[] {
    return [...this.sessions.values()].filter((s) => s.status !== "cancelled");
  }

  books(): ServicialoRecordedRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path === `${PREFIX}/book`);
  }

  private handle(req: FakeRequest): FakeAnswer {
    const { method, url } = req;
    this.requests.push({ method, path: url.pathname, headers: req.headers, body: req.body });
    const headers = { "x-request-id": `req-${this.nextRequest++}` };
    const op = operationOf(method, url.pathname);
    if (op === undefined) return { status: 404, body: { error: "Not found" }, headers };
    const [status, body] = this.route(op, url, req);
    if (this.faults.get(op)?.shift()?.kind === "lost_response") return { drop: true };
    return { status, body, headers };
  }

  private route(op: ServicialoOperation, url: URL, req: FakeRequest): Reply {
    switch (op) {
      case "services":
        return [200, this.services];
      case "availability":
        return this.availability(url.searchParams);
      case "book":
        return this.book((req.body ?? {}) as Record<string, unknown>);
      case "cancel":
      case "reschedule": {
        if (req.headers["x-org-api-key"] !== SERVICIALO_API_KEY)
          return [401, { error: "API key requerida (X-Org-Api-Key)", code: "UNAUTHORIZED" }];
        const id = decodeURIComponent(url.pathname.split("/").at(-2) ?? "");
        const session = this.sessions.get(id);
        if (session === undefined) return [404, { error: "Session not found" }];
        return op === "cancel"
          ? this.cancel(session)
          : this.reschedule(session, (req.body ?? {}) as Record<string, unknown>);
      }
    }
  }

  private freeStarts(serviceId: string, providerId: string, date: string): { start: number; end: number }[] {
    const day = new Date(`${date}T12:00:00Z`).getUTCDay();
    if (day === 0 || day === 6) return [];
    const minutes = serviceId === SERVICIALO_SERVICE ? 60 : 45;
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
    const providerId = q.get("providerId") ?? SERVICIALO_PROVIDERS[0]!.id;
    const provider = SERVICIALO_PROVIDERS.find((p) => p.id === providerId);
    if (provider === undefined) return [404, { error: "No provider found for this service" }];
    const iso = (ms: number) => new Date(ms).toISOString();
    const svc = { id: serviceId, duration_minutes: service.duration_minutes ?? 60 };
    const date = q.get("date");
    if (q.get("next") === null && q.get("from") === null) {
      if (date === null) return [400, { error: "date, from or next is required" }];
      const free = this.freeStarts(serviceId, providerId, date);
      return [
        200,
        {
          date,
          provider,
          service: svc,
          available_slots: free.map((s) => ({ start: iso(s.start), end: iso(s.end) })),
          timezone: SERVICIALO_TZ,
          ...(free.length === 0
            ? { reason: this.live().length > 0 ? "ALL_SLOTS_BOOKED" : "NO_SLOTS_FOR_DATE" }
            : {}),
        },
      ];
    }
    const from = q.get("from") ?? new Date().toISOString().slice(0, 10);
    const days = Number(q.get("days") ?? "7");
    const slots = [];
    for (let i = 0; i < days; i++) {
      const day = addDays(from, i);
      for (const s of this.freeStarts(serviceId, providerId, day))
        slots.push({ date: day, start: iso(s.start), end: iso(s.end), provider });
    }
    const next = q.get("next");
    return [
      200,
      { slots: next !== null ? slots.slice(0, Number(next)) : slots, service: svc, timezone: SERVICIALO_TZ },
    ];
  }

  private book(body: Record<string, unknown>): Reply {
    const email = body["clientEmail"];
    const at = body["scheduledAt"];
    if (typeof email !== "string" || typeof at !== "string" || !/(Z|[+-]\d\d:\d\d)$/.test(at))
      return [400, { error: "Invalid data", code: "VALIDATION_ERROR", details: {} }];
    const serviceId = String(body["serviceId"]);
    if (this.prepaid.has(serviceId) && typeof body["paymentIntentId"] !== "string")
      return [this.paymentRequired.status, this.paymentRequired.body];
    const providerId =
      typeof body["providerId"] === "string" ? body["providerId"] : SERVICIALO_PROVIDERS[0]!.id;
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
    const session: ServicialoSession = {
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

  private cancel(s: ServicialoSession): Reply {
    if (s.status === "cancelled")
      return [409, { error: "Session is already cancelled", code: "ALREADY_CANCELLED" }];
    s.status = "cancelled";
    return [200, { sessionId: s.id, status: "cancelled", policy_applied: { penalty: "none" } }];
  }

  private reschedule(s: ServicialoSession, body: Record<string, unknown>): Reply {
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
