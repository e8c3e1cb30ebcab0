/**
 * End to end over HTTP: SchCP §5.3 "Free text". A host publishing policies.data.free_text_notes
 * "refuse" answers a confirm carrying notes with 422 DATA_NOT_ACCEPTED free_text_notes before
 * storing anything, its contact remedy pointing to data.intake_url; the hold stays held, so
 * the same confirm without notes books.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { discover, freeSlots, must, newAgent, openMandate, refusalOf } from "./support/agents.js";
import { defaultConfig, startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

const INTAKE = "https://maplestreetauto.example/intake";
let gw: E2eGateway;

beforeAll(async () => {
  const config = defaultConfig();
  for (const host of config.hosts) {
    if (host.id === "maple-street-auto")
      host.policies = { ...host.policies, data: { free_text_notes: "refuse", intake_url: INTAKE } };
  }
  gw = await startGateway({ config });
});
afterAll(async () => {
  await gw?.close();
});

describe("policies.data.free_text_notes: refuse (§5.3)", () => {
  it("publishes the policy, refuses a confirm with notes before storing anything, then books without them", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    expect(maple.document.policies["data"]).toEqual({ free_text_notes: "refuse", intake_url: INTAKE });
    const [slot] = await freeSlots(agent, gw, maple, "oil-change");
    const mandate = await openMandate(agent, maple.hostId);
    const hold = must(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: slot!.start },
        { mandate: mandate.compact },
      ),
      "hold",
    );
    const hash = offerSha256(hold.body.offer);
    const refused = refusalOf(
      await agent.client.confirm(
        maple,
        hold.body.hold_id,
        { offer_sha256: hash, idempotency_key: "with-notes", notes: "I take warfarin" },
        { mandate: mandate.compact },
      ),
    );
    expect(refused).toMatchObject({ status: 422, code: "DATA_NOT_ACCEPTED", reason: "free_text_notes" });
    expect(refused.remedies).toContainEqual(expect.objectContaining({ type: "contact", url: INTAKE }));

    // The hold is still held and no booking exists: the confirm without notes goes through.
    const read = must(
      await agent.client.getHold(maple, hold.body.hold_id, { mandate: mandate.compact }),
      "hold",
    );
    expect(read.body.status).toBe("held");
    const booked = must(
      await agent.client.confirm(
        maple,
        hold.body.hold_id,
        { offer_sha256: hash, idempotency_key: "without-notes" },
        { mandate: mandate.compact },
      ),
      "confirm",
    );
    expect(booked.body.booking.status).toBe("confirmed");
  });
});
