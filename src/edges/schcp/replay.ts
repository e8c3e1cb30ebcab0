/**
 * The replay check of SchCP §9.1: "a replay is authorized like a fresh request ... The stored
 * result must also fall within the current mandate as a fresh request's would: its service,
 * time (its start, for an open-ended booking), stated all-in total, and for an acceptance the
 * offer it names." The stored response is read back (a Hold, a BookingResponse or a
 * ChangeOfferResponse) into the MandateAction a fresh request would have been checked as, and
 * every link is checked against it. Nothing is counted against max_bookings: a replay
 * repeats no action.
 */
import type { BookingRefusal } from "../../booking/api.js";
import type { SchcpCaller } from "./caller.js";
import type { KeptResponse } from "../../booking/idempotency/index.js";
import { decodeCompactJws } from "../../protocol/jose/index.js";
import { parseSchcpMoney } from "../../protocol/money/index.js";
import type { Money } from "../../protocol/money/index.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { checkMandateAction, REQUIRED_SCOPE } from "../../protocol/schcp/mandate/index.js";
import type { MandateAction, MandateActionKind, MandateChain } from "../../protocol/schcp/mandate/index.js";
import { offerSha256 } from "../../protocol/schcp/offer/index.js";
import { parseInstant } from "../../protocol/time/index.js";
import { mandateRequired, refuse } from "../../booking/bookings/refuse.js";
import { fromMandateRefusal } from "./mandate-refusal.js";
import type { ReplayAuthorizer } from "./idempotency.js";

const NO_COUNT = { active: () => Promise.resolve(0) };

export function mandateReplayAuthorizer(caller: SchcpCaller, kind: MandateActionKind): ReplayAuthorizer {
  return async (stored: KeptResponse): Promise<Result<void, BookingRefusal>> => {
    const chain = caller.mandate;
    if (chain === undefined) return stored.principal === null ? ok(undefined) : err(mandateRequired());
    const ok2xx = stored.response.status >= 200 && stored.response.status < 300;
    const action = ok2xx ? actionOf(kind, stored.response.body) : undefined;
    if (action === undefined) return scopeOnly(chain, kind);
    const checked = await checkMandateAction(chain, action, { counter: NO_COUNT });
    return checked.ok ? ok(undefined) : err(fromMandateRefusal(checked.error));
  };
}

/** A stored refusal carries nothing of the principal's; the scope still has to cover the route. */
function scopeOnly(chain: MandateChain, kind: MandateActionKind): Result<void, BookingRefusal> {
  const needed = REQUIRED_SCOPE[kind];
  if (needed === null || chain.links.every((l) => l.claims.scope.includes(needed))) return ok(undefined);
  return err(
    refuse("authority_scope", "not_in_scope", `${kind} needs "${needed}" in the mandate's scope`, {
      basis: { scope: needed },
    }),
  );
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function instant(v: unknown): number | undefined {
  const p = parseInstant(v, "");
  return p.ok ? p.value.epochMs : undefined;
}

function money(v: unknown): Money | null {
  if (v === undefined) return null;
  const m = parseSchcpMoney(v, "");
  return m.ok ? m.value : null;
}

/** The action a stored 2xx body stands for; undefined when it cannot be read (then scope only). */
function actionOf(kind: MandateActionKind, body: string): MandateAction | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObj(value)) return undefined;
  if (isObj(value.booking)) {
    const b = value.booking;
    return slotAction(kind, b, str(b.service_id), money(b.total), str(b.booking_id), str(b.offer_sha256));
  }
  if (isObj(value.proposal)) {
    const p = value.proposal;
    const offer = str(p.offer);
    const claims = offer === undefined ? undefined : decodeCompactJws(offer, "offer");
    if (offer === undefined || claims?.ok !== true) return undefined;
    const c = claims.value.payload;
    const service = isObj(c.service) ? str(c.service.id) : undefined;
    return slotAction(kind, p, service, money(c.total), str(c.booking_id), offerSha256(offer));
  }
  if (typeof value.hold_id === "string") {
    const offer = str(value.offer);
    return slotAction(
      kind,
      value,
      str(value.service_id),
      money(value.total),
      undefined,
      offer && offerSha256(offer),
    );
  }
  return undefined;
}

function slotAction(
  kind: MandateActionKind,
  slot: Json,
  serviceId: string | undefined,
  total: Money | null,
  bookingId: string | undefined,
  hash: string | undefined,
): MandateAction | undefined {
  const start = instant(slot.start);
  if (serviceId === undefined || start === undefined) return undefined;
  const end = instant(slot.end);
  return {
    kind,
    serviceId,
    start,
    ...(end !== undefined ? { end } : { openEnded: true }),
    total,
    ...(bookingId !== undefined && { bookingId }),
    ...(hash !== undefined && { offerSha256: hash }),
  };
}
