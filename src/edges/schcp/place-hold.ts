/**
 * POST /holds (SchCP §5.2): the validated wire request to the hold engine. The edge has
 * checked the signature, the mandate and the closed HoldRequest schema; this reads the
 * values (start, ttl) into the hold engine's intent, asks for the SchCP offer with it
 * (edge.ts), and returns the wire Hold kept with the hold. Idempotency (§9.1) wraps it at the edge.
 */
import { coreCaller, type SchcpCaller } from "./caller.js";
import { err, ok } from "../../protocol/result.js";
import type { Hold, HoldRequest } from "../../protocol/schcp/types.js";
import { parseInstant, parseSchcpDuration } from "../../protocol/time/index.js";
import type { BookingDeps, UseCase } from "../../booking/api.js";
import { createHold } from "../../booking/holds/create-hold.js";
import { bookingRefusal, notFound, withContactRemedy } from "../../booking/rules/index.js";
import { SCHCP, schcpHold } from "./attachment.js";

export async function placeHold(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  body: HoldRequest,
): UseCase<Hold> {
  const runtime = deps.hosts.get(hostId);
  if (runtime === undefined) return err(notFound(`host ${hostId}`));
  const invalid = (field: string, message: string) =>
    err(
      withContactRemedy(bookingRefusal("invalid_request", { message, details: { field } }), runtime.config),
    );

  const start = parseInstant(body.start, "/start");
  if (!start.ok) return invalid("/start", start.error.message);
  let ttlMs = runtime.config.policies.holds.maxTtlMs;
  if (body.ttl !== undefined) {
    const ttl = parseSchcpDuration(body.ttl, "/ttl");
    if (!ttl.ok) return invalid("/ttl", ttl.error.message);
    if (ttl.value <= 0) return invalid("/ttl", "ttl must be longer than zero");
    ttlMs = ttl.value;
  }
  const created = await createHold(deps, runtime, {
    caller: coreCaller(deps.store, hostId, caller),
    serviceId: body.service_id,
    start: start.value.epochMs,
    ttlMs,
    ...(body.callback_url !== undefined && { callbackUrl: body.callback_url }),
    partySize: body.party_size ?? 1,
    ...(body.place !== undefined && { place: body.place }),
    ...(body.resource !== undefined && { resourceId: body.resource }),
    kind: "booking",
    edges: [SCHCP],
  });
  if (!created.ok) return created;
  const signed = schcpHold(created.value.payload.attachments);
  if (signed === undefined)
    throw new Error(`hold ${created.value.record.holdId}: the SchCP edge is not installed`);
  return ok(signed.hold);
}
