/**
 * validateMandate: OSBP "Server Obligations → Mandate Enforcement", the ordered list, run
 * before any platform appointment create. Each step below names the bullet it implements and
 * returns the first failure with the spec's code. Final confirmation and idempotency (the last
 * two bullets) are approval-gate.ts and the adapter's idempotency cache.
 *
 * Decisions:
 *   - expired means now >= expires_at: at the expiry instant the authorization is over.
 *   - The selected price is the slot's price, else the service's; every present price (slot
 *     and service) must be in the cap currency. No price, or a non-fixed one, cannot be bounded.
 *   - The fee a deposit/full_prepay requires is Policy.deposit; for full_prepay without a
 *     deposit amount it is the selected price. Without max_extra_fee it must still be in the
 *     mandate currency (max_price.currency): OSBP never converts implicitly.
 *   - A malformed money value on the slot, service or policy (adapter data) cannot be explained
 *     to the user, so it fails closed with the non-retryable requires_user_confirmation.
 */
import { err, ok, type Result } from "../result.js";
import { compareWallClock, parseInstant, parseWallClock, type WallClock } from "../time/index.js";
import { invalidMandate, MANDATE_POINTER, parseMandateShape } from "./mandate-shape.js";
import { checkPayment, checkPrice, type FixedMoney } from "./mandate-money.js";
import { problem } from "./problems.js";
import type { BookingMandate, MandateAction, Policy, Problem, Service, Slot } from "./types.js";

export interface MandateContext {
  /** Epoch milliseconds. */
  readonly now: number;
  readonly action: MandateAction;
  readonly slot: Slot;
  readonly service: Service;
  readonly policy: Policy;
}

export interface ValidatedMandate {
  readonly mandate: BookingMandate;
  /** The price the booking will carry, within max_price. */
  readonly price: FixedMoney;
  /** The upfront payment the mandate allowed (deposit/full_prepay), when one is required. */
  readonly policyFee?: FixedMoney;
}

const mandateField = (key: string): string => `${MANDATE_POINTER}/${key}`;

/** The ids a booking names, as the request states them or as the adapter resolved them. */
export interface ScopeIds {
  /** Every organization id in play (the slot's, the policy's); all must be the mandate's. */
  readonly organizationIds: readonly string[];
  /** Every service id in play (the slot's, the service's). */
  readonly serviceIds: readonly string[];
  readonly scheduleId: string;
  /** Absent or empty: the booking names no provider. */
  readonly providerId?: string | undefined;
}

/** Bullets 1 to 4: shape, expiry, action, scope. */
function checkAuthority(
  mandate: unknown,
  now: number,
  action: MandateAction,
  ids: ScopeIds,
): Result<BookingMandate, Problem> {
  // 1. "the mandate has an id and a well-formed expires_at with an explicit timezone"
  //    (and, per the invalid_mandate row, no missing or malformed fields).
  const shape = parseMandateShape(mandate);
  if (!shape.ok) return shape;
  const m = shape.value.mandate;

  // 2. "the mandate is not expired"
  if (now >= shape.value.expiresAtMs) {
    return err(
      problem("mandate_expired", `BookingMandate expired at ${m.expires_at} (BookingMandate.expires_at)`),
    );
  }

  // 3. "booking.create is included in allowed_actions"
  if (!m.allowed_actions.includes(action)) {
    return err(problem("action_not_allowed", `${action} is not in BookingMandate.allowed_actions`));
  }

  // 4. "the organization, service, schedule, and provider are all inside scope"
  const scope = checkScope(m, ids);
  return scope === undefined ? ok(m) : err(scope);
}

/**
 * Bullets 1 to 4 on the ids a booking.create request names, before the adapter looks any of
 * them up: an id the mandate does not cover is refused in the mandate's terms (for example
 * provider_not_allowed for a provider outside provider_ids) whether or not the merchant has
 * it. validateMandate repeats these on the resolved slot, then checks the rest.
 */
export function validateRequestScope(
  mandate: unknown,
  ctx: { readonly now: number; readonly action: MandateAction; readonly ids: ScopeIds },
): Result<BookingMandate, Problem> {
  return checkAuthority(mandate, ctx.now, ctx.action, ctx.ids);
}

export function validateMandate(mandate: unknown, ctx: MandateContext): Result<ValidatedMandate, Problem> {
  const { slot, service, policy } = ctx;
  // 1-4. Shape, expiry, action, scope.
  const authority = checkAuthority(mandate, ctx.now, ctx.action, {
    organizationIds: [slot.organization_id, policy.organization?.id].filter(
      (id): id is string => id !== undefined,
    ),
    serviceIds: [slot.service_id, service.id],
    scheduleId: slot.schedule_id,
    providerId: slot.provider_id,
  });
  if (!authority.ok) return authority;
  const m = authority.value;

  // 5. wall-clock discipline, then "the slot start and end fall inside the mandate window"
  const window = checkWindow(m, slot);
  if (window !== undefined) return err(window);

  // 6. "the price currency matches max_price.currency and the amount is at or below
  //    max_price.amount_minor"; a non-fixed price fails closed (OSBP "Money").
  const price = checkPrice(m, slot, service);
  if (!price.ok) return price;

  // 7. "the service does not require a consultation/quote workflow"
  if (service.requires_consultation === true) {
    return err(
      problem(
        "requires_consultation_handoff",
        "The service requires a consultation or quote workflow (Service.requires_consultation) OSBP cannot drive; use handoff.request",
      ),
    );
  }

  // 8. "any required payment or policy fee is allowed by allow_policy_fee, matches the
  //    max_extra_fee currency, and is at or below max_extra_fee.amount_minor; unknown payment
  //    requirements fail closed with requires_user_confirmation"
  const fee = checkPayment(m, policy, price.value);
  if (!fee.ok) return fee;

  return ok(
    fee.value === undefined
      ? { mandate: m, price: price.value }
      : { mandate: m, price: price.value, policyFee: fee.value },
  );
}

/** Omitted list = unconstrained; an empty list allows nothing (OSBP "BookingMandate"). */
const allows = (list: readonly string[] | undefined, id: string): boolean =>
  list === undefined || list.includes(id);

function checkScope(m: BookingMandate, ids: ScopeIds): Problem | undefined {
  if (ids.organizationIds.some((id) => id !== m.organization_id)) {
    return problem("organization_not_allowed", "The organization is outside BookingMandate.organization_id");
  }
  if (ids.serviceIds.some((id) => !allows(m.service_ids, id))) {
    return problem("service_not_allowed", "The service is outside BookingMandate.service_ids");
  }
  if (!allows(m.schedule_ids, ids.scheduleId)) {
    return problem("schedule_not_allowed", "The schedule is outside BookingMandate.schedule_ids");
  }
  if (m.provider_ids !== undefined) {
    if (ids.providerId === undefined || ids.providerId === "") {
      return problem(
        "provider_unknown",
        "The slot names no provider (provider_id), but BookingMandate.provider_ids requires one",
      );
    }
    if (!m.provider_ids.includes(ids.providerId)) {
      return problem("provider_not_allowed", "The provider is outside BookingMandate.provider_ids");
    }
  }
  return undefined;
}

/**
 * Wall-clock fields carry no offset and instants carry one (OSBP "Time Discipline"); a field in
 * the other convention is invalid_mandate. The window compares wall-clock with wall-clock only:
 * both are merchant-local, so no zone is needed.
 */
function checkWindow(m: BookingMandate, slot: Slot): Problem | undefined {
  const walls: [string, unknown][] = [
    [mandateField("earliest_start"), m.earliest_start],
    [mandateField("latest_end"), m.latest_end],
    ["/slot/starts_at_local", slot.starts_at_local],
    ["/slot/ends_at_local", slot.ends_at_local],
  ];
  const parsed: WallClock[] = [];
  for (const [field, value] of walls) {
    const w = parseWallClock(value, field);
    if (!w.ok) return invalidMandate(field, w.error.message);
    parsed.push(w.value);
  }
  for (const [field, value] of [
    ["/slot/starts_at", slot.starts_at],
    ["/slot/ends_at", slot.ends_at],
  ] as const) {
    if (value === undefined) continue;
    const i = parseInstant(value, field);
    if (!i.ok) return invalidMandate(field, i.error.message);
  }
  const [earliest, latest, start, end] = parsed as [WallClock, WallClock, WallClock, WallClock];
  if (compareWallClock(start, earliest) < 0) {
    return problem(
      "slot_too_early",
      `The slot starts at ${slot.starts_at_local}, before BookingMandate.earliest_start ${m.earliest_start}`,
    );
  }
  if (compareWallClock(end, latest) > 0) {
    return problem(
      "slot_too_late",
      `The slot ends at ${slot.ends_at_local}, after BookingMandate.latest_end ${m.latest_end}`,
    );
  }
  return undefined;
}
