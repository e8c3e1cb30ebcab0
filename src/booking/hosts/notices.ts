/**
 * Upstream retirement notices per host: when a platform answers a call with
 * Deprecation (RFC 9745) or Sunset (RFC 8594), the upstream request helper logs it once per
 * endpoint per process and hands it here, so an operator sees, per host, which calls are
 * being retired and when — in the operator API and `booking-gateway upstreams` — before
 * anything breaks. Agent-facing output never changes.
 *
 * One entry per host, vendor and call line; the header values are kept verbatim with when
 * they were first and last seen. Memory in the embedded default; Redis (a hash per host) so
 * every process's sightings land in one list.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";

/** What the upstream request helper reports (src/connectors/http). */
export interface NoticeSighting {
  readonly vendor: string;
  readonly call: string;
  readonly deprecation?: string;
  readonly sunset?: string;
}

export interface HostNotice extends NoticeSighting {
  readonly first_seen: string;
  readonly last_seen: string;
}

export interface NoticeBook {
  record(hostId: string, sighting: NoticeSighting, at: number): Promise<void>;
  list(hostId: string): Promise<readonly HostNotice[]>;
}

const keyOf = (s: NoticeSighting) => `${s.vendor} ${s.call}`;

function merge(previous: HostNotice | undefined, s: NoticeSighting, at: number): HostNotice {
  const when = new Date(at).toISOString();
  return {
    vendor: s.vendor,
    call: s.call,
    ...(s.deprecation !== undefined && { deprecation: s.deprecation }),
    ...(s.sunset !== undefined && { sunset: s.sunset }),
    first_seen: previous?.first_seen ?? when,
    last_seen: when,
  };
}

const byCall = (a: HostNotice, b: HostNotice) => keyOf(a).localeCompare(keyOf(b));

export class MemoryNoticeBook implements NoticeBook {
  readonly #hosts = new Map<string, Map<string, HostNotice>>();
  record(hostId: string, s: NoticeSighting, at: number): Promise<void> {
    const host = this.#hosts.get(hostId) ?? new Map<string, HostNotice>();
    host.set(keyOf(s), merge(host.get(keyOf(s)), s, at));
    this.#hosts.set(hostId, host);
    return Promise.resolve();
  }
  list(hostId: string): Promise<readonly HostNotice[]> {
    return Promise.resolve([...(this.#hosts.get(hostId)?.values() ?? [])].sort(byCall));
  }
}

export class RedisNoticeBook implements NoticeBook {
  readonly #keys: RedisKeyspace;
  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }
  async record(hostId: string, s: NoticeSighting, at: number): Promise<void> {
    const key = this.#key(hostId);
    const raw = await this.redis.hget(key, keyOf(s));
    const previous = raw === null ? undefined : (JSON.parse(raw) as HostNotice);
    await this.redis.hset(key, keyOf(s), JSON.stringify(merge(previous, s, at)));
  }
  async list(hostId: string): Promise<readonly HostNotice[]> {
    const all = await this.redis.hvals(this.#key(hostId));
    return all.map((r) => JSON.parse(r) as HostNotice).sort(byCall);
  }
  #key(hostId: string): string {
    return this.#keys.key("upstream-notices", encodeURIComponent(hostId));
  }
}
