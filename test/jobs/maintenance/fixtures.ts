/** Holds with HoldPayloads as the core stores them, for the sweeper tests. */
import type { HoldPayload, OutboundEvent, Outbox } from "../../../src/booking/api.js";
import type { Hold } from "../../../src/protocol/schcp/types.js";
import type { GatewayStore, HoldOwner, PlaceHoldRequest } from "../../../src/holds/port.js";
import { sampleHold } from "../support.js";

export const MINUTE = 60_000;
export const T0 = Date.UTC(2030, 0, 7, 14, 0, 0);
export const NOW = T0 - 60 * MINUTE;
export const TTL = 5 * MINUTE;

export const OWNER: HoldOwner = {
  agentKey: "agent-thumbprint-A",
  principal: "urn:schcp:principal:jwk-thumbprint:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  attester: "attester-1",
  mandates: [],
};

/** Only what the sweeper reads is real; the rest of a payload is irrelevant here. */
export function payload(
  holdId: string,
  over: { kind?: "booking" | "change"; hold?: Hold; callbackUrl?: string } = {},
): string {
  const hold = over.hold ?? { ...sampleHold(holdId), expires_at: "2030-01-07T13:05:00Z" };
  const p: HoldPayload = {
    v: 2,
    contract: {
      kind: over.kind ?? "booking",
      service: { id: "oil-change", name: "Synthetic oil change" },
      start: T0,
      partySize: 1,
      price: null,
      total: null,
      lines: [],
      retention: "P365D",
    },
    agentKey: OWNER.agentKey,
    principal: OWNER.principal,
    callbackUrl: over.callbackUrl ?? "https://agent.example/hooks/schcp",
    attachments: { schcp: { offer: hold.offer, offerSha256: "sha", claims: {}, hold } },
  };
  return JSON.stringify(p);
}

/** The same hold as builds before the core/SchCP split stored it (HoldPayload version 1). */
export function payloadV1(holdId: string): string {
  const hold = { ...sampleHold(holdId), expires_at: "2030-01-07T13:05:00Z" };
  return JSON.stringify({
    v: 1,
    hold,
    offer: hold.offer,
    offerSha256: "sha",
    claims: {
      v: "0.4",
      kind: "booking",
      iss: "maple-street-auto",
      hold_id: holdId,
      iat: 1,
      exp: 2,
      service: { id: "oil-change", name: "Synthetic oil change" },
      slot: { start: "2030-01-07T09:00:00-05:00" },
      retention: "P365D",
    },
    kind: "booking",
    agentKey: OWNER.agentKey,
    principal: OWNER.principal,
    callbackUrl: "https://agent.example/hooks/schcp",
    partySize: 1,
    serviceId: "oil-change",
    start: T0,
    resourceIds: ["bay-1"],
    total: null,
  });
}

let seq = 0;
/** A hold on its own bay (so holds never collide), starting at T0 + offset minutes. */
export function holdRequest(
  hostId: string,
  over: Partial<PlaceHoldRequest> & { holdId?: string } = {},
): PlaceHoldRequest {
  const holdId = over.holdId ?? `h_${++seq}`;
  const bay = `bay-${holdId}`;
  return {
    hostId,
    holdId,
    serviceId: "oil-change",
    interval: { start: T0, end: T0 + 60 * MINUTE },
    requirements: [{ type: "bay", candidates: [{ id: bay, capacity: 1 }], units: 1 }],
    ttlMs: TTL,
    now: NOW,
    owner: OWNER,
    caps: { principalProven: true },
    payload: payload(holdId),
    ...over,
  };
}

export async function placeOrThrow(store: GatewayStore, request: PlaceHoldRequest): Promise<void> {
  const outcome = await store.placeHold(request);
  if (!outcome.ok) throw new Error(`hold refused: ${outcome.error.reason}`);
}

export function recordingOutbox(): Outbox & { sent: OutboundEvent[] } {
  const sent: OutboundEvent[] = [];
  return {
    sent,
    enqueue: (event) => {
      sent.push(event);
      return Promise.resolve();
    },
  };
}
