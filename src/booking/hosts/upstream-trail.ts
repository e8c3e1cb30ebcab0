/**
 * The upstream calls one edge operation caused, with their metadata, however many run at once.
 * An edge runs its operation inside traceUpstream; the host's watched connector (the one way
 * the core reaches an upstream) adds each result's UpstreamMeta to the trail of whichever
 * operation is running — AsyncLocalStorage follows the operation through every await — so an
 * audit record names its own call's upstream, never a concurrent one's (OSBP "Audit").
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { UpstreamMeta } from "../upstream.js";

const trails = new AsyncLocalStorage<UpstreamMeta[]>();

export async function traceUpstream<T>(
  run: () => Promise<T>,
): Promise<{ readonly value: T; readonly upstream: readonly UpstreamMeta[] }> {
  const trail: UpstreamMeta[] = [];
  const value = await trails.run(trail, run);
  return { value, upstream: trail };
}

/**
 * Called by the watched connector for every upstream result (hosts/watched-connector.ts). A
 * result a connector answered from memory carries the metadata of the earlier call that
 * produced it, marked `replay`: no upstream call was observed during this operation, so it is
 * not on the trail (OSBP "Audit": "upstream is absent when the tool answered locally").
 */
export function recordUpstream(meta: UpstreamMeta | undefined): void {
  if (meta !== undefined && meta.replay !== true) trails.getStore()?.push(meta);
}
