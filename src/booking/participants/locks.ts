/**
 * §5.10 Locks: "A tentative booking counts against the booker's agent cap and the new-guest
 * pool (§7.2) like a hold", and a booker vouched for by an attester "keeps drawing on that
 * attester's pool while the booking is tentative" (§7.5). The hold store counts live holds
 * atomically (placeHold); the tentative bookings at the host are counted here, from the
 * store's status index, and taken off the caps the hold is placed under.
 *
 * Not one atomic step with placeHold: a confirm that turns one of the agent's holds into a
 * tentative booking between this count and the placement leaves that unit counted in neither
 * for that one request. Tentative bookings are few and short-lived; the hold caps stay exact.
 */
import type { HoldCaps, HoldStore } from "../../holds/port.js";

/** Tentative bookings are settled by their start: look back this far for any the runner has not yet reached. */
const LOOKBACK_MS = 3_600_000;
/** At most this many pages of the tentative list per hold. */
const MAX_PAGES = 4;

export interface TentativeLoad {
  /** The agent's tentative bookings at the host. */
  readonly agent: number;
  /** Tentative bookings drawing on the same pool as the new hold (none for a proven guest). */
  readonly pool: number;
}

export async function tentativeLoad(
  store: Pick<HoldStore, "listBookings" | "isPrincipalProven">,
  hostId: string,
  who: { readonly agentKey: string; readonly attester?: string; readonly proven: boolean },
  now: number,
): Promise<TentativeLoad> {
  let agent = 0;
  let pool = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await store.listBookings(hostId, {
      limit: 500,
      status: "tentative",
      from: now - LOOKBACK_MS,
      ...(cursor !== undefined && { cursor }),
    });
    for (const b of listed.bookings) {
      if (b.state !== "active") continue;
      if (b.owner.agentKey === who.agentKey) agent++;
      if (who.proven) continue;
      if (who.attester !== undefined) {
        if (b.owner.attester === who.attester) pool++;
      } else if (b.owner.attester === undefined) {
        const proven =
          b.owner.principal !== null && (await store.isPrincipalProven(hostId, b.owner.principal, now));
        if (!proven) pool++;
      }
    }
    if (listed.nextCursor === undefined) break;
    cursor = listed.nextCursor;
  }
  return { agent, pool };
}

/** The caps less what tentative bookings already take (never below zero). */
export function capsLessTentative(caps: HoldCaps, load: TentativeLoad, attester: boolean): HoldCaps {
  const less = (cap: number | undefined, n: number) => (cap === undefined ? undefined : Math.max(0, cap - n));
  const agent = less(caps.maxActivePerAgent, load.agent);
  const unproven = attester ? caps.maxActiveUnproven : less(caps.maxActiveUnproven, load.pool);
  const perAttester = attester ? less(caps.maxActivePerAttester, load.pool) : caps.maxActivePerAttester;
  return {
    ...caps,
    ...(agent !== undefined && { maxActivePerAgent: agent }),
    ...(unproven !== undefined && { maxActiveUnproven: unproven }),
    ...(perAttester !== undefined && { maxActivePerAttester: perAttester }),
  };
}
