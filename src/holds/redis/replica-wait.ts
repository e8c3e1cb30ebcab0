/**
 * Waiting for replicas after a booking is written (what must hold: "a master failover ... never a
 * lost booking"). Redis replicates asynchronously: a master that crashes right after a write
 * may take it with it, and the replica promoted in its place never saw it. WAIT makes the
 * connection that wrote block until that many replicas have acknowledged everything it wrote
 * (or the timeout passes), so an answer sent after it survives one master's crash.
 *
 * WAIT takes no key, and ioredis' Cluster client sends keyless commands to any node; it must
 * go to the connection that ran the host's script, so it is sent to the master the client's
 * slot map names for the host's slot (asked once per host with CLUSTER KEYSLOT: a host's slot
 * never changes). If the slot moved in between, that master has not seen our write and WAIT
 * says nothing about it: counted as not replicated.
 */
import type { Redis } from "ioredis";
import { isCluster, type RedisClient } from "../../redis/client.js";

export interface ReplicaWaitPolicy {
  /** Replicas that must have the write before the booking is answered (0 = do not wait). */
  readonly replicas: number;
  /** How long to wait for them; past it the answer goes out and the shortfall is reported. */
  readonly timeoutMs: number;
}

/** Told when fewer replicas than asked acknowledged a write in time (for operators' logs). */
export type ReplicaShortfall = (event: {
  readonly operation: string;
  readonly hostId: string;
  readonly acknowledged: number;
  readonly wanted: number;
}) => void;

export class ReplicaWait {
  readonly #slots = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    private readonly policy: ReplicaWaitPolicy,
    private readonly onShortfall: ReplicaShortfall = () => undefined,
  ) {}

  get enabled(): boolean {
    return this.policy.replicas > 0;
  }

  /** After a write of `hostKey`'s host: WAIT on the connection that ran it. Never throws. */
  async after(operation: string, hostId: string, hostKey: string): Promise<void> {
    if (!this.enabled) return;
    let acknowledged = 0;
    try {
      const node = await this.#nodeFor(hostKey);
      if (node !== undefined) {
        acknowledged = Number(await node.call("WAIT", this.policy.replicas, this.policy.timeoutMs));
      }
    } catch {
      acknowledged = 0;
    }
    if (acknowledged < this.policy.replicas) {
      this.onShortfall({ operation, hostId, acknowledged, wanted: this.policy.replicas });
    }
  }

  async #nodeFor(hostKey: string): Promise<Redis | undefined> {
    const client = this.redis;
    if (!isCluster(client)) return client;
    let slot = this.#slots.get(hostKey);
    if (slot === undefined) {
      slot = Number(await client.cluster("KEYSLOT", hostKey));
      this.#slots.set(hostKey, slot);
    }
    const owner = client.slots[slot]?.[0];
    return client.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === owner);
  }
}
