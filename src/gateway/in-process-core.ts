/**
 * A whole booking core for one host in this process, on the in-memory hold store, with a key
 * made for the process: what an embedded OSBP adapter runs on when nothing else is configured
 * (the exported conformance adapter, tests). The same core the gateway runs, so its adapter
 * holds, allocates and confirms exactly as behind `serve` and `mcp`.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { Connector } from "../connectors/port.js";
import { MemoryHoldStore } from "../holds/memory/memory-store.js";
import { ed25519PublicJwkOf } from "../protocol/jose/index.js";
import type { Clock } from "../protocol/clock.js";
import type { BookingDeps, HostConfig } from "../booking/api.js";
import { buildHostRuntime, createHostDirectory } from "../booking/hosts/index.js";
import { createBookingService, type BookingService } from "./booking-service.js";

export async function inProcessCore(
  config: HostConfig,
  connector: Connector,
  clock: Clock,
): Promise<BookingService> {
  const { privateKey } = generateKeyPairSync("ed25519");
  const key = { kid: `${config.id}-process`, privateKey, publicJwk: ed25519PublicJwkOf(privateKey) };
  const runtime = await buildHostRuntime(config, connector, [key]);
  if (!runtime.ok) throw new Error(runtime.error.message);
  const deps: BookingDeps = {
    hosts: createHostDirectory([runtime.value]),
    store: new MemoryHoldStore({ clock }),
    clock,
    ids: { next: (prefix) => `${prefix}${randomBytes(16).toString("base64url")}` },
    // Nobody subscribes to webhooks here: no SchCP agent reaches this core.
    outbox: { enqueue: () => Promise.resolve() },
  };
  return createBookingService(deps);
}
