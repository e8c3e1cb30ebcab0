/** The idempotency contract against MemoryIdempotencyStore, the reference behaviour. */
import { MemoryIdempotencyStore } from "../../../../src/edges/osbp/idempotency/memory.js";
import { idempotencyStoreContract } from "./contract.js";

idempotencyStoreContract("MemoryIdempotencyStore", (timings) => {
  const store = new MemoryIdempotencyStore(timings);
  return Promise.resolve({ store, cleanup: () => store.close() });
});
