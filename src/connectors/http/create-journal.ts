/**
 * Idempotent creates for a platform whose create is not idempotent (Openings, Servicialo):
 * one create in flight per key (concurrent callers share its answer) and, once answered, the
 * same key answers the same booking without a second call. Kept in process memory: the
 * connector never writes the gateway's stores, so after a restart, or in another process, a
 * key is known again only through what the platform itself can be asked, with the attempt the
 * caller hands back (BookingPort.findByIdempotencyKey; see each connector's README).
 *
 * A key whose create was sent but whose answer was lost is "unresolved": the platform may or
 * may not have booked. The connector must not send it again blindly; it asks the platform what
 * it can, and otherwise refuses (never a second booking).
 *
 * Answers from memory carry metadata (docs/ARCHITECTURE.md, Upstream requests: "each result carries its own upstream
 * metadata"): that of the call which produced them — the create that made the booking (or the
 * lookup that recognised it), the move or cancel that last changed it, the create the platform
 * refused — marked `replay: true`, because no request was sent for them now (`replayed`).
 */
import type { UpstreamBooking } from "../ports/bookings.js";
import type { UpstreamMeta } from "../ports/result.js";

/** A key whose create was sent and not answered: what it asked, and when. */
export interface UnresolvedAttempt<B> {
  /** What the create asked for, so a lookup can recognise the booking. */
  readonly request: B;
  readonly sentAt: number;
}

/**
 * A booking the journal knows, with the metadata of the call that last told us about it (the
 * create, the lookup that recognised it, or the move or cancel that last changed it).
 */
export interface KnownBooking {
  readonly booking: UpstreamBooking;
  readonly upstream?: UpstreamMeta;
}

/** The metadata of an earlier call, answered again from memory. */
export const replayed = (meta: UpstreamMeta | undefined): UpstreamMeta | undefined =>
  meta === undefined ? undefined : { ...meta, replay: true };

export class CreateJournal<Req, Booking> {
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly answered = new Map<string, Booking>();
  private readonly unresolved = new Map<string, UnresolvedAttempt<Req>>();
  /** Keys the platform refused (it answered: nothing was booked), with the refusing call. */
  private readonly refused = new Map<string, UpstreamMeta | undefined>();

  constructor(private readonly limit = 10_000) {}

  booked(key: string): Booking | undefined {
    return this.answered.get(key);
  }

  unresolvedAttempt(key: string): UnresolvedAttempt<Req> | undefined {
    return this.unresolved.get(key);
  }

  /** The platform refused this key's create: `{ upstream }` of the refusing call; else undefined. */
  refusal(key: string): { readonly upstream?: UpstreamMeta } | undefined {
    if (!this.refused.has(key)) return undefined;
    const upstream = this.refused.get(key);
    return upstream === undefined ? {} : { upstream };
  }

  /** Runs `create` unless one for the key is already running; callers share its promise. */
  single<T>(key: string, create: () => Promise<T>): Promise<T> {
    const running = this.inflight.get(key);
    if (running !== undefined) return running as Promise<T>;
    const promise = create().finally(() => this.inflight.delete(key));
    this.inflight.set(key, promise);
    return promise;
  }

  markSent(key: string, request: Req, now: number): void {
    this.refused.delete(key);
    this.unresolved.set(key, { request, sentAt: now });
    this.trim(this.unresolved);
  }

  markBooked(key: string, booking: Booking): void {
    this.unresolved.delete(key);
    this.refused.delete(key);
    this.answered.set(key, booking);
    this.trim(this.answered);
  }

  /**
   * Nothing was booked under the key: the platform refused the create (`upstream`: that
   * answer), or the platform showed the attempted time still free after a lost answer.
   */
  markRefused(key: string, upstream?: UpstreamMeta): void {
    this.unresolved.delete(key);
    this.refused.set(key, upstream);
    this.trim(this.refused);
  }

  /** Updates a booking already known (a move or cancel answered by the platform). */
  update(match: (b: Booking) => boolean, next: (b: Booking) => Booking): void {
    for (const [key, b] of this.answered) if (match(b)) this.answered.set(key, next(b));
  }

  find(match: (b: Booking) => boolean): Booking | undefined {
    for (const b of this.answered.values()) if (match(b)) return b;
    return undefined;
  }

  private trim(map: Map<string, unknown>): void {
    // Maps iterate in insertion order: the oldest entries go first.
    while (map.size > this.limit) {
      const oldest = map.keys().next().value;
      if (oldest === undefined) return;
      map.delete(oldest);
    }
  }
}
