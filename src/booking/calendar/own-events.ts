/**
 * The gateway's own events on a calendar host: a booking is written as an event
 * in the host's calendar — TENTATIVE while the host decides, CONFIRMED once approved,
 * CANCELLED (and transparent) when declined, lapsed or cancelled — and every later transition
 * rewrites it.
 *
 * - The event id derives from the booking's upstream idempotency key, so a create retried
 *   after a lost answer names the same event and the calendar answers it as stored.
 * - The first write (the confirm's create) must land: a booking is not made on a calendar
 *   the gateway could not write to. Later rewrites are write-behind: the desired state is
 *   stored first, the write is tried at once, and one that fails is retried by a job until it
 *   lands (`retryOwnEvents`), so a lapsed booking never lingers as busy time and an approval
 *   never fails because a calendar was briefly down.
 * - A rewrite carries the version last written (If-Match) and changes only what the booking
 *   owns: its times, status and transparency. If someone else edited the event since (a
 *   receptionist's location, a note, a reminder), the connector reads the event as it now stands
 *   and makes the booking's change on that version, keeping every edit (ports/event-writer.ts);
 *   a rewrite that still meets a changing event is left to the retry job.
 */
import { createHash } from "node:crypto";
import type {
  ConnectorError,
  EventWriteErrorCode,
  EventWriter,
  UpstreamMeta,
} from "../../connectors/port.js";
import type { CalendarStateStore, OwnEvent } from "./state.js";
import type { Clock } from "../../protocol/clock.js";
import type { Err, Ok } from "../../protocol/result.js";

export interface OwnEventDeps {
  readonly events: EventWriter;
  readonly state: CalendarStateStore;
  readonly clock: Clock;
  readonly hostId: string;
  readonly zone: string;
  readonly writeCalendarId: string;
}

/** 26 characters of base32hex (0-9, a-v): a valid Google event id, CalDAV file name and Graph transactionId. */
export function ownEventId(idempotencyKey: string): string {
  const digest = createHash("sha256").update(`booking-gateway:${idempotencyKey}`).digest();
  const alphabet = "0123456789abcdefghijklmnopqrstuv";
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `bg${out}`;
}

/** A write that did not land: why, and the event as recorded for the retry. */
interface WriteFailure {
  readonly cause: ConnectorError<EventWriteErrorCode>;
  readonly event: OwnEvent;
}

/** The event as it landed, or the failure; with the call's metadata either way. */
export type WriteOutcome = (Ok<OwnEvent> | Err<WriteFailure>) & { readonly upstream?: UpstreamMeta };

const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = 15 * 60_000;

/** Writes an own event to the state it should have; records what landed or when to retry. */
export async function writeOwnEvent(deps: OwnEventDeps, event: OwnEvent): Promise<WriteOutcome> {
  const body = {
    calendarId: event.calendarId,
    eventId: event.eventId,
    ...(event.upstreamEventId !== undefined && { upstreamEventId: event.upstreamEventId }),
    start: event.start,
    end: event.end,
    zone: deps.zone,
    summary: event.summary,
    ...(event.description !== undefined && { description: event.description }),
    status: event.status,
    transparency: event.status === "cancelled" ? ("transparent" as const) : ("opaque" as const),
  };
  const answer =
    event.etag === undefined ? await deps.events.create(body) : await deps.events.update(body, event.etag);
  if (answer.ok) {
    const landed: OwnEvent = {
      ...event,
      etag: answer.value.etag,
      written: event.status,
      attempts: 0,
      ...(answer.value.upstreamEventId !== undefined && { upstreamEventId: answer.value.upstreamEventId }),
    };
    const { retryAt: _r, lastError: _e, ...clean } = landed;
    await deps.state.putOwn(deps.hostId, clean);
    return { ok: true, value: clean, ...(answer.upstream !== undefined && { upstream: answer.upstream }) };
  }
  const attempts = event.attempts + 1;
  const failed: OwnEvent = {
    ...event,
    attempts,
    retryAt: deps.clock.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempts - 1)),
    lastError: `${answer.error.code}: ${answer.error.message}`,
  };
  await deps.state.putOwn(deps.hostId, failed);
  return {
    ok: false,
    error: { cause: answer.error, event: failed },
    ...(answer.upstream !== undefined && { upstream: answer.upstream }),
  };
}

export interface RetryReport {
  readonly tried: number;
  readonly landed: number;
  /** Own events still behind after this run, with their last error. */
  readonly pending: ReadonlyArray<{
    readonly eventId: string;
    readonly attempts: number;
    readonly lastError?: string;
  }>;
}

/** The retry job: rewrites every own event whose calendar copy lags and whose time has come. */
export async function retryOwnEvents(deps: OwnEventDeps): Promise<RetryReport> {
  const now = deps.clock.now();
  const due = (await deps.state.pendingOwn(deps.hostId)).filter((e) => (e.retryAt ?? 0) <= now);
  let landed = 0;
  const pending: Array<{ eventId: string; attempts: number; lastError?: string }> = [];
  for (const e of due) {
    const out = await writeOwnEvent(deps, e);
    if (out.ok) landed++;
    else
      pending.push({
        eventId: e.eventId,
        attempts: out.error.event.attempts,
        ...(out.error.event.lastError !== undefined && { lastError: out.error.event.lastError }),
      });
  }
  return { tried: due.length, landed, pending };
}
