/** MemorySyntheticBackend against the shared backend contract. */
import { MemorySyntheticBackend } from "../../../src/connectors/synthetic/index.js";
import { backendContract } from "./backend-contract.js";

backendContract("MemorySyntheticBackend", () =>
  Promise.resolve({ backend: new MemorySyntheticBackend(), cleanup: () => Promise.resolve() }),
);
