/**
 * The checks of POST /holds/{id}/confirm before anything is written (SchCP §5.3): the
 * hold's owner and state, the offer hash, access, the mandate (book scope and constraints,
 * max_bookings with this hold already counted), the closed-mandate policy and shared limits.
 */
import type { BookingRefusal, Caller, HoldPayload, HostRuntime } from "../api.js";
import type { HoldRecord, HoldStore } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import {
  checkClosedMandatePolicy,
  checkMandateAction,
  sharedLimitLinks,
} from "../../protocol/schcp/mandate/index.js";
import type { MandateChain } from "../../protocol/schcp/mandate/index.js";
import type { ConfirmRequest } from "../../protocol/schcp/types.js";
import { mandateCounter } from "../bookings/access.js";
import {
  contractMismatch,
  fromMandateRefusal,
  invalidState,
  mandateRequired,
  notFound,
  refuse,
} from "../bookings/refuse.js";

/** A hold's state as a confirm sees it; only "held" may be confirmed. */
export function holdStateRefusal(hold: HoldRecord): BookingRefusal | undefined {
  switch (hold.state) {
    case "held":
      return undefined;
    case "booked":
      return invalidState("the hold is already confirmed");
    case "confirming":
      return invalidState("the hold is being confirmed", { retryAfterMs: 1_000 });
    case "expired":
      return invalidState("the hold expired");
    case "released":
      return invalidState("the hold was released");
  }
}

export async function checkConfirm(
  store: HoldStore,
  host: HostRuntime,
  caller: Caller,
  hold: HoldRecord,
  payload: HoldPayload,
  body: ConfirmRequest,
): Promise<Result<MandateChain, BookingRefusal>> {
  // §5.3 "Requires a mandate with book in scope, the same principal (iss) as the hold".
  const chain = caller.mandate;
  if (chain === undefined) return err(mandateRequired());
  // An anonymous hold belongs to the agent key that placed it, and is claimed by the
  // principal whose mandate that agent presents (§7.1). Another's hold is simply not found.
  const owned =
    payload.principal === null
      ? hold.owner.agentKey === caller.agentKey
      : payload.principal === chain.principal;
  if (!owned) return err(notFound("hold"));

  const state = holdStateRefusal(hold);
  if (state !== undefined) return err(state);
  if (payload.kind !== "booking")
    return err(invalidState("a change offer is accepted with reschedule (§5.7)"));
  if (body.meeting !== undefined || body.participants !== undefined) {
    return err(
      refuse("UNSUPPORTED", "unsupported", "meetings and participants are not supported by this host"),
    );
  }

  // §5.3 "Every acceptance names its contract".
  if (body.offer_sha256 !== payload.offerSha256) {
    return err(contractMismatch(payload.offerSha256, "offer_sha256 does not name the hold's offer"));
  }

  // §7.8: membership is checked when the request is made, so a removed contact cannot confirm.
  const policies = host.config.policies;
  if (policies.access === "contacts" && !(policies.contacts ?? []).includes(chain.principal)) {
    return err(
      refuse("NOT_PERMITTED", "not_a_contact", "this host accepts bookings from its contacts only", {
        basis: { policy: "access", access: "contacts" },
      }),
    );
  }

  const checked = await checkMandateAction(
    chain,
    {
      kind: "book",
      serviceId: payload.serviceId,
      start: payload.start,
      ...(payload.end !== undefined ? { end: payload.end } : { openEnded: true }),
      total: payload.total,
      offerSha256: payload.offerSha256,
      // The hold already counts against max_bookings (§7.1); confirming it takes no new unit.
      countedItemId: hold.holdId,
    },
    { counter: mandateCounter(store, host.config.id) },
  );
  if (!checked.ok) return err(fromMandateRefusal(checked.error));

  const closed = checkClosedMandatePolicy(chain, payload.offerSha256, policies.closedMandate);
  if (!closed.ok) return err(fromMandateRefusal(closed.error));

  // §3.3 shared limits: the key app must vouch for the unit before the confirm. This gateway
  // has no claims client yet, and "a booking the key app cannot vouch for is not made".
  if (sharedLimitLinks(chain).length > 0) {
    return err(
      refuse("MANDATE_LIMIT", "shared_limit_reached", "this host cannot claim a shared booking limit", {
        basis: { constraint: "shared_limit" },
      }),
    );
  }
  return ok(chain);
}
