/**
 * What became of a create whose answer was lost (README.md "Idempotency, lost answers and
 * their residual risk"): settled against availability, since Servicialo cannot be asked for a
 * session.
 */
import type { UpstreamCreate } from "../ports/bookings.js";
import type { ConnectorResult, UpstreamMeta } from "../ports/result.js";
import { availability, providersFor } from "./availability.js";
import type { ServicialoContext } from "./context.js";
import { isoDate, localDay } from "./local-time.js";
import { fail, withMeta } from "./results.js";
import type { ServicialoJournal } from "./sessions.js";

/**
 * A lost create: is its start still free with that provider (with every configured provider
 * when it named none)? Then no live session holds it, so none of ours does.
 */
async function stillFree(ctx: ServicialoContext, request: UpstreamCreate): Promise<ConnectorResult<boolean>> {
  const date = isoDate(localDay(ctx, request.start));
  let meta: UpstreamMeta | undefined;
  for (const providerId of providersFor(ctx, request.resourceIds)) {
    const r = await availability(ctx, request.serviceId, { date }, providerId);
    if (!r.ok) return r;
    meta = r.upstream;
    if (!r.value.slots.some((s) => s.start === request.start)) return withMeta(false, meta);
  }
  return withMeta(true, meta);
}

/** Taken: it cannot tell whether the session is ours, and the create is never sent again. */
export const ambiguous = (upstream?: UpstreamMeta): ConnectorResult<never> =>
  fail(
    {
      code: "unavailable",
      message:
        "Servicialo: outcome unknown: a create's answer was lost and its time is now taken; Servicialo has no session readback to tell whether the session is this booking, so it is not sent again (the business can match it by the [booking-gateway <key>] note)",
    },
    upstream,
  );

/**
 * What became of a create whose answer was lost, as far as Servicialo can tell: the time
 * free means nothing was booked (the key is free again); taken, it cannot tell whether the
 * session is ours (`ambiguous`), and the create is never sent again.
 */
export async function settle(
  ctx: ServicialoContext,
  journal: ServicialoJournal,
  key: string,
  request: UpstreamCreate,
): Promise<ConnectorResult<null>> {
  const free = await stillFree(ctx, request);
  if (!free.ok) return free;
  if (!free.value) return ambiguous(free.upstream);
  journal.markRefused(key, free.upstream);
  return withMeta(null, free.upstream);
}
