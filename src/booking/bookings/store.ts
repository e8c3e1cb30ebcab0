/**
 * Reading and writing a booking's state in the hold store, without losing a concurrent update.
 *
 * Every write is a compare-and-set on the payload it read (updateBookingPayload with
 * ifPayload): the change is a pure function of the state, so when another process wrote in
 * between ("stale") it is simply applied again to the fresh state, a few times at most. Side
 * effects (upstream calls, freeing time) happen before, once; the change re-checks its
 * preconditions against whatever state it is given.
 */
import type { BookingDeps, BookingRefusal, HostRuntime } from "../api.js";
import type { BookingRecord, HoldStore } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { notFound } from "./refuse.js";
import { withEdgeRecords } from "./edges.js";
import { bookingIndexEntry } from "./index-entry.js";
import { decodeOrThrow, encodeBookingState } from "./state.js";
import type { BookingState } from "./state.js";

export interface LoadedBooking {
  readonly record: BookingRecord;
  readonly state: BookingState;
  /** The exact payload read: the compare-and-set's expected value. */
  readonly payload: string;
}

export async function loadBooking(
  store: HoldStore,
  hostId: string,
  bookingId: string,
): Promise<LoadedBooking | undefined> {
  const record = await store.getBooking(hostId, bookingId);
  if (record === undefined) return undefined;
  return { record, state: decodeOrThrow(record.payload, bookingId), payload: record.payload };
}

/** The host in the path and its booking, or NOT_FOUND naming which is missing. */
export async function hostBooking(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
): Promise<Result<{ host: HostRuntime; loaded: LoadedBooking }, BookingRefusal>> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const loaded = await loadBooking(deps.store, hostId, bookingId);
  if (loaded === undefined) return err(notFound("booking"));
  return ok({ host, loaded });
}

/** What a change answers: the next state, or the same object to write nothing, or a refusal. */
export type BookingChange = (state: BookingState) => Result<BookingState, BookingRefusal>;

const MAX_ATTEMPTS = 5;

/**
 * Applies `change` to the stored state, stamps `updatedAt`, brings each edge's record up to
 * date (SchCP signs a fresh receipt) and writes it with a compare-and-set, retrying on a
 * concurrent write. Returns the state as written.
 */
export async function saveBooking(
  deps: Pick<BookingDeps, "store" | "edges">,
  host: HostRuntime,
  bookingId: string,
  change: BookingChange,
  now: number,
): Promise<Result<BookingState, BookingRefusal>> {
  const hostId = host.config.id;
  const store = deps.store;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const loaded = await loadBooking(store, hostId, bookingId);
    if (loaded === undefined) return err(notFound("booking"));
    const next = change(loaded.state);
    if (!next.ok) return next;
    if (next.value === loaded.state) return ok(loaded.state);
    const signed = await withEdgeRecords(deps, host, { ...next.value, updatedAt: now }, now);
    const written = await store.updateBookingPayload(
      hostId,
      bookingId,
      encodeBookingState(signed),
      loaded.payload,
      bookingIndexEntry(signed),
    );
    if (written.ok) return ok(signed);
    if (written.error.reason === "not_found") return err(notFound("booking"));
    if (written.error.reason !== "stale")
      throw new Error(`booking ${bookingId}: update refused (${written.error.reason})`);
  }
  throw new Error(`booking ${bookingId}: ${MAX_ATTEMPTS} concurrent updates in a row; giving up`);
}
