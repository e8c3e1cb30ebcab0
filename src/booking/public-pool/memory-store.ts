/** The public booking pool in process memory: the twin of redis-store.ts, one synchronous step per call. */
import type { HeldPlace, PoolCaps, PoolPlace, PublicPoolStore, TakeOutcome } from "./port.js";

interface Entry {
  readonly origin: string;
  readonly until: number;
  readonly takenAt: number;
}

export class MemoryPublicPool implements PublicPoolStore {
  readonly #hosts = new Map<string, Map<string, Entry>>();

  #live(hostId: string, now: number): Map<string, Entry> {
    let places = this.#hosts.get(hostId);
    if (places === undefined) this.#hosts.set(hostId, (places = new Map<string, Entry>()));
    for (const [id, e] of places) if (e.until <= now) places.delete(id);
    return places;
  }

  take(hostId: string, place: PoolPlace, caps: PoolCaps, now: number): Promise<TakeOutcome> {
    const places = this.#live(hostId, now);
    if (places.has(place.id)) return Promise.resolve({ ok: true, value: undefined });
    const fromOrigin = [...places].filter(([, e]) => e.origin === place.origin);
    const refuse = (scope: "host" | "origin", limit: number, held: Array<[string, Entry]>): TakeOutcome => ({
      ok: false,
      error: {
        scope,
        limit,
        places: held.map(([id, e]): HeldPlace => ({ id, takenAt: e.takenAt })),
        earliestUntil: held.length === 0 ? now : Math.min(...held.map(([, e]) => e.until)),
      },
    });
    if (fromOrigin.length >= caps.perOrigin)
      return Promise.resolve(refuse("origin", caps.perOrigin, fromOrigin));
    if (places.size >= caps.perHost) return Promise.resolve(refuse("host", caps.perHost, [...places]));
    places.set(place.id, { origin: place.origin, until: place.until, takenAt: now });
    return Promise.resolve({ ok: true, value: undefined });
  }

  release(hostId: string, ids: readonly string[]): Promise<void> {
    const places = this.#hosts.get(hostId);
    for (const id of ids) places?.delete(id);
    return Promise.resolve();
  }

  count(hostId: string, now: number): Promise<number> {
    return Promise.resolve(this.#live(hostId, now).size);
  }
}
