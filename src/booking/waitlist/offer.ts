/**
 * A freed slot goes to the waitlist first (SchCP §5.9). offerFreedTime is the one function every
 * path that frees time early calls instead of releasing it itself: a guest's cancel, a lapsed
 * approval, a participant's decline, a host's cancel or decline when the host says the time is
 * still good (bookings/cancel.ts endBooking), a reschedule away (changes/apply-move.ts), and an
 * offer that lapsed or whose entry left (sweep.ts, leave.ts).
 *
 * Before the step, each waiting entry the time suits (the whole appointment inside its window,
 * its mandate still valid and covering it) gets its offer prepared by the one hold engine
 * (holds/create-hold.ts prepareHold: the rules, the price, the kept grant, offer_ttl scaled down
 * by reputation (none for a suspended agent or principal: passed over), the contract, each edge's
 * record: SchCP signs the offer). Then ONE store step (HoldStore.offerFreed) frees the time and
 * places the first candidate still waiting whose hold passes every hold control (§7.2) on a
 * resource that came free; nobody else sees the time in between. A freed time is offered at most
 * three times; after that it is public. An offer that lapses keeps its time occupied for everyone
 * (the stores' OfferCandidate.line) until the line step (sweep.ts, leave in read.ts) calls this
 * with it as the release, so the time never looks free between the lapse and the next offer.
 */
import type { BookingRecord, HoldRecord, PlaceHoldRequest } from "../../holds/port.js";
import type { FreedRelease, OfferCandidate, WaitlistRecord } from "../../holds/waitlist-port.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { BookingDeps, HoldPayload, HostRuntime } from "../api.js";
import { decodeHoldOrThrow } from "../holds/payload.js";
import { prepareHold } from "../holds/create-hold.js";
import { findService } from "../holds/lookup.js";
import { decodeEntryPayload, entryView, keptAuthority, type WaitlistEntryView } from "./entry.js";

/** §5.9 "A freed time is offered at most three times". */
const MAX_OFFERS_PER_FREED_TIME = 3;
/** Entries whose offer is prepared for one freed time: the first few the time suits. */
const MAX_CANDIDATES = 5;
/** Waiting entries read to find them. */
const LINE_READ = 100;

/** What was freed and the time it had: the appointment's start, and which offer this would be. */
export interface FreedAt {
  /** Epoch ms: the freed appointment's start (an offered hold's, for a lapse). */
  readonly start: number;
  /** Offers of this time already made (0 for a booking that ends; a lapsed offer's round). */
  readonly offersMade?: number;
}

export interface FreedTimeResult {
  readonly booking?: BookingRecord;
  readonly hold?: HoldRecord;
  /** The entry the time was offered to, and its hold. */
  readonly offered?: { readonly entry: WaitlistEntryView; readonly hold: HoldRecord };
}

/**
 * Frees the time (`release`) and, at a host with a waitlist, offers it in the same atomic step
 * to the first waiting entry it suits (§5.9). Without a waitlist it is the store's ordinary
 * release (releaseBooking, moveBookingToHold, releaseHold). The release's refusal is returned
 * as the store gave it (a move whose hold lapsed, a booking not found).
 */
export async function offerFreedTime(
  deps: BookingDeps,
  host: HostRuntime,
  release: FreedRelease,
  at: FreedAt,
  now: number,
): Promise<Result<FreedTimeResult, { readonly reason: string }>> {
  const hostId = host.config.id;
  const waitlist = host.config.policies.waitlist;
  const round = (at.offersMade ?? 0) + 1;
  if (waitlist === undefined && release.kind !== "offer") return plainRelease(deps, hostId, release, now);

  const candidates =
    waitlist === undefined || round > MAX_OFFERS_PER_FREED_TIME
      ? []
      : await prepareCandidates(deps, host, release, at.start, round, waitlist.offerTtlMs, now);
  const outcome = await deps.store.offerFreed({ hostId, now, release, candidates });
  if (!outcome.released.ok) return err(outcome.released.error);
  const value = outcome.released.value;
  if (outcome.offered === undefined) return ok(value);
  const record = await deps.store.getWaitlistEntry(hostId, outcome.offered.entryId);
  if (record === undefined) return ok(value);
  const entry = entryView(record);
  await tellOffered(deps, host, record, outcome.offered.hold, now);
  return ok({ ...value, offered: { entry, hold: outcome.offered.hold } });
}

async function plainRelease(
  deps: BookingDeps,
  hostId: string,
  release: Exclude<FreedRelease, { kind: "offer" }>,
  now: number,
): Promise<Result<FreedTimeResult, { readonly reason: string }>> {
  const done =
    release.kind === "booking"
      ? await deps.store.releaseBooking(hostId, release.bookingId, now)
      : await deps.store.moveBookingToHold(hostId, release.bookingId, release.holdId, now);
  return done.ok ? ok({ booking: done.value }) : err({ reason: done.error.reason });
}

/** The resources the release will free, read before the step (their offers are tried on them first). */
async function freedResources(deps: BookingDeps, hostId: string, release: FreedRelease, now: number) {
  if (release.kind === "offer") {
    return (
      (await deps.store.getHold(hostId, release.holdId, now))?.allocations.map((a) => a.resourceId) ?? []
    );
  }
  return (await deps.store.getBooking(hostId, release.bookingId))?.allocations.map((a) => a.resourceId) ?? [];
}

async function prepareCandidates(
  deps: BookingDeps,
  host: HostRuntime,
  release: FreedRelease,
  start: number,
  round: number,
  offerTtlMs: number,
  now: number,
): Promise<OfferCandidate[]> {
  const hostId = host.config.id;
  const line = await deps.store.waitingEntries(hostId, LINE_READ);
  if (line.length === 0) return [];
  const freed = new Set(await freedResources(deps, hostId, release, now));
  const out: OfferCandidate[] = [];
  for (const entry of line) {
    if (out.length >= MAX_CANDIDATES) break;
    if (entry.until <= now || !suits(host, entry, start)) continue;
    const hold = await prepareOffer(deps, host, entry, start, round, offerTtlMs, now);
    // §5.9 "a lapse moves down the line ... after the third lapse it is public": a lapse of any
    // offer but the last keeps the time occupied until the line step moves it (sweep.ts), so it
    // is never free in between; the last one's lapse frees it at once.
    if (hold !== undefined)
      out.push({
        entryId: entry.entryId,
        hold: preferFreed(hold, freed),
        line: round < MAX_OFFERS_PER_FREED_TIME,
      });
  }
  return out;
}

/** §5.9: the whole appointment (for an open-ended service, its start) inside the entry's window. */
function suits(host: HostRuntime, entry: WaitlistRecord, start: number): boolean {
  const found = findService(host, entry.serviceId);
  if (!found.ok) return false;
  const d = found.value.service.duration;
  if (start < entry.window.start) return false;
  return d === "open" ? start < entry.window.end : start + d <= entry.window.end;
}

/** The entry's offer priced, checked against its kept grant and signed; undefined: passed over. */
async function prepareOffer(
  deps: BookingDeps,
  host: HostRuntime,
  entry: WaitlistRecord,
  start: number,
  round: number,
  offerTtlMs: number,
  now: number,
): Promise<PlaceHoldRequest | undefined> {
  const p = decodeEntryPayload(entry.payload);
  const prepared = await prepareHold(
    deps,
    host,
    {
      caller: {
        agentKey: entry.agentKey,
        authority: keptAuthority(entry, p.grant, now),
        ...(p.attester !== undefined && { attester: p.attester }),
      },
      serviceId: entry.serviceId,
      start,
      ttlMs: offerTtlMs,
      partySize: p.partySize,
      ...(p.place !== undefined && { place: p.place }),
      ...(p.callbackUrl !== undefined && { callbackUrl: p.callbackUrl }),
      kind: "booking",
      edges: p.edges,
      waitlist: { entryId: entry.entryId, round },
    },
    now,
  );
  if (!prepared.ok) return undefined;
  const { alternatives: _none, ...request } = prepared.value.request;
  return request;
}

/** Each requirement tries the freed resources first, so the offer takes the time that came free. */
function preferFreed(request: PlaceHoldRequest, freed: ReadonlySet<string>): PlaceHoldRequest {
  if (freed.size === 0) return request;
  return {
    ...request,
    requirements: request.requirements.map((r) => ({
      ...r,
      candidates: [
        ...r.candidates.filter((c) => freed.has(c.id)),
        ...r.candidates.filter((c) => !freed.has(c.id)),
      ],
    })),
  };
}

/** The edges of the entry send waitlist.offered (SchCP §5.8) with the hold and the entry. */
async function tellOffered(
  deps: BookingDeps,
  host: HostRuntime,
  record: WaitlistRecord,
  hold: HoldRecord,
  now: number,
): Promise<void> {
  const p = decodeEntryPayload(record.payload);
  const payload: HoldPayload = decodeHoldOrThrow(hold.payload, hold.holdId);
  for (const name of p.edges) {
    const edge = deps.edges?.[name];
    if (edge?.waitlistOffered !== undefined)
      await edge.waitlistOffered(deps, host, { entry: entryView(record), hold, payload }, now);
  }
}
