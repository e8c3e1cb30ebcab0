/**
 * POST /bookings/{id}/commit (SchCP §5.12 Commit): scope book, the organizer's mandate (the
 * booking's principal; anyone else's is not found, §5.5). The checks and the move to
 * confirmed are the core's (../../../booking/meetings/commit.ts); each acceptance is checked
 * by this edge's verifyAcceptance hook. Answered as the BookingResponse, with the contract.
 */
import type { BookingDeps, UseCase } from "../../../booking/api.js";
import { refuse } from "../../../booking/bookings/refuse.js";
import { commitMeeting } from "../../../booking/meetings/commit.js";
import { err, ok } from "../../../protocol/result.js";
import type { BookingResponse, CommitRequest } from "../../../protocol/schcp/types.js";
import { authorizeOnBooking, bookingAction } from "../access.js";
import { schcpHostBooking } from "../booking.js";
import type { SchcpCaller } from "../caller.js";
import { bookingResponse } from "../receipt.js";

export async function commitBooking(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  bookingId: string,
  body: CommitRequest,
): UseCase<BookingResponse> {
  const found = await schcpHostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const allowed = await authorizeOnBooking(
    deps.store,
    caller,
    loaded.state,
    bookingAction("read", loaded.state),
  );
  if (!allowed.ok) return allowed;
  if (!allowed.value.links.every((l) => l.claims.scope.includes("book")))
    return err(
      refuse("authority_scope", "not_in_scope", 'commit needs "book" in the mandate\'s scope', {
        basis: { scope: "book" },
      }),
    );
  const committed = await commitMeeting(deps, hostId, bookingId, {
    contractSha256: body.contract_sha256,
    acceptances: body.acceptances,
  });
  return committed.ok ? ok(bookingResponse(committed.value, host)) : committed;
}
