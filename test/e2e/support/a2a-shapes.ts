/**
 * Shape checkers written from the field tables of specs/servicialo-a2a-v1.2.0.md: each returns
 * the list of ways a response departs from its table (empty when it conforms), so a failing
 * test names every wrong field at once. Only what the tables say is checked: types, required
 * and nullable fields, UTC instants with milliseconds (".000Z"), numeric-string prices, ISO 4217
 * currency codes, the lifecycle's Spanish wire values.
 */
type Json = Record<string, unknown>;
type Problems = string[];

const UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NUMERIC_STRING = /^\d+(\.\d+)?$/;
// ISO 4217 codes are three letters; the spec also names "UF" (Chile's unit of account).
const CURRENCY = /^([A-Z]{3}|UF)$/;
/** Lifecycle States: index → Spanish wire value. */
export const WIRE_STATES = [
  "solicitado",
  "agendado",
  "confirmado",
  "en_curso",
  "completado",
  "documentado",
  "facturado",
  "cobrado",
  "verificado",
] as const;

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => Number.isInteger(v);
const isStrArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

class Check {
  problems: Problems = [];
  constructor(readonly at: string) {}
  fail(field: string, why: string, value: unknown): void {
    this.problems.push(`${this.at}.${field}: ${why} (got ${JSON.stringify(value)})`);
  }
  str(o: Json, f: string): void {
    if (typeof o[f] !== "string" || o[f] === "") this.fail(f, "a non-empty string", o[f]);
  }
  strOrNull(o: Json, f: string): void {
    if (!(f in o)) this.fail(f, "present (nullable)", undefined);
    else if (o[f] !== null && typeof o[f] !== "string") this.fail(f, "string or null", o[f]);
  }
  int(o: Json, f: string, min = 0): void {
    const v = o[f];
    if (!isInt(v) || v < min) this.fail(f, `an integer >= ${min}`, o[f]);
  }
  utc(o: Json, f: string): void {
    if (typeof o[f] !== "string" || !UTC_MS.test(o[f])) this.fail(f, "ISO 8601 UTC with .000Z", o[f]);
  }
  date(o: Json, f: string): void {
    if (typeof o[f] !== "string" || !DATE.test(o[f])) this.fail(f, "YYYY-MM-DD", o[f]);
  }
  oneOf(o: Json, f: string, values: readonly unknown[]): void {
    if (!values.includes(o[f])) this.fail(f, `one of ${values.join(", ")}`, o[f]);
  }
  equals(o: Json, f: string, value: unknown): void {
    if (o[f] !== value) this.fail(f, `exactly ${JSON.stringify(value)}`, o[f]);
  }
  obj(o: Json, f: string): Json {
    if (!isObj(o[f])) {
      this.fail(f, "an object", o[f]);
      return {};
    }
    return o[f];
  }
  /** A nested object's own check, its problems reported under this one as `at.field`. */
  nested(o: Json, f: string): { readonly v: Json; readonly c: Check } {
    const sub = new Check(`${this.at}.${f}`);
    sub.problems = this.problems;
    return { v: this.obj(o, f), c: sub };
  }
  arr(o: Json, f: string): unknown[] {
    if (!Array.isArray(o[f])) {
      this.fail(f, "an array", o[f]);
      return [];
    }
    return o[f];
  }
  timezone(o: Json, f: string): void {
    try {
      new Intl.DateTimeFormat("en", { timeZone: String(o[f]) });
      if (typeof o[f] !== "string" || !o[f].includes("/")) throw new Error();
    } catch {
      this.fail(f, "an IANA timezone", o[f]);
    }
  }
}

function merge(...lists: Problems[]): Problems {
  return lists.flat();
}

/** "Service Object Fields". */
export function checkServiceObject(s: unknown, at = "service"): Problems {
  const c = new Check(at);
  if (!isObj(s)) return [`${at}: not an object`];
  c.str(s, "id");
  c.str(s, "name");
  c.strOrNull(s, "description");
  if (typeof s.price !== "string" || !NUMERIC_STRING.test(s.price) || !Number.isFinite(Number(s.price)))
    c.fail("price", "a numeric string", s.price);
  if (typeof s.currency !== "string" || !CURRENCY.test(s.currency))
    c.fail("currency", "ISO 4217", s.currency);
  c.str(s, "price_unit");
  c.oneOf(s, "modality", ["presencial", "a_domicilio", "remoto"]);
  if (!("duration_minutes" in s) || (s.duration_minutes !== null && !isInt(s.duration_minutes)))
    c.fail("duration_minutes", "integer or null", s.duration_minutes);
  for (const f of ["category", "expected_outcome", "suggested_frequency", "treatment_length"])
    c.strOrNull(s, f);
  for (const f of ["requirements", "tags"]) if (!isStrArray(s[f])) c.fail(f, "string[]", s[f]);
  return c.problems;
}

/** list_services 200. */
export function checkServicesResponse(b: unknown): Problems {
  const c = new Check("services");
  if (!isObj(b)) return ["services: not an object"];
  c.equals(b, "servicialo_version", "1.0");
  const org = c.nested(b, "organization");
  org.c.str(org.v, "name");
  org.c.str(org.v, "slug");
  return merge(c.problems, ...c.arr(b, "services").map((s, i) => checkServiceObject(s, `services[${i}]`)));
}

function checkProvider(c: Check, o: Json): void {
  const p = c.nested(o, "provider");
  p.c.str(p.v, "id");
  p.c.str(p.v, "name");
}

function checkSlotService(c: Check, o: Json): void {
  const s = c.nested(o, "service");
  s.c.str(s.v, "id");
  s.c.int(s.v, "duration_minutes", 1);
}

/** check_availability 200, date range / next N: one flat `slots` list, no `reason`. */
export function checkAvailabilityRange(b: unknown): Problems {
  const c = new Check("availability");
  if (!isObj(b)) return ["availability: not an object"];
  checkSlotService(c, b);
  c.timezone(b, "timezone");
  if ("reason" in b) c.fail("reason", "absent in multi-day modes", b.reason);
  c.arr(b, "slots").forEach((s, i) => {
    const sc = new Check(`availability.slots[${i}]`);
    if (!isObj(s)) return c.problems.push(`slots[${i}]: not an object`);
    sc.date(s, "date");
    sc.utc(s, "start");
    sc.utc(s, "end");
    if (typeof s.start === "string" && typeof s.end === "string" && s.end <= s.start)
      sc.fail("end", "after start", s.end);
    checkProvider(sc, s);
    c.problems.push(...sc.problems);
  });
  return c.problems;
}

/** check_availability 200, single day. */
export function checkAvailabilityDay(b: unknown): Problems {
  const c = new Check("availability");
  if (!isObj(b)) return ["availability: not an object"];
  c.date(b, "date");
  checkProvider(c, b);
  checkSlotService(c, b);
  c.timezone(b, "timezone");
  const slots = c.arr(b, "available_slots");
  slots.forEach((s, i) => {
    if (!isObj(s)) return c.problems.push(`available_slots[${i}]: not an object`);
    c.utc(s, "start");
    c.utc(s, "end");
  });
  if (slots.length === 0)
    c.oneOf(b, "reason", ["NO_AVAILABILITY_CONFIGURED", "NO_SLOTS_FOR_DATE", "ALL_SLOTS_BOOKED"]);
  return c.problems;
}

/** book_session 201. */
export function checkBookResponse(b: unknown): Problems {
  const c = new Check("book");
  if (!isObj(b)) return ["book: not an object"];
  c.equals(b, "servicialo_version", "1.0");
  c.equals(b, "success", true);
  const s = c.obj(b, "session");
  const sc = new Check("book.session");
  sc.str(s, "id");
  sc.oneOf(s, "status", ["agendado", "pendiente_confirmacion"]);
  sc.oneOf(s, "derived_state", WIRE_STATES);
  sc.int(s, "derived_state_index");
  if (WIRE_STATES.indexOf(s.derived_state as never) !== s.derived_state_index)
    sc.fail("derived_state_index", `the index of ${String(s.derived_state)}`, s.derived_state_index);
  sc.utc(s, "scheduled_at");
  sc.int(s, "duration_minutes", 1);
  sc.str(s, "service");
  sc.str(s, "client_email");
  if (
    !("client_portal_url" in b) ||
    (b.client_portal_url !== null && typeof b.client_portal_url !== "string")
  )
    c.fail("client_portal_url", "string or null", b.client_portal_url);
  c.str(b, "order_id");
  c.str(b, "venta_id");
  return merge(c.problems, sc.problems);
}

/** cancel_session 200. */
export function checkCancelResponse(b: unknown): Problems {
  const c = new Check("cancel");
  if (!isObj(b)) return ["cancel: not an object"];
  c.str(b, "sessionId");
  c.equals(b, "status", "cancelled");
  const p = c.nested(b, "policy_applied");
  p.c.oneOf(p.v, "penalty", ["none", "partial", "full"]);
  if (p.v.penalty !== "none") p.c.int(p.v, "penalty_percent");
  return c.problems;
}

/** reschedule_session 200. */
export function checkRescheduleResponse(b: unknown): Problems {
  const c = new Check("reschedule");
  if (!isObj(b)) return ["reschedule: not an object"];
  c.str(b, "sessionId");
  c.str(b, "status");
  c.utc(b, "scheduledAt");
  c.int(b, "duration", 1);
  return c.problems;
}

/** Error Reference: `{ error, code? }` (the envelope's other fields are optional). */
export function checkErrorBody(b: unknown): Problems {
  const c = new Check("error");
  if (!isObj(b)) return ["error: not an object"];
  c.str(b, "error");
  if ("code" in b && (typeof b.code !== "string" || !/^[A-Z_]+$/.test(b.code)))
    c.fail("code", "MACHINE_READABLE_CODE", b.code);
  return c.problems;
}

/** Transport §Response: a JSON-RPC 2.0 result that is an agent Message. */
export function checkA2aMessage(body: unknown, id: unknown): Problems {
  const c = new Check("jsonrpc");
  if (!isObj(body)) return ["jsonrpc: not an object"];
  c.equals(body, "jsonrpc", "2.0");
  c.equals(body, "id", id);
  if ("error" in body) c.fail("error", "absent on a result", body.error);
  const m = c.obj(body, "result");
  const mc = new Check("jsonrpc.result");
  mc.equals(m, "kind", "message");
  mc.equals(m, "role", "agent");
  mc.str(m, "messageId");
  const parts = mc.arr(m, "parts");
  const text = parts[0];
  if (!isObj(text) || text.kind !== "text" || typeof text.text !== "string" || text.text === "")
    mc.fail("parts[0]", "a text part", text);
  const data = parts[1];
  if (data !== undefined) {
    if (!isObj(data) || data.kind !== "data" || !isObj(data.data)) mc.fail("parts[1]", "a data part", data);
    else {
      const d = data.data;
      const dc = new Check("jsonrpc.result.parts[1].data");
      dc.oneOf(d, "intent", [
        "list_services",
        "check_availability",
        "book_session",
        "cancel_session",
        "reschedule_session",
      ]);
      dc.oneOf(d, "status", ["completed", "failed"]);
      dc.int(d, "http_status", 200);
      if (d.status === "completed" && (d.http_status as number) >= 400)
        dc.fail("status", "failed for an HTTP error", d.status);
      if (d.status === "failed" && checkErrorBody(d.result).length > 0)
        dc.fail("result", "the REST error body", d.result);
      mc.problems.push(...dc.problems);
    }
  }
  if (parts.length > 2) mc.fail("parts", "a text part and at most one data part", parts.length);
  return merge(c.problems, mc.problems);
}

/** Transport §Protocol: a JSON-RPC error object with one of the spec's codes. */
export function checkJsonRpcError(body: unknown, code: number): Problems {
  const c = new Check("jsonrpc");
  if (!isObj(body)) return ["jsonrpc: not an object"];
  c.equals(body, "jsonrpc", "2.0");
  if ("result" in body) c.fail("result", "absent on an error", body.result);
  const e = c.nested(body, "error");
  e.c.equals(e.v, "code", code);
  e.c.str(e.v, "message");
  return c.problems;
}

/** Agent Discovery: the minimal card's fields (consumers ignore the rest). */
export function checkAgentCard(card: unknown, a2aUrl: string): Problems {
  const c = new Check("card");
  if (!isObj(card)) return ["card: not an object"];
  c.str(card, "name");
  c.equals(card, "url", a2aUrl);
  c.equals(card, "protocolVersion", "0.3.0");
  const caps = c.nested(card, "capabilities");
  caps.c.equals(caps.v, "streaming", false);
  caps.c.equals(caps.v, "pushNotifications", false);
  for (const f of ["defaultInputModes", "defaultOutputModes"])
    if (!isStrArray(card[f]) || !card[f].includes("text")) c.fail(f, "string[] with text", card[f]);
  c.arr(card, "skills").forEach((s, i) => {
    const sc = new Check(`card.skills[${i}]`);
    if (!isObj(s)) return c.problems.push(`skills[${i}]: not an object`);
    for (const f of ["id", "name", "description"]) sc.str(s, f);
    if (!isStrArray(s.tags)) sc.fail("tags", "string[]", s.tags);
    c.problems.push(...sc.problems);
  });
  return c.problems;
}
