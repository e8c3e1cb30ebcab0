/**
 * The operator API: the host's side of a booking (approve, decline, host cancel, attendance,
 * host proposals and counters, §5.7–§5.8, §5.11, §6), at {origin}/operator/v0/{hostId}/bookings[...]. Reached only
 * with the operator credential. A booking is answered as the core's neutral view
 * (operator-view.ts), whichever edge made it; failures use the SchCP refusal shape so one
 * client can read both APIs (operator-refusals.ts).
 */
import type { Context, Hono } from "hono";
import type {
  BookingListRequest,
  BookingRefusal,
  HostRuntime,
  OperatorApi,
  UseCase,
} from "../../booking/api.js";
import { BOOKING_STATUSES, type BookingStatus } from "../../booking/bookings/state.js";
import { isBookingCursor, MAX_BOOKING_PAGE } from "../../booking/operator/list.js";
import { err, ok, type Result } from "../../protocol/result.js";
import { parseInstant, parseSchcpDuration } from "../../protocol/time/index.js";
import type { Place } from "../../protocol/place.js";
import type { BookingView } from "../../booking/view.js";
import { readBoundedBody } from "../http/body.js";
import { parseJsonBody } from "../http/json-body.js";
import { checkOperatorBody } from "./operator-bodies.js";
import type { OperatorAction } from "./operator-bodies.js";
import { operatorCredentialMatches } from "./operator-auth.js";
import { bodyRefusal, operatorRefusal } from "./operator-refusals.js";
import { operatorBookingJson } from "./operator-view.js";
import { jsonResponse, refusalResponse, toHttp } from "../http/respond.js";
import { DEFAULT_MAX_BODY_BYTES } from "../http/body.js";
import type { EdgeResponse } from "../http/respond.js";
import type { OperatorHttpDeps } from "./types.js";

const OPERATOR_BASE = "/operator/v0/:hostId";

type Input = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Each action's use case, from the checked body. */
const ACTIONS: Record<
  OperatorAction,
  (api: OperatorApi, hostId: string, bookingId: string, b: Input) => UseCase<BookingView>
> = {
  approve: (api, h, id) => api.approve(h, id),
  decline: (api, h, id, b) => {
    const input: { reason?: string; message?: string; timeStillGood?: boolean } = {};
    if (str(b["reason"]) !== undefined) input.reason = str(b["reason"]);
    if (str(b["message"]) !== undefined) input.message = str(b["message"]);
    if (typeof b["time_still_good"] === "boolean") input.timeStillGood = b["time_still_good"];
    return api.decline(h, id, input);
  },
  cancel: (api, h, id, b) => {
    const input: { message?: string; timeStillGood?: boolean } = {};
    if (str(b["message"]) !== undefined) input.message = str(b["message"]);
    if (typeof b["time_still_good"] === "boolean") input.timeStillGood = b["time_still_good"];
    return api.hostCancel(h, id, input);
  },
  attendance: (api, h, id, b) => {
    const input: { status: "completed" | "no_show"; end?: string } = {
      status: b["status"] === "no_show" ? "no_show" : "completed",
    };
    if (str(b["end"]) !== undefined) input.end = str(b["end"]);
    return api.markAttendance(h, id, input);
  },
  propose: (api, h, id, b) =>
    api.propose(h, id, { start: str(b["start"]) ?? "", ...(isPlace(b["place"]) && { place: b["place"] }) }),
  counter: (api, h, id, b) => {
    const ttl = parseSchcpDuration(b["ttl"], "/ttl");
    return api.counter(h, id, {
      ...(str(b["start"]) !== undefined && { start: str(b["start"]) }),
      ...(isPlace(b["place"]) && { place: b["place"] }),
      ...(ttl.ok && { ttlMs: ttl.value }),
    });
  },
  "meeting-accept": (api, h, id, b) => api.acceptMeeting(h, id, { acceptance: str(b["acceptance"]) ?? "" }),
  "meeting-take-back": (api, h, id, b) =>
    api.takeBackMeeting(h, id, { ...(str(b["message"]) !== undefined && { message: str(b["message"]) }) }),
};

/** The body check (operator-bodies.ts) has already held `place` to SchCP's Place schema. */
const isPlace = (v: unknown): v is Place => typeof v === "object" && v !== null;

export function mountOperatorRoutes(app: Hono, deps: OperatorHttpDeps): void {
  app.get(`${OPERATOR_BASE}/bookings`, async (c) =>
    toHttp(
      await guarded(c, deps, async (host) => {
        const query = listQuery((name) => c.req.query(name));
        if (!query.ok) return invalidParam(query.error.field, query.error.message);
        const listed = await deps.api.pageBookings(host.config.id, query.value);
        return listed.ok
          ? jsonResponse(200, {
              bookings: listed.value.bookings.map((v) => ({ booking: operatorBookingJson(v, host) })),
              ...(listed.value.nextCursor !== undefined && { next_cursor: listed.value.nextCursor }),
            })
          : refused(deps, listed.error, host);
      }),
    ),
  );
  for (const action of Object.keys(ACTIONS) as OperatorAction[]) {
    app.post(`${OPERATOR_BASE}/bookings/:bookingId/${action}`, async (c) =>
      toHttp(await guarded(c, deps, (host) => runAction(c, deps, host, action))),
    );
  }
}

const STATUSES: ReadonlySet<string> = new Set<BookingStatus>(BOOKING_STATUSES);

/**
 * The list's query: `limit` (1 to MAX_BOOKING_PAGE), `cursor` (a page's next_cursor), `status`
 * (one booking status), `from` and `to` (RFC 3339 instants: bookings starting in [from, to)).
 */
function listQuery(
  param: (name: string) => string | undefined,
): Result<BookingListRequest, { field: string; message: string }> {
  const bad = (field: string, message: string) => err({ field, message });
  const out: { -readonly [K in keyof BookingListRequest]: BookingListRequest[K] } = {};
  const limit = param("limit");
  if (limit !== undefined) {
    const n = /^[0-9]{1,4}$/.test(limit) ? Number(limit) : NaN;
    if (!(n >= 1 && n <= MAX_BOOKING_PAGE))
      return bad("limit", `must be a whole number from 1 to ${MAX_BOOKING_PAGE}`);
    out.limit = n;
  }
  const cursor = param("cursor");
  if (cursor !== undefined) {
    if (!isBookingCursor(cursor)) return bad("cursor", "is not a next_cursor this list handed out");
    out.cursor = cursor;
  }
  const status = param("status");
  if (status !== undefined) {
    if (!STATUSES.has(status)) return bad("status", `must be one of ${[...STATUSES].join(", ")}`);
    out.status = status as BookingStatus;
  }
  for (const field of ["from", "to"] as const) {
    const value = param(field);
    if (value === undefined) continue;
    const instant = parseInstant(value, field);
    if (!instant.ok) return bad(field, "must be an RFC 3339 instant with an offset");
    out[field] = instant.value.epochMs;
  }
  if (out.from !== undefined && out.to !== undefined && out.from >= out.to)
    return bad("to", "must be after from");
  return ok(out);
}

function invalidParam(field: string, message: string): EdgeResponse {
  return refusalResponse(
    operatorRefusal({ code: "INVALID_REQUEST", message: `${field} ${message}`, details: { field } }),
  );
}

/** The core's refusal, through the SchCP edge's mapping the root handed in (SchCP §9.2). */
function refused(deps: OperatorHttpDeps, r: BookingRefusal, host: HostRuntime): EdgeResponse {
  return refusalResponse(deps.bookingRefusal(r, host.config));
}

/** 401 for a request without the operator credential (also operator-hosts.ts). */
export const OPERATOR_UNAUTHORIZED: EdgeResponse = {
  status: 401,
  body: JSON.stringify({
    error: {
      code: "UNAUTHORIZED",
      message: "the operator API needs Authorization: Bearer <operator credential>",
    },
  }),
};

/** Credential first, then the host: nothing is said to a caller without the credential. */
export async function guarded(
  c: Context,
  deps: OperatorHttpDeps,
  run: (host: HostRuntime) => Promise<EdgeResponse>,
): Promise<EdgeResponse> {
  if (!operatorCredentialMatches(c.req.header("authorization") ?? null, deps.operatorToken)) {
    return OPERATOR_UNAUTHORIZED;
  }
  const hostId = c.req.param("hostId") ?? "";
  const host = deps.hosts.get(hostId);
  if (host === undefined) {
    return refusalResponse(
      operatorRefusal({ code: "NOT_FOUND", message: `no host "${hostId}" is served here` }),
    );
  }
  return run(host);
}

async function runAction(
  c: Context,
  deps: OperatorHttpDeps,
  host: HostRuntime,
  action: OperatorAction,
): Promise<EdgeResponse> {
  const limit = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bytes = await readBoundedBody(c.req.raw, limit, c.env);
  if (!bytes.ok) {
    return refusalResponse(
      operatorRefusal({
        code: "INVALID_REQUEST",
        status: 413,
        message: `the request body is larger than ${limit} bytes`,
      }),
    );
  }
  let json: unknown = undefined;
  if (bytes.value.length > 0) {
    const parsed = parseJsonBody(bytes.value);
    if (!parsed.ok) return refusalResponse(bodyRefusal(parsed.error));
    json = parsed.value;
  }
  const body = checkOperatorBody(action, json);
  if (!body.ok) {
    return refusalResponse(
      operatorRefusal({
        code: "INVALID_REQUEST",
        message: `${body.error.field || "body"} ${body.error.message}`,
        details: { field: body.error.field },
      }),
    );
  }
  const bookingId = c.req.param("bookingId") ?? "";
  const result = await ACTIONS[action](deps.api, host.config.id, bookingId, body.value);
  return result.ok
    ? jsonResponse(200, { booking: operatorBookingJson(result.value, host) })
    : refused(deps, result.error, host);
}
