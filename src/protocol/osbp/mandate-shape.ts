/**
 * The structural half of OSBP "Mandate Enforcement" bullet 1 and the invalid_mandate row of the
 * code table ("missing required fields"): the mandate is a closed object whose members have the
 * JSON types the spec gives them. Time conventions and scope are checked later, in the spec's
 * order, by validate-mandate.ts.
 *
 * Required here: id, expires_at, allowed_actions, organization_id, earliest_start, latest_end,
 * max_price. The spec makes only service_ids, provider_ids and schedule_ids optional ("omit one
 * of these fields to leave that dimension unconstrained") and max_extra_fee conditional ("if
 * the mandate also provides"); a mandate without a window or a price cap cannot bound a booking,
 * so it fails closed. allow_policy_fee defaults to false. Unknown members are refused: a
 * constraint the server does not understand must not be silently ignored.
 */
import { validateOsbpMoney, type OsbpMoney } from "../money/index.js";
import { childPointer, err, ok, type Result } from "../result.js";
import { parseInstant } from "../time/index.js";
import { problem } from "./problems.js";
import type { BookingMandate, Problem } from "./types.js";

export const MANDATE_POINTER = "/mandate";

const MEMBERS: ReadonlySet<string> = new Set([
  "id",
  "expires_at",
  "allowed_actions",
  "organization_id",
  "service_ids",
  "provider_ids",
  "schedule_ids",
  "earliest_start",
  "latest_end",
  "max_price",
  "allow_policy_fee",
  "max_extra_fee",
]);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const at = (key: string | number, parent = MANDATE_POINTER): string => childPointer(parent, key);

/** `field` is the offending member's pointer, named in the message (a Problem has no field member). */
export const invalidMandate = (field: string, message: string): Problem =>
  problem("invalid_mandate", `Invalid BookingMandate at ${field}: ${message}`);

function nonEmptyString(value: unknown, key: string, what: string): Result<string, Problem> {
  if (value === undefined) return err(invalidMandate(at(key), `${key} is required`));
  if (typeof value !== "string" || value.length === 0) {
    return err(invalidMandate(at(key), `${key} must be ${what}`));
  }
  return ok(value);
}

function idList(value: unknown, key: string): Result<string[] | undefined, Problem> {
  if (value === undefined) return ok(undefined);
  if (!Array.isArray(value))
    return err(invalidMandate(at(key), `${key} must be an array of ids when present`));
  for (const [i, id] of value.entries()) {
    if (typeof id !== "string" || id.length === 0) {
      return err(invalidMandate(at(i, at(key)), `${key} entries must be non-empty strings`));
    }
  }
  return ok([...(value as string[])]);
}

/** A cap must be a fixed amount in a known currency: anything else cannot bound a price. */
function cap(value: unknown, key: string): Result<OsbpMoney, Problem> {
  const money = validateOsbpMoney(value, at(key));
  if (!money.ok) return err(invalidMandate(money.error.field, `${key}: ${money.error.message}`));
  if (money.value.type !== "fixed") {
    return err(invalidMandate(at("amount_minor", at(key)), `${key} must be a fixed amount_minor`));
  }
  return ok(money.value);
}

/**
 * Reads the mandate's structure: bullet 1 (id, then a well-formed expires_at with an explicit
 * zone) first, then the JSON type of every other member. The wall-clock window strings are only
 * type-checked here; their convention is the spec's fifth step.
 */
export interface MandateShape {
  readonly mandate: BookingMandate;
  /** expires_at as epoch milliseconds. */
  readonly expiresAtMs: number;
}

export function parseMandateShape(value: unknown): Result<MandateShape, Problem> {
  if (!isPlainObject(value)) return err(invalidMandate(MANDATE_POINTER, "the mandate must be a JSON object"));
  const id = nonEmptyString(value.id, "id", "a non-empty string");
  if (!id.ok) return id;
  if (value.expires_at === undefined) return err(invalidMandate(at("expires_at"), "expires_at is required"));
  // OSBP BookingMandate: "must carry Z or an explicit UTC offset"; a naked wall-clock would
  // expire in the host's zone.
  const expires = parseInstant(value.expires_at, at("expires_at"));
  if (!expires.ok) return err(invalidMandate(expires.error.field, `expires_at: ${expires.error.message}`));
  for (const key of Object.keys(value)) {
    if (!MEMBERS.has(key)) return err(invalidMandate(at(key), `unknown member "${key}"`));
  }
  if (value.allowed_actions === undefined)
    return err(invalidMandate(at("allowed_actions"), "allowed_actions is required"));
  const actions = idList(value.allowed_actions, "allowed_actions");
  if (!actions.ok) return actions;
  const org = nonEmptyString(value.organization_id, "organization_id", "a non-empty string");
  if (!org.ok) return org;
  const services = idList(value.service_ids, "service_ids");
  if (!services.ok) return services;
  const providers = idList(value.provider_ids, "provider_ids");
  if (!providers.ok) return providers;
  const schedules = idList(value.schedule_ids, "schedule_ids");
  if (!schedules.ok) return schedules;
  const earliest = nonEmptyString(value.earliest_start, "earliest_start", "a wall-clock string");
  if (!earliest.ok) return earliest;
  const latest = nonEmptyString(value.latest_end, "latest_end", "a wall-clock string");
  if (!latest.ok) return latest;
  if (value.max_price === undefined) return err(invalidMandate(at("max_price"), "max_price is required"));
  const maxPrice = cap(value.max_price, "max_price");
  if (!maxPrice.ok) return maxPrice;
  if (value.allow_policy_fee !== undefined && typeof value.allow_policy_fee !== "boolean") {
    return err(invalidMandate(at("allow_policy_fee"), "allow_policy_fee must be a boolean when present"));
  }
  const maxExtra =
    value.max_extra_fee === undefined ? ok(undefined) : cap(value.max_extra_fee, "max_extra_fee");
  if (!maxExtra.ok) return maxExtra;

  const mandate: BookingMandate = {
    id: id.value,
    expires_at: expires.value.text,
    allowed_actions: actions.value ?? [],
    organization_id: org.value,
    earliest_start: earliest.value,
    latest_end: latest.value,
    max_price: maxPrice.value,
  };
  if (services.value !== undefined) mandate.service_ids = services.value;
  if (providers.value !== undefined) mandate.provider_ids = providers.value;
  if (schedules.value !== undefined) mandate.schedule_ids = schedules.value;
  if (value.allow_policy_fee !== undefined) mandate.allow_policy_fee = value.allow_policy_fee;
  if (maxExtra.value !== undefined) mandate.max_extra_fee = maxExtra.value;
  return ok({ mandate, expiresAtMs: expires.value.epochMs });
}
