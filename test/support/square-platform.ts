/**
 * A stateful Square platform for tests, with no transport of its own: `handle(method, uri, body,
 * headers)` answers a request as the platform would, and records it. Two transports serve it:
 * nock in process for the connector's unit tests and contract subject
 * (test/connectors/square/fake-square.ts) and a loopback socket for the end-to-end and gateway
 * suites (test/e2e/support/fake-square.ts), so both test against the same platform rules.
 *
 * It answers in the recorded shapes of fixtures/square/ (SOURCES.md names the reference page of
 * each): the catalog reads, and a booking store behind SearchAvailability, CreateBooking
 * (idempotent by key and body), RetrieveBooking, UpdateBooking (version checked), CancelBooking
 * (booking_version checked) and ListBookings.
 *
 * Its rules are the tests' stand-in for Square's, not Square's own: starts every 30 minutes,
 * Monday to Friday, from `firstStartHour` to 21:00 UTC, per team member free of a live booking;
 * start_at_range 24 h to 32 days; ListBookings windows of at most 31 days; seller-level writes,
 * so a create on a busy team member is NOT refused (the connector must check).
 *
 * Faults are queued per operation. Status and rate_limited faults are answered here; a timeout
 * or a lost answer is the transport's to play, told by `transportFault` on the reply (the work
 * of a lost answer is still done here). `revoked` makes every call 401.
 */
import { readFixtureJson } from "./fixtures.js";

export const LOCATION_ID = "L7M2SEJXJ3TQE";
export const HAIRCUT = "GUN7HNQBH7ZRARYZN52E7O4B";
export const AVERY = "TMXUrsBWWcHTt79t";
export const JORDAN = "TMmXGjMHB3Q4R1sK";

export type SquareOperation =
  "catalog" | "catalogObject" | "slots" | "create" | "get" | "findByKey" | "move" | "cancel";

export type SquarePlatformFault =
  | { readonly kind: "rate_limited"; readonly retryAfterSeconds: number }
  | { readonly kind: "timeout" }
  | { readonly kind: "lost_response" }
  | {
      readonly kind: "status";
      readonly status: number;
      /** Square's `internal` error body when left out. */
      readonly body?: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    };

export interface SquareRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface SquareReply {
  readonly status: number;
  /** JSON; the transport serialises it (undefined as `{}`). */
  readonly body: unknown;
  readonly headers: Record<string, string>;
  /** A fault the transport must play instead of answering. */
  readonly transportFault?: "timeout" | "lost_response";
}

/** The booking changes that stamp `created_at` / `updated_at`. */
export type SquareChange = "create" | "update" | "cancel";

export interface SquarePlatformOptions {
  /** The catalog items fixture (default square/catalog-search-items.json). */
  readonly itemsFixture?: string;
  /** The UTC hour of the first start of a weekday (default 14). */
  readonly firstStartHour?: number;
  /** The timestamp a change writes (default: the clock, now). */
  readonly stamp?: (change: SquareChange) => string;
}

type Json = Record<string, unknown>;
type Reply = [number, unknown, Record<string, string>?];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const errors = readFixtureJson<Record<string, Json>>("square/errors.json");
const bad = (name: string, status = 400): Reply => [status, errors[name]];
export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export function operationOf(method: string, path: string): SquareOperation | undefined {
  if (
    path.startsWith("/v2/locations/") ||
    path.startsWith("/v2/catalog/search") ||
    path.startsWith("/v2/bookings/business-booking-profile") ||
    path.startsWith("/v2/bookings/team-member-booking-profiles")
  )
    return "catalog";
  if (path.startsWith("/v2/catalog/object/")) return "catalogObject";
  if (path === "/v2/bookings/availability/search") return "slots";
  if (path === "/v2/bookings") return method === "POST" ? "create" : "findByKey";
  if (path.endsWith("/cancel")) return "cancel";
  if (path.startsWith("/v2/bookings/")) return method === "PUT" ? "move" : "get";
  return undefined;
}

export class SquarePlatform {
  readonly requests: SquareRequest[] = [];
  readonly bookings = new Map<string, Json>();
  /** Headers added to every answer (e.g. Deprecation / Sunset). */
  extraHeaders: Record<string, string> = {};
  revoked = false;
  private readonly keys = new Map<string, { readonly body: string; readonly id: string }>();
  private readonly faults = new Map<SquareOperation, SquarePlatformFault[]>();
  private requestSeq = 0;
  private bookingSeq = 0;
  private readonly items: Json[];
  private readonly team: Json[];
  private readonly firstStartHour: number;
  private readonly stamp: (change: SquareChange) => string;

  constructor(
    private readonly token: string,
    options: SquarePlatformOptions = {},
  ) {
    this.items = readFixtureJson<{ items: Json[] }>(
      options.itemsFixture ?? "square/catalog-search-items.json",
    ).items;
    this.team = readFixtureJson<{ team_member_booking_profiles: Json[] }>(
      "square/team-member-booking-profiles.json",
    ).team_member_booking_profiles;
    this.firstStartHour = options.firstStartHour ?? 14;
    this.stamp = options.stamp ?? (() => iso(Date.now()));
  }

  inject(operation: SquareOperation, fault: SquarePlatformFault): void {
    this.faults.set(operation, [...(this.faults.get(operation) ?? []), fault]);
  }

  /** Drops every queued fault and un-revokes the token. */
  restore(): void {
    this.faults.clear();
    this.revoked = false;
  }

  /** Faults queued for an operation and not yet served. */
  faultsLeft(operation: SquareOperation): number {
    return this.faults.get(operation)?.length ?? 0;
  }

  /** Bookings not cancelled. */
  liveBookings(): Json[] {
    return [...this.bookings.values()].filter((b) => !String(b["status"]).startsWith("CANCELLED"));
  }

  requestsTo(method: string, pathPrefix: string): SquareRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix));
  }

  /**
   * One request (`uri` is the path and query; `body` parsed JSON; `headers` lower-cased):
   * recorded, then answered (a queued fault first, once the token is accepted).
   */
  handle(method: string, uri: string, body: unknown, headers: Readonly<Record<string, string>>): SquareReply {
    const url = new URL(uri, "https://square.invalid");
    this.requests.push({ method, path: url.pathname, query: url.searchParams, headers, body });
    this.requestSeq += 1;
    const answerHeaders = {
      "content-type": "application/json",
      "x-request-id": `fake-req-${this.requestSeq}`,
      ...this.extraHeaders,
    };
    const reply = ([status, payload, extra]: Reply): SquareReply => ({
      status,
      body: payload,
      headers: { ...answerHeaders, ...extra },
    });
    if (this.revoked) return reply(bad("token_revoked", 401));
    if (headers["authorization"] !== `Bearer ${this.token}`) return reply(bad("unauthorized", 401));
    const op = operationOf(method, url.pathname);
    const fault = op === undefined ? undefined : this.faults.get(op)?.shift();
    if (fault?.kind === "timeout") return { ...reply([0, undefined]), transportFault: "timeout" };
    if (fault?.kind === "rate_limited")
      return reply([429, errors["rate_limited"], { "retry-after": String(fault.retryAfterSeconds) }]);
    if (fault?.kind === "status")
      return reply([fault.status, fault.body ?? errors["internal"] ?? {}, { ...fault.headers }]);
    const answer = reply(this.route(method, url, (body ?? {}) as Json));
    return fault?.kind === "lost_response" ? { ...answer, transportFault: "lost_response" } : answer;
  }

  private route(method: string, url: URL, body: Json): Reply {
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if (method === "GET" && (m = /^\/v2\/locations\/([^/]+)$/.exec(p)))
      return m[1] === LOCATION_ID ? [200, readFixtureJson("square/location.json")] : bad("not_found", 404);
    if (method === "GET" && p === "/v2/bookings/business-booking-profile")
      return [200, readFixtureJson("square/business-booking-profile.json")];
    if (method === "GET" && p === "/v2/bookings/team-member-booking-profiles")
      return [200, { team_member_booking_profiles: this.team, errors: [] }];
    if (method === "POST" && p === "/v2/catalog/search-catalog-items") return [200, { items: this.items }];
    if (method === "GET" && (m = /^\/v2\/catalog\/object\/([^/]+)$/.exec(p))) {
      const v = this.variation(m[1] ?? "");
      return v === undefined ? bad("not_found", 404) : [200, { object: v }];
    }
    if (method === "POST" && p === "/v2/bookings/availability/search") return this.search(body);
    if (method === "GET" && p === "/v2/bookings") return this.list(url.searchParams);
    if (method === "POST" && p === "/v2/bookings") return this.create(body);
    if ((m = /^\/v2\/bookings\/([^/]+)(\/cancel)?$/.exec(p))) {
      const booking = this.bookings.get(decodeURIComponent(m[1] ?? ""));
      if (booking === undefined) return bad("not_found", 404);
      if (method === "GET" && m[2] === undefined) return [200, { booking, errors: [] }];
      if (method === "PUT" && m[2] === undefined) return this.update(booking, body);
      if (method === "POST" && m[2] === "/cancel") return this.cancel(booking, body);
    }
    return bad("not_found", 404);
  }

  private variation(id: string): Json | undefined {
    for (const item of this.items) {
      const data = item["item_data"] as { variations?: Json[] } | undefined;
      const v = data?.variations?.find((x) => x["id"] === id);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  private busy(teamMemberId: string, start: number, end: number): boolean {
    for (const b of this.liveBookings()) {
      const segs = b["appointment_segments"] as Json[];
      const s = Date.parse(String(b["start_at"]));
      const e = s + segs.reduce((sum, x) => sum + Number(x["duration_minutes"]), 0) * 60_000;
      if (segs.some((x) => x["team_member_id"] === teamMemberId) && s < end && start < e) return true;
    }
    return false;
  }

  private search(body: Json): Reply {
    const filter = (body["query"] as { filter?: Json } | undefined)?.filter ?? {};
    const range = filter["start_at_range"] as { start_at?: string; end_at?: string } | undefined;
    const start = Date.parse(range?.start_at ?? "");
    const end = Date.parse(range?.end_at ?? "");
    if (!(end - start >= DAY && end - start <= 32 * DAY)) return bad("invalid_time_range");
    if (filter["location_id"] !== LOCATION_ID) return bad("not_found", 404);
    const seg = (filter["segment_filters"] as Json[] | undefined)?.[0] ?? {};
    const v = this.variation(String(seg["service_variation_id"]));
    if (v === undefined) return bad("not_found", 404);
    const durationMs = Number((v["item_variation_data"] as Json)["service_duration"]);
    const any = (seg["team_member_id_filter"] as { any?: string[] } | undefined)?.any;
    const members = any ?? this.team.map((t) => String(t["team_member_id"]));
    const availabilities: Json[] = [];
    for (let day = Math.floor(start / DAY) * DAY; day <= end; day += DAY) {
      const weekday = new Date(day).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      for (let t = day + this.firstStartHour * HOUR; t + durationMs <= day + 21 * HOUR; t += 30 * 60_000) {
        if (t < start || t > end) continue;
        for (const member of members) {
          if (this.busy(member, t, t + durationMs)) continue;
          availabilities.push({
            start_at: iso(t),
            location_id: LOCATION_ID,
            appointment_segments: [
              {
                duration_minutes: durationMs / 60_000,
                service_variation_id: v["id"],
                team_member_id: member,
                service_variation_version: v["version"],
              },
            ],
          });
        }
      }
    }
    return [200, { availabilities, errors: [] }];
  }

  private list(q: URLSearchParams): Reply {
    const min = Date.parse(q.get("start_at_min") ?? "");
    const max = Date.parse(q.get("start_at_max") ?? "");
    if (!(max >= min && max - min <= 31 * DAY)) return bad("invalid_time_range");
    const bookings = [...this.bookings.values()].filter((b) => {
      const s = Date.parse(String(b["start_at"]));
      return b["location_id"] === q.get("location_id") && s >= min && s <= max;
    });
    return [200, { bookings, errors: [] }];
  }

  private segmentsValid(segs: unknown): segs is Json[] {
    return (
      Array.isArray(segs) &&
      segs.length > 0 &&
      (segs as Json[]).every((s) => {
        const v = this.variation(String(s["service_variation_id"]));
        return (
          typeof s["team_member_id"] === "string" &&
          v !== undefined &&
          s["service_variation_version"] === v["version"] &&
          typeof s["duration_minutes"] === "number"
        );
      })
    );
  }

  private create(body: Json): Reply {
    const key = body["idempotency_key"];
    const booking = body["booking"] as Json | undefined;
    if (typeof key !== "string" || key === "" || key.length > 255 || booking === undefined)
      return bad("invalid_time_range");
    const canonical = JSON.stringify(booking);
    const known = this.keys.get(key);
    if (known !== undefined)
      return known.body === canonical
        ? [200, { booking: this.bookings.get(known.id), errors: [] }]
        : bad("idempotency_key_reused");
    if (booking["location_id"] !== LOCATION_ID || Number.isNaN(Date.parse(String(booking["start_at"]))))
      return bad("invalid_time_range");
    if (!this.segmentsValid(booking["appointment_segments"])) return bad("invalid_time_range");
    this.bookingSeq += 1;
    const id = `fakebooking${String(this.bookingSeq).padStart(3, "0")}`;
    const now = this.stamp("create");
    const stored: Json = {
      id,
      version: 1,
      status: "ACCEPTED",
      created_at: now,
      updated_at: now,
      location_id: LOCATION_ID,
      start_at: booking["start_at"],
      seller_note: booking["seller_note"] ?? "",
      appointment_segments: booking["appointment_segments"],
      source: "API",
    };
    this.bookings.set(id, stored);
    this.keys.set(key, { body: canonical, id });
    return [200, { booking: stored, errors: [] }];
  }

  private update(booking: Json, body: Json): Reply {
    const change = body["booking"] as Json | undefined;
    if (change === undefined || change["version"] !== booking["version"]) return bad("version_mismatch");
    if (String(booking["status"]).startsWith("CANCELLED")) return bad("invalid_time_range");
    if (change["appointment_segments"] !== undefined && !this.segmentsValid(change["appointment_segments"]))
      return bad("invalid_time_range");
    Object.assign(booking, {
      ...(change["start_at"] === undefined ? {} : { start_at: change["start_at"] }),
      ...(change["appointment_segments"] === undefined
        ? {}
        : { appointment_segments: change["appointment_segments"] }),
      version: Number(booking["version"]) + 1,
      updated_at: this.stamp("update"),
    });
    return [200, { booking, errors: [] }];
  }

  private cancel(booking: Json, body: Json): Reply {
    if (body["booking_version"] !== undefined && body["booking_version"] !== booking["version"])
      return bad("version_mismatch");
    if (String(booking["status"]).startsWith("CANCELLED")) return bad("invalid_time_range");
    Object.assign(booking, {
      status: "CANCELLED_BY_SELLER",
      version: Number(booking["version"]) + 1,
      updated_at: this.stamp("cancel"),
    });
    return [200, { booking, errors: [] }];
  }
}
