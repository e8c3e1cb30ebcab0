/**
 * Joining a host's waitlist (SchCP §5.9), checked in the spec's order: the host keeps one,
 * the service, the window (at most 31 days; for a fixed-length service at least as long as the
 * service: window_too_short), access (§7.8 contacts-only), a mandate, a place checked as a
 * hold's (§5.2), the grant (the caller's Authority: scope hold, the window inside its window,
 * the all-in total within max_price), holds not suspended for agent or principal (§7.3); then
 * the store admits the entry under max_entries_per_agent (429 HOLD_LIMIT waitlist_limit) and
 * each mandate link's max_bookings in one atomic step.
 */
import { err, ok } from "../../protocol/result.js";
import type { BookingDeps, Caller, HostRuntime, UseCase } from "../api.js";
import { principalOf } from "../authority.js";
import type { Place } from "../contract.js";
import { findService } from "../holds/lookup.js";
import { grantTtl } from "../holds/ttl.js";
import { priceOffer } from "../pricing/index.js";
import { hostAccess } from "../hosts/contacts.js";
import { bookingRefusal, checkPlace, withContactRemedy } from "../rules/index.js";
import { encodeEntryPayload, entryView, type WaitlistEntryView } from "./entry.js";

/** §5.9: "The window is at most 31 days". */
const MAX_WAITLIST_WINDOW_MS = 31 * 86_400_000;

export interface JoinWaitlistParams {
  readonly caller: Caller;
  readonly serviceId: string;
  /** Epoch ms, half-open. */
  readonly window: { readonly start: number; readonly end: number };
  readonly callbackUrl?: string;
  readonly partySize?: number;
  readonly place?: Place;
  /** Edges that keep a record with the entry's holds ("schcp" signs the offer). */
  readonly edges: readonly string[];
  readonly entryId?: string;
}

export async function joinWaitlist(
  deps: BookingDeps,
  host: HostRuntime,
  params: JoinWaitlistParams,
): UseCase<WaitlistEntryView> {
  const joined = await join(deps, host, params);
  return joined.ok ? joined : err(withContactRemedy(joined.error, host.config));
}

async function join(
  deps: BookingDeps,
  host: HostRuntime,
  params: JoinWaitlistParams,
): UseCase<WaitlistEntryView> {
  const now = deps.clock.now();
  const { policies } = host.config;
  const waitlist = policies.waitlist;
  if (waitlist === undefined)
    return err(
      bookingRefusal("unsupported", {
        message: "this host keeps no waitlist",
        basis: { policy: "waitlist" },
      }),
    );
  const found = findService(host, params.serviceId);
  if (!found.ok) return found;
  const { service, rules } = found.value;
  const { start, end } = params.window;
  const invalid = (reason: "invalid_request" | "window_too_short", message: string) =>
    err(bookingRefusal("invalid_request", { reason, message, details: { field: "window" } }));
  if (!(end > start)) return invalid("invalid_request", "the window must end after it starts");
  if (end - start > MAX_WAITLIST_WINDOW_MS)
    return invalid("invalid_request", "the window is at most 31 days");
  if (service.duration !== "open" && end - start < service.duration)
    return invalid(
      "window_too_short",
      "the window is shorter than the service, so nothing could ever be offered",
    );
  if (end <= now) return invalid("invalid_request", "the window has passed");

  const principal = principalOf(params.caller);
  const access = await hostAccess(deps.contacts, host.config, principal);
  if (access !== undefined) return err(access);
  const authority = params.caller.authority;
  if (authority === undefined || principal === null)
    return err(
      // No grant at all (SchCP words it 401 MANDATE_INVALID mandate_invalid, §3.3).
      bookingRefusal("authority_required", {
        message: "joining a waitlist needs a mandate that could hold a slot in the window",
        basis: { policy: "holds.requires_mandate" },
      }),
    );
  const where = checkPlace(rules?.location, params.place, policies.serviceArea);
  if (!where.ok) return where;
  const partySize = params.partySize ?? 1;

  // §5.9 "a mandate that could hold any slot in the window": scope hold, the whole window inside
  // the mandate's, and the all-in total (at the window's start) within max_price.
  const priced = priceOffer(
    service,
    rules,
    { timezone: host.config.timezone, taxes: host.catalog.taxes },
    { start, partySize, now },
  );
  const allowed = await authority.permits({
    action: "hold",
    serviceId: service.id,
    start,
    ...(service.duration !== "open" && { end }),
    total: priced.total,
  });
  if (!allowed.ok) return allowed;

  // §5.9 "from an agent and principal whose holds are not suspended (§7.3)".
  const subjects = { agentKey: params.caller.agentKey, principal };
  const granted = await grantTtl(deps.store, subjects, waitlist.offerTtlMs, waitlist.offerTtlMs, now);
  if (!granted.ok) return granted;

  const grant = authority.keep?.() ?? {};
  const until = Math.min(end, grant.expiresAt ?? Number.POSITIVE_INFINITY);
  const entryId = params.entryId ?? deps.ids.next("w_");
  const joined = await deps.store.joinWaitlist({
    hostId: host.config.id,
    entryId,
    serviceId: service.id,
    agentKey: params.caller.agentKey,
    principal,
    window: { start, end },
    until,
    mandates: authority.holdLimits ?? [],
    maxPerAgent: waitlist.maxEntriesPerAgent,
    now,
    payload: encodeEntryPayload({
      v: 1,
      partySize,
      ...(where.value !== undefined && { place: where.value }),
      ...(params.callbackUrl !== undefined && { callbackUrl: params.callbackUrl }),
      edges: params.edges,
      grant,
      ...(params.caller.attester !== undefined && { attester: params.caller.attester }),
    }),
  });
  if (!joined.ok) {
    const e = joined.error;
    if (e.reason === "entry_id_in_use") throw new Error("waitlist entry id collision");
    return err(
      e.reason === "waitlist_limit"
        ? bookingRefusal("hold_limit", {
            reason: "waitlist_limit",
            message: "this agent has as many waitlist entries here as the host allows",
            basis: {
              policy: "waitlist.max_entries_per_agent",
              limit: e.limit ?? waitlist.maxEntriesPerAgent,
            },
          })
        : bookingRefusal("hold_limit", {
            reason: "mandate_limit",
            message: "the mandate's bookings are all in use by holds, bookings and waitlist entries",
            basis: { policy: "mandate.max_bookings", limit: e.limit ?? 0 },
          }),
    );
  }
  const position = (await deps.store.waitingEntries(host.config.id, 10_000)).findIndex(
    (x) => x.entryId === entryId,
  );
  return ok(entryView(joined.value, position >= 0 ? position + 1 : undefined));
}
