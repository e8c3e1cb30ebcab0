/**
 * npm run demo:waitlist — the SchCP §5.9 waitlist against a running gateway (the embedded
 * default's fades-on-queen keeps one): one agent books a barber's slot, a second joins the
 * waitlist for that time, the first cancels, and the freed time is offered to the second (in
 * the step that frees it), who confirms the offered hold naming its offer's hash.
 *
 * The offer reaches an agent as waitlist.offered at a public https callback_url; a gateway on
 * this machine cannot deliver to one here, so the second agent polls GET /waitlist/{id}, which
 * every agent must be able to do instead (§5.8 "Webhooks are an optimization").
 *
 *   GATEWAY_URL  the gateway's public origin (default http://127.0.0.1:8787)
 */
import {
  KeyApp,
  SchcpClient,
  createAgentKey,
  describeAgentError,
  verifyHoldOffer,
  type AgentError,
} from "../src/agent/index.js";
import { formatInstant } from "../src/protocol/time/index.js";

const HOST_ID = "fades-on-queen";
const BARBER = "barber-marcus";
const DAY_MS = 86_400_000;
const baseUrl = (process.env["GATEWAY_URL"] ?? "http://127.0.0.1:8787").replace(/\/+$/, "");

function fail(what: string, error: AgentError | string): never {
  process.stderr.write(
    `\ndemo:waitlist: ${what} failed: ${typeof error === "string" ? error : describeAgentError(error)}\n`,
  );
  process.exit(1);
}
const show = (line: string) => process.stdout.write(`${line}\n`);

function agent() {
  const key = createAgentKey();
  return {
    key,
    client: new SchcpClient({ agentKey: key }),
    keyApp: new KeyApp({ principalKey: createAgentKey() }),
  };
}

async function main(): Promise<void> {
  show(`SchCP waitlist demo against ${baseUrl}`);
  const first = agent();
  const second = agent();
  const disc = await first.client.discoverHost(`${baseUrl}/hosts/${HOST_ID}/scheduling.json`);
  if (!disc.ok) {
    if (disc.error.code === "network") {
      process.stderr.write(
        `demo:waitlist: no gateway answers at ${baseUrl}. Start one with \`npm start\`.\n`,
      );
      process.exit(2);
    }
    fail("discovery", disc.error);
  }
  const host = disc.value;
  const tz = host.document.host.timezone;
  if (!(host.document.capabilities ?? []).includes("waitlist"))
    fail("discovery", `${HOST_ID} keeps no waitlist`);
  show(`1. ${host.document.host.name} keeps a waitlist: ${JSON.stringify(host.document.policies.waitlist)}`);

  const m1 = await first.keyApp.issueMandate({
    agent: first.key,
    audience: HOST_ID,
    scope: ["hold", "book", "cancel"],
  });
  const now = Date.now();
  const avail = await first.client.availability(
    host,
    {
      service_id: "haircut",
      window: { start: formatInstant(now + 2 * DAY_MS, tz), end: formatInstant(now + 9 * DAY_MS, tz) },
      constraints: { resource: BARBER },
      limit: 1,
    },
    { mandate: m1.compact },
  );
  if (!avail.ok) fail("availability", avail.error);
  const slot = avail.value.body.slots[0];
  if (slot === undefined || slot.end === undefined)
    fail("availability", "no free haircut with Marcus this week");
  const hold = await first.client.hold(
    host,
    { service_id: "haircut", start: slot.start, resource: BARBER },
    { mandate: m1.compact },
  );
  if (!hold.ok) fail("the first agent's hold", hold.error);
  const offer1 = await verifyHoldOffer(hold.value.body, host);
  if (!offer1.ok) fail("verifying the offer", offer1.error);
  const booked = await first.client.confirm(
    host,
    hold.value.body.hold_id,
    { offer_sha256: offer1.value.offer.sha256 },
    { mandate: m1.compact },
  );
  if (!booked.ok) fail("the first agent's confirm", booked.error);
  const bookingId = booked.value.body.booking.booking_id;
  show(`2. The first agent books Marcus's ${slot.start} (booking ${bookingId})`);

  const m2 = await second.keyApp.issueMandate({
    agent: second.key,
    audience: HOST_ID,
    scope: ["hold", "book"],
  });
  const joined = await second.client.joinWaitlist(
    host,
    { service_id: "haircut", window: { start: slot.start, end: slot.end } },
    { mandate: m2.compact },
  );
  if (!joined.ok) fail("joining the waitlist", joined.error);
  const entry = joined.value.body;
  show(
    `3. The second agent joins the waitlist: ${entry.waitlist_id} ${entry.status}, position ${entry.position ?? "?"} (HTTP ${joined.value.status})`,
  );

  const cancelled = await first.client.cancel(
    host,
    bookingId,
    { reason: "plans changed" },
    { mandate: m1.compact },
  );
  if (!cancelled.ok) fail("the first agent's cancel", cancelled.error);
  show(`4. The first agent cancels: ${cancelled.value.body.booking.status}`);

  let holdId: string | undefined;
  for (let i = 0; i < 50 && holdId === undefined; i++) {
    const read = await second.client.getWaitlistEntry(host, entry.waitlist_id, { mandate: m2.compact });
    if (!read.ok) fail("reading the entry", read.error);
    if (read.value.body.status === "offered") holdId = read.value.body.hold_id;
    else await new Promise((r) => setTimeout(r, 100));
  }
  if (holdId === undefined) fail("waiting for the offer", "the freed time was not offered");
  const offered = await second.client.getHold(host, holdId, { mandate: m2.compact });
  if (!offered.ok) fail("reading the offered hold", offered.error);
  const verified = await verifyHoldOffer(offered.value.body, host);
  if (!verified.ok) fail("verifying the offered hold's offer", verified.error);
  show(
    `5. waitlist.offered: hold ${holdId} for ${offered.value.body.start}, expires ${offered.value.body.expires_at}, offer verified`,
  );

  const confirmed = await second.client.confirm(
    host,
    holdId,
    { offer_sha256: verified.value.offer.sha256 },
    { mandate: m2.compact },
  );
  if (!confirmed.ok) fail("confirming the offer", confirmed.error);
  const after = await second.client.getWaitlistEntry(host, entry.waitlist_id, { mandate: m2.compact });
  if (!after.ok) fail("reading the entry", after.error);
  show(
    `6. The second agent confirms: booking ${confirmed.value.body.booking.booking_id} ${confirmed.value.body.booking.status}; the entry is ${after.value.body.status}`,
  );
  show("\nDone.");
}

main().catch((e: unknown) => fail("the demo", e instanceof Error ? e.message : String(e)));
