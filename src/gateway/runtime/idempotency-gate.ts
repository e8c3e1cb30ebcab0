/**
 * The edge's IdempotencyGate on the core's one idempotency mechanism (SchCP §9.1, through
 * `src/edges/schcp/idempotency.ts`): one record per (agent keyid, idempotency_key) in the
 * gateway store, keyed against a hash of the method, path and exact body bytes; replays
 * re-authorized against the CURRENT mandate with mandateReplayAuthorizer.
 */
import type { Clock } from "../../protocol/clock.js";
import type { HostDirectory } from "../../booking/api.js";
import { requestHash, schcpIdempotencyStore, withIdempotency } from "../../edges/schcp/idempotency.js";
import { mandateReplayAuthorizer } from "../../edges/schcp/replay.js";
import type { IdempotencyStore } from "../../holds/port.js";
import type { MandateActionKind } from "../../protocol/schcp/mandate/index.js";
import { fromBookingRefusal } from "../../edges/schcp/http/refusal-map.js";
import { refusalResponse } from "../../edges/http/respond.js";
import type { EdgeResponse, IdempotencyGate, IdempotentRoute } from "../app/types.js";

/** The mandate action each idempotent route is checked as (§3.3 check 5). */
const ACTION: Record<IdempotentRoute, MandateActionKind> = {
  placeHold: "hold",
  confirm: "book",
  cancel: "cancel",
  changeOffer: "change_offer",
  reschedule: "reschedule",
  proposalResponse: "proposal_response",
  respond: "respond",
  // §5.12: commit is scope book.
  commit: "book",
  // §5.12 Revisions: scope reschedule.
  reviseMeeting: "reschedule",
  withdrawMeetingRevision: "reschedule",
  // §5.9: joining needs a mandate that could hold a slot in the window.
  joinWaitlist: "hold",
};

export function createIdempotencyGate(deps: {
  readonly store: IdempotencyStore;
  readonly clock: Clock;
  readonly hosts: HostDirectory;
}): IdempotencyGate {
  const records = schcpIdempotencyStore(deps.store);
  return {
    async run(request, execute): Promise<EdgeResponse> {
      const outcome = await withIdempotency(
        records,
        {
          agentKey: request.caller.agentKey,
          idempotencyKey: request.idempotencyKey,
          requestHash: requestHash(request.method, request.path, request.body),
          principal: request.caller.mandate?.principal ?? null,
          clock: deps.clock,
        },
        execute,
        mandateReplayAuthorizer(request.caller, ACTION[request.route]),
      );
      if (outcome.ok) return outcome.value.response;
      return refusalResponse(fromBookingRefusal(outcome.error, deps.hosts.get(request.hostId)?.config));
    },
  };
}
