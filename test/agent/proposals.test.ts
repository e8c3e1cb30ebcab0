/**
 * The SDK's answer to a host proposal or counter (SchCP §5.8, §5.11): acceptProposal names the
 * proposal's exact offer bytes by hash at the booking's sequence; declineProposal names none;
 * neither sends anything for a booking without a proposal by the host. The host here is a fetch
 * that records the request and refuses it (a valid §9.2 refusal), so only what is sent is seen.
 */
import { describe, expect, it } from "vitest";
import { SchcpClient, createAgentKey } from "../../src/agent/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";

const ENDPOINT = "https://host.example/schcp/v0/harbourview-dental";
const OFFER = "eyJhbGciOiJFZERTQSJ9.eyJ2IjoiMC40In0.c2ln";

function recordingClient() {
  const sent: Array<{ url: string; body: Record<string, unknown> }> = [];
  const client = new SchcpClient({
    agentKey: createAgentKey(),
    fetch: (url, init) => {
      sent.push({ url, body: JSON.parse(new TextDecoder().decode(init.body as Uint8Array)) as never });
      return Promise.resolve(
        new Response(
          JSON.stringify({ error: { code: "INVALID_STATE", reason: "invalid_state", message: "test" } }),
          { status: 409, headers: { "content-type": "application/json", "schcp-version": "0.4" } },
        ),
      );
    },
  });
  return { client, sent };
}

const booking = {
  booking_id: "b_1",
  sequence: 2,
  proposal: {
    proposal_id: "p_1",
    by: "host" as const,
    start: "2030-01-08T13:00:00-08:00",
    expires_at: "2030-01-07T20:00:00Z",
    offer: OFFER,
  },
};

describe("§5.11 the SDK answers a counter", () => {
  it("§5.11 SDK: acceptProposal sends proposal_id, accept, the booking's sequence and the offer's hash", async () => {
    const { client, sent } = recordingClient();
    const r = await client.acceptProposal({ endpoint: ENDPOINT }, booking, {
      mandate: "m",
      idempotencyKey: "k1",
    });
    expect(r.ok).toBe(false);
    expect(sent).toEqual([
      {
        url: `${ENDPOINT}/bookings/b_1/proposal-response`,
        body: {
          proposal_id: "p_1",
          accept: true,
          sequence: 2,
          offer_sha256: offerSha256(OFFER),
          idempotency_key: "k1",
        },
      },
    ]);
  });

  it("§5.11 SDK: declineProposal sends accept false and no hash", async () => {
    const { client, sent } = recordingClient();
    await client.declineProposal({ endpoint: ENDPOINT }, booking);
    expect(sent[0]?.body).toMatchObject({ proposal_id: "p_1", accept: false, sequence: 2 });
    expect(sent[0]?.body).not.toHaveProperty("offer_sha256");
    expect(typeof sent[0]?.body["idempotency_key"]).toBe("string");
  });

  it("§5.11 SDK: a booking without a proposal by the host sends nothing", async () => {
    const { client, sent } = recordingClient();
    const none = await client.acceptProposal({ endpoint: ENDPOINT }, { booking_id: "b_1", sequence: 0 });
    expect(none.ok || none.error.code).toBe("offer_invalid");
    const guests = await client.declineProposal(
      { endpoint: ENDPOINT },
      { ...booking, proposal: { ...booking.proposal, by: "guest" } },
    );
    expect(guests.ok).toBe(false);
    expect(sent).toEqual([]);
  });
});
