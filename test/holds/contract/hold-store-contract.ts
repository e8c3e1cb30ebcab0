/**
 * The hold store contract suite: one set of implementation-neutral tests that every
 * GatewayStore (src/holds/port.ts) must pass — MemoryHoldStore and RedisHoldStore alike.
 *
 * Usage, from a *.test.ts file:
 *   holdStoreContract("MemoryHoldStore", async () => ({ store: new MemoryHoldStore(), cleanup: async () => {} }));
 *
 * The factory runs once per block; every test uses its own random hostId (and random
 * agent keys, keyids and reputation subjects), so tests never depend on each other and a
 * shared Redis server is fine. Times are injected (`now`), except for nonces, whose port
 * takes no clock: that one test waits about a second of real time.
 */
import { occupancyContract } from "./occupancy.contract.js";
import { describe } from "vitest";
import { allocationContract } from "./allocation.contract.js";
import { bookingIndexesContract } from "./booking-indexes.contract.js";
import { bookingsContract } from "./bookings.contract.js";
import { capsContract } from "./caps.contract.js";
import { lifecycleContract } from "./lifecycle.contract.js";
import { sideStoresContract } from "./side-stores.contract.js";
import { type StoreFactory, useStore } from "./support.js";

export type { StoreFactory } from "./support.js";

export function holdStoreContract(name: string, factory: StoreFactory): void {
  describe(`hold store contract: ${name}`, () => {
    const store = useStore(factory);
    allocationContract(store);
    capsContract(store);
    lifecycleContract(store);
    bookingsContract(store);
    bookingIndexesContract(store);
    sideStoresContract(store);
    occupancyContract(store);
  });
}
