/**
 * POST /waitlist, GET and DELETE /waitlist/{id} (SchCP §5.9) over the core's waitlist
 * (src/booking/waitlist), and the waitlist.offered webhook (§5.8) the SchCP edge sends when the
 * core places an offer for an entry it keeps. The entry on the wire is the closed WaitlistEntry,
 * here and in the webhook; the offered hold is the closed Hold with the offer this edge signed.
 *
 * The mandate binds each action (§3.3): joining is checked by the core through the chain's
 * Authority (scope hold, window, max_price, max_bookings); reading is checked against the
 * mandate's constraints, and leaving needs scope hold, as releasing a hold does (§5.9).
 */
import type { BookingDeps, BookingEdge, HostRuntime, UseCase } from "../../booking/api.js";
import { bookingRefusal, notFound, withContactRemedy } from "../../booking/rules/index.js";
import {
  joinWaitlist as coreJoin,
  leaveWaitlist as coreLeave,
  readWaitlistEntry as coreRead,
  type WaitlistEntryView,
} from "../../booking/waitlist/index.js";
import { sha256, encodeBase64Url } from "../../protocol/json/base64.js";
import { err, ok } from "../../protocol/result.js";
import type { WaitlistEntry, WaitlistRequest, WebhookEvent } from "../../protocol/schcp/types.js";
import { validateSchcp } from "../../protocol/schcp/validate.js";
import { formatInstant, parseInstant } from "../../protocol/time/index.js";
import { SCHCP, schcpHold } from "./attachment.js";
import { coreCaller, type SchcpCaller } from "./caller.js";
import { checkAction } from "./mandate-authority.js";

/** The closed WaitlistEntry (§5.9), times at the host's offset. */
function wireEntry(entry: WaitlistEntryView, timeZone: string): WaitlistEntry {
  return {
    waitlist_id: entry.entryId,
    status: entry.status,
    service_id: entry.serviceId,
    window: {
      start: formatInstant(entry.window.start, timeZone),
      end: formatInstant(entry.window.end, timeZone),
    },
    ...(entry.position !== undefined && entry.status === "waiting" && { position: entry.position }),
    created_at: formatInstant(entry.createdAt),
    ...(entry.partySize !== 1 && { party_size: entry.partySize }),
    ...(entry.place !== undefined && { place: entry.place }),
    ...(entry.holdId !== undefined && { hold_id: entry.holdId }),
  };
}

export async function joinWaitlist(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  body: WaitlistRequest,
): UseCase<WaitlistEntry> {
  const runtime = deps.hosts.get(hostId);
  if (runtime === undefined) return err(notFound(`host ${hostId}`));
  const invalid = (field: string, message: string) =>
    err(
      withContactRemedy(bookingRefusal("invalid_request", { message, details: { field } }), runtime.config),
    );
  const start = parseInstant(body.window.start, "/window/start");
  if (!start.ok) return invalid("/window/start", start.error.message);
  const end = parseInstant(body.window.end, "/window/end");
  if (!end.ok) return invalid("/window/end", end.error.message);
  const joined = await coreJoin(deps, runtime, {
    caller: coreCaller(deps.store, hostId, caller),
    serviceId: body.service_id,
    window: { start: start.value.epochMs, end: end.value.epochMs },
    ...(body.callback_url !== undefined && { callbackUrl: body.callback_url }),
    partySize: body.party_size ?? 1,
    ...(body.place !== undefined && { place: body.place }),
    edges: [SCHCP],
  });
  return joined.ok ? ok(wireEntry(joined.value, runtime.config.timezone)) : joined;
}

/** The mandate's own check of the entry (§5.9): read within its constraints; leave with scope hold. */
async function mandateAllows(
  deps: BookingDeps,
  runtime: HostRuntime,
  caller: SchcpCaller,
  entry: WaitlistEntryView,
  kind: "read" | "release",
): UseCase<void> {
  const chain = caller.mandate;
  if (chain === undefined) return ok(undefined);
  return checkAction(deps.store, runtime.config.id, chain, {
    kind,
    serviceId: entry.serviceId,
    start: entry.window.start,
    end: entry.window.end,
    total: null,
  });
}

export async function getWaitlistEntry(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  entryId: string,
): UseCase<WaitlistEntry> {
  const found = await entryFor(deps, hostId, caller, entryId, "read");
  if (!found.ok) return found;
  return ok(wireEntry(found.value.entry, found.value.runtime.config.timezone));
}

export async function leaveWaitlist(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  entryId: string,
): UseCase<WaitlistEntry> {
  // §5.9 "leaving one needs scope hold, as releasing a hold does".
  const found = await entryFor(deps, hostId, caller, entryId, "release");
  if (!found.ok) return found;
  const { runtime, core } = found.value;
  const left = await coreLeave(deps, runtime, core, entryId);
  return left.ok
    ? ok(wireEntry(left.value, runtime.config.timezone))
    : err(withContactRemedy(left.error, runtime.config));
}

/** The entry as the core reads it for this caller, once the mandate allows `action` on it (§5.9). */
async function entryFor(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  entryId: string,
  action: "read" | "release",
) {
  const runtime = deps.hosts.get(hostId);
  if (runtime === undefined) return err(notFound(`host ${hostId}`));
  const core = coreCaller(deps.store, hostId, caller);
  const read = await coreRead(deps, runtime, core, entryId);
  if (!read.ok) return err(withContactRemedy(read.error, runtime.config));
  const allowed = await mandateAllows(deps, runtime, caller, read.value, action);
  if (!allowed.ok) return err(withContactRemedy(allowed.error, runtime.config));
  return ok({ runtime, core, entry: read.value });
}

/** One id per offer (host, entry, hold), so queuing it twice is still one delivery. */
function offeredEventId(hostId: string, entryId: string, holdId: string): string {
  return `e_${encodeBase64Url(sha256(`waitlist.offered\n${hostId}\n${entryId}\n${holdId}`)).slice(0, 26)}`;
}

/** §5.9 "sends waitlist.offered with the hold and the entry" to the entry's callback_url. */
export const waitlistOffered: NonNullable<BookingEdge["waitlistOffered"]> = async (
  deps,
  host,
  offered,
  now,
) => {
  const callbackUrl = offered.entry.callbackUrl;
  const signed = schcpHold(offered.payload.attachments);
  if (callbackUrl === undefined || signed === undefined) return;
  const event = {
    event_id: offeredEventId(host.config.id, offered.entry.entryId, offered.hold.holdId),
    type: "waitlist.offered",
    host_id: host.config.id,
    occurred_at: formatInstant(now),
    hold: signed.hold,
    waitlist: wireEntry(offered.entry, host.config.timezone),
  };
  const valid = validateSchcp("WebhookEvent", event);
  if (!valid.ok) throw new Error(`waitlist.offered fails the WebhookEvent schema: ${valid.error.message}`);
  const checked: WebhookEvent = valid.value;
  await deps.outbox.enqueue({ hostId: host.config.id, callbackUrl, event: { ...checked } });
};
