/**
 * Alternatives to a slot that cannot be held (SchCP §5.2: "409 SLOT_UNAVAILABLE (reason
 * slot_taken), with up to five alternatives (nearest available slots)"). Candidate starts lie
 * on a grid around the requested start (src/holds/alternatives.ts), inside the booking window,
 * the horizon and the caller's grant (a mandate's window), so every alternative could itself be held; the store
 * tests them in the same atomic step as the refused hold.
 */
import { alternativeStarts } from "../../holds/alternatives.js";
import type { Money } from "../../protocol/money/index.js";
import type { HostRuntime } from "../api.js";
import type { HoldAlternative } from "../errors.js";
import type { Authority } from "../authority.js";
import { priceOffer } from "../pricing/index.js";
import { checkWhen, zoneView, type ZoneView } from "../rules/index.js";
import type { ServiceLookup } from "./lookup.js";

/** The grid alternatives are sought on: a quarter hour, the usual booking step. */
const ALTERNATIVE_STEP_MS = 15 * 60_000;

export function alternativeStartsFor(
  runtime: HostRuntime,
  found: ServiceLookup,
  start: number,
  now: number,
  authority: Authority | undefined,
  view?: ZoneView,
): number[] {
  const { rules, service } = found;
  const policies = runtime.config.policies;
  let notAfter = now + policies.horizonMs - 1;
  if (rules?.maxAdvanceMs !== undefined && rules.opens === undefined) {
    notAfter = Math.min(notAfter, now + rules.maxAdvanceMs);
  }
  const notBefore = now + (rules?.minNoticeMs ?? 0);
  const length = service.duration === "open" ? undefined : service.duration;
  return alternativeStarts(start, { stepMs: ALTERNATIVE_STEP_MS, anchor: start, notBefore, notAfter }).filter(
    (s) =>
      checkWhen(rules, policies, view ?? runtime.config.timezone, s, now) === undefined &&
      (authority?.covers?.(s, length === undefined ? undefined : s + length) ?? true),
  );
}

/**
 * A start as a hold alternative in the core's terms (SchCP words it as a §5.2 Slot), priced at
 * that time: at the upstream's stated total there when it states one (pricing/price-offer.ts).
 * An availability slot (§5.1) is the SchCP edge's own (../schcp/slot.ts).
 */
export function alternativeAt(
  runtime: HostRuntime,
  found: ServiceLookup,
  start: number,
  partySize: number,
  now: number,
  view: ZoneView = zoneView(runtime.config.timezone),
  stated?: Money,
): HoldAlternative {
  const { service, rules } = found;
  const priced = priceOffer(
    service,
    rules,
    { timezone: runtime.config.timezone, taxes: runtime.catalog.taxes, view },
    { start, partySize, now, ...(stated !== undefined && { stated }) },
  );
  return service.duration === "open"
    ? { start, price: priced.price, total: priced.total }
    : { start, end: start + service.duration, price: priced.price, total: priced.total };
}
