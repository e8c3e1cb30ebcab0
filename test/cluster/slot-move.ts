/**
 * Moving one hash slot between masters step by step, as `redis-cli --cluster reshard` does:
 * SETSLOT IMPORTING on the destination, MIGRATING on the source, MIGRATE in batches, then
 * SETSLOT NODE on the new owner, the old one and every other master.
 */
import { Redis } from "ioredis";
import { roleOf, type TestRedisCluster } from "../support/redis-cluster.js";

export const node = (port: number): Redis => new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 0 });

export interface SlotMove {
  /** MIGRATE these keys (all in the slot) to the destination now. */
  migrate(keys: readonly string[]): Promise<void>;
  /** MIGRATE what is left, `batch` keys at a time, calling `onBatch` after each; returns the count. */
  migrateRest(batch: number, onBatch?: () => Promise<void>): Promise<number>;
  /** SETSLOT NODE everywhere: the slot is the destination's. */
  finish(): Promise<void>;
  /** Closes the admin connections (after finish, or to leave the slot mid-move). */
  close(): void;
}

export async function startSlotMove(
  c: TestRedisCluster,
  slot: number,
  fromPort: number,
  toPort: number,
): Promise<SlotMove> {
  const src = node(fromPort);
  const dst = node(toPort);
  const srcId = String(await src.call("CLUSTER", "MYID"));
  const dstId = String(await dst.call("CLUSTER", "MYID"));
  await dst.call("CLUSTER", "SETSLOT", slot, "IMPORTING", srcId);
  await src.call("CLUSTER", "SETSLOT", slot, "MIGRATING", dstId);
  const migrate = async (keys: readonly string[]): Promise<void> => {
    await src.call("MIGRATE", "127.0.0.1", toPort, "", 0, 5000, "KEYS", ...keys);
  };
  return {
    migrate,
    async migrateRest(batch, onBatch) {
      let moved = 0;
      for (;;) {
        const keys = (await src.call("CLUSTER", "GETKEYSINSLOT", slot, batch)) as string[];
        if (keys.length === 0) return moved;
        await migrate(keys);
        moved += keys.length;
        await onBatch?.();
      }
    },
    async finish() {
      // The new owner first, then the old one, then everyone else (as redis-cli does).
      await dst.call("CLUSTER", "SETSLOT", slot, "NODE", dstId);
      await src.call("CLUSTER", "SETSLOT", slot, "NODE", dstId);
      for (const port of c.ports.filter((p) => p !== fromPort && p !== toPort)) {
        const other = node(port);
        try {
          if ((await roleOf(port)).role === "master")
            await other.call("CLUSTER", "SETSLOT", slot, "NODE", dstId);
        } finally {
          other.disconnect();
        }
      }
    },
    close() {
      src.disconnect();
      dst.disconnect();
    },
  };
}

/** The whole move; returns how many keys moved. */
export async function moveSlot(
  c: TestRedisCluster,
  slot: number,
  fromPort: number,
  toPort: number,
  onBatch: () => Promise<void>,
  batch = 3,
): Promise<number> {
  const move = await startSlotMove(c, slot, fromPort, toPort);
  try {
    const moved = await move.migrateRest(batch, onBatch);
    await move.finish();
    return moved;
  } finally {
    move.close();
  }
}

/** The master serving `slot` now (CLUSTER SLOTS asked of `askPort`). */
export async function ownerOf(askPort: number, slot: number): Promise<number> {
  const admin = node(askPort);
  try {
    const ranges = (await admin.call("CLUSTER", "SLOTS")) as Array<[number, number, [string, number]]>;
    return ranges.find(([lo, hi]) => slot >= lo && slot <= hi)?.[2][1] ?? 0;
  } finally {
    admin.disconnect();
  }
}
