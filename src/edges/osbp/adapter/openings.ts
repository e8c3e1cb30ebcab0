/**
 * OSBP availability in the core's terms: the core's openings for the service over the
 * merchant-local day, one query per provider for a staff service (an OSBP Slot names its
 * provider), shaped as platform slots so slots.ts builds the OSBP Slots from them.
 */
import type { Caller } from "../../../booking/api.js";
import type { CatalogResource, CatalogService } from "../../../booking/catalog.js";
import type { Interval } from "../../../booking/direct/index.js";
import { err, type Result } from "../../../protocol/result.js";
import type { UpstreamSlot } from "../../../booking/upstream.js";
import type { Problem } from "../../../protocol/osbp/index.js";
import type { StaffShape } from "./catalog-facts.js";
import type { AdapterContext } from "./context.js";
import { refusalProblem } from "./refusals.js";

/** availability.find carries no mandate: it asks as an anonymous OSBP agent. */
const ANONYMOUS: Caller = { agentKey: "osbp:availability" };

export async function openingsByProvider(
  ctx: AdapterContext,
  service: CatalogService,
  shape: StaffShape,
  provider: CatalogResource | undefined,
  range: Interval,
  caller: Caller = ANONYMOUS,
): Promise<Result<UpstreamSlot[], Problem>> {
  const providers =
    shape.kind === "provider" ? (provider === undefined ? shape.providers : [provider]) : [undefined];
  const out: UpstreamSlot[] = [];
  for (const p of providers) {
    const open = await ctx.core.openings(ctx.hostId, caller, {
      serviceId: service.id,
      range,
      partySize: 1,
      ...(p !== undefined && { resourceId: p.id }),
    });
    if (!open.ok) return err(refusalProblem(open.error, "read"));
    for (const o of open.value) {
      out.push({
        serviceId: service.id,
        start: o.start,
        ...(o.end !== undefined && { end: o.end }),
        resourceIds: p === undefined ? [] : [p.id],
        ...(o.stated !== undefined && { total: o.stated }),
      });
    }
  }
  return { ok: true, value: out };
}
