/**
 * The Square SDK, loaded when the first Square connector is made rather than when the gateway
 * starts: its ~3,600 CommonJS modules were about two fifths of the CPU time of a `serve` or `mcp`
 * process's start, paid also by every process that has no Square host. A process with a Square
 * host still loads it while starting (client.ts begins the load as the connector is built).
 */
import type * as SquareModule from "square";

type Sdk = typeof SquareModule;

let loading: Promise<Sdk> | undefined;
let loaded: Sdk | undefined;

/** The SDK, loading it on the first call. */
export function squareSdk(): Promise<Sdk> {
  loading ??= import("square").then((sdk) => (loaded = sdk));
  return loading;
}

/** The SDK if it has been loaded; an SDK error can only exist once it has. */
export function loadedSquareSdk(): Sdk | undefined {
  return loaded;
}
