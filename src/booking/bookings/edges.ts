/**
 * The core's side of the edge hooks (api.ts BookingEdge): which edges keep a record with a
 * hold or booking is the set of its attachments' names; the core asks each of them, and never
 * reads the records itself.
 */
import type { BookingDeps, BookingNotice, HeldTerms, HostRuntime, NoticeExtras } from "../api.js";
import { edgesOf, type Attachments } from "../contract.js";
import type { BookingState } from "./state.js";

type EdgeDeps = Pick<BookingDeps, "edges">;

/** Each named edge's record for a hold just priced; undefined when no edge keeps one. */
export async function holdAttachments(
  deps: EdgeDeps,
  host: HostRuntime,
  edges: readonly string[],
  held: HeldTerms,
): Promise<Attachments | undefined> {
  const out: Record<string, unknown> = {};
  for (const name of edges) {
    const edge = deps.edges?.[name];
    if (edge !== undefined) out[name] = await edge.holdAttachment(host, held);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The state with each edge's record brought up to date with it (SchCP: a fresh receipt). */
export async function withEdgeRecords(
  deps: EdgeDeps,
  host: HostRuntime,
  state: BookingState,
  now: number,
): Promise<BookingState> {
  if (state.attachments === undefined) return state;
  const out: Record<string, unknown> = {};
  for (const [name, record] of Object.entries(state.attachments)) {
    const edge = deps.edges?.[name];
    out[name] = edge === undefined ? record : await edge.bookingAttachment(host, state, record, now);
  }
  return { ...state, attachments: out };
}

/** Tells the guest through every edge the booking was made or changed through. */
export async function notifyGuest(
  deps: Pick<BookingDeps, "edges" | "ids" | "outbox">,
  host: HostRuntime,
  state: BookingState,
  notice: BookingNotice,
  now: number,
  extras: NoticeExtras = {},
): Promise<void> {
  if (state.callbackUrl === undefined) return;
  for (const name of edgesOf(state.attachments)) {
    await deps.edges?.[name]?.notify(deps, host, state, notice, now, extras);
  }
}
