/**
 * Request bodies of the operator API (the gateway's own, not SchCP): closed like SchCP's, so
 * a typo ("timeStillGood") is an error naming the member rather than a silently ignored
 * option. Parsed with the same strict JSON and payment rule as the host endpoint.
 */
import { parseInstant, parseSchcpDuration } from "../../protocol/time/index.js";
import { validateSchcp } from "../../protocol/schcp/validate.js";
import { childPointer, err, ok } from "../../protocol/result.js";
import type { FieldError, Result } from "../../protocol/result.js";

type Kind = "string" | "boolean" | "instant" | "attendance" | "place" | "duration" | "jws";
type Shape = Readonly<Record<string, { readonly kind: Kind; readonly required?: boolean }>>;

const OPERATOR_BODIES = {
  approve: {},
  // SchCP §5.9: time_still_good releases the declined booking's time to the waitlist first.
  decline: { reason: { kind: "string" }, message: { kind: "string" }, time_still_good: { kind: "boolean" } },
  cancel: { message: { kind: "string" }, time_still_good: { kind: "boolean" } },
  attendance: { status: { kind: "attendance", required: true }, end: { kind: "instant" } },
  propose: { start: { kind: "instant", required: true }, place: { kind: "place" } },
  // SchCP §5.11: another start, another place, or both (the core refuses neither); ttl shortens
  // how long the guest has to answer, which is at most the booking's approval deadline.
  counter: { start: { kind: "instant" }, place: { kind: "place" }, ttl: { kind: "duration" } },
  // SchCP §5.12: the member's acceptance given to their own calendar, and taking a yes back.
  "meeting-accept": { acceptance: { kind: "jws", required: true } },
  "meeting-take-back": { message: { kind: "string" } },
} as const satisfies Record<string, Shape>;

export type OperatorAction = keyof typeof OPERATOR_BODIES;

const bad = (field: string, message: string): Result<never, FieldError> =>
  err({ code: "invalid_request", field, message });

function checkMember(kind: Kind, value: unknown, field: string): Result<void, FieldError> {
  switch (kind) {
    case "string":
      return typeof value === "string" && value.length <= 2000
        ? ok(undefined)
        : bad(field, "must be a string");
    case "jws":
      // A compact JWS (an acceptance by rule carries the rule inside it); checked by the core.
      return typeof value === "string" &&
        value.length <= 16_000 &&
        /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]*){2}$/.test(value)
        ? ok(undefined)
        : bad(field, "must be a compact JWS");
    case "boolean":
      return typeof value === "boolean" ? ok(undefined) : bad(field, "must be true or false");
    case "attendance":
      return value === "completed" || value === "no_show"
        ? ok(undefined)
        : bad(field, 'must be "completed" or "no_show"');
    case "instant":
      return parseInstant(value, field).ok
        ? ok(undefined)
        : bad(field, "must be an RFC 3339 date-time with an offset");
    case "place": {
      // SchCP §5.2's place: name, street, locality, region, postal_code, country (ISO 3166-1
      // alpha-2), at least one.
      const place = validateSchcp("Place", value);
      return place.ok ? ok(undefined) : bad(`${field}${place.error.field}`, place.error.message);
    }
    case "duration":
      return parseSchcpDuration(value, field).ok
        ? ok(undefined)
        : bad(field, 'must be an ISO 8601 duration such as "PT30M"');
  }
}

/** An absent body reads as {} (approve needs none). */
export function checkOperatorBody(
  action: OperatorAction,
  value: unknown,
): Result<Readonly<Record<string, unknown>>, FieldError> {
  const shape: Shape = OPERATOR_BODIES[action];
  const body = value === undefined ? {} : value;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return bad("", "must be a JSON object");
  const record = body as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (!Object.prototype.hasOwnProperty.call(shape, name)) {
      return bad(childPointer("", name), "is not a member this request defines");
    }
  }
  for (const [name, rule] of Object.entries(shape)) {
    const field = childPointer("", name);
    if (!(name in record)) {
      if (rule.required === true) return bad(field, "is required");
      continue;
    }
    const checked = checkMember(rule.kind, record[name], field);
    if (!checked.ok) return checked;
  }
  return ok(record);
}
