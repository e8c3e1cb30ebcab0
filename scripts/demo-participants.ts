/**
 * npm run demo:participants — a booking other people take part in (SchCP §5.10), against a
 * running gateway: a parent books a haircut for themself, with their brother as a required
 * invitee and their child as a named-only attendee. The booking is tentative (202) until the
 * brother's own agent, under the brother's own mandate, reads it, verifies the contract the
 * host signed and accepts it by its hash; then it is confirmed. The parent cancels at the end,
 * so the demo leaves the host as it found it.
 *
 * It uses only the agent SDK (src/agent/), over HTTP, as any agent would.
 *
 *   GATEWAY_URL  the gateway's public origin (default http://127.0.0.1:8787)
 */
import {
  KeyApp,
  SchcpClient,
  createAgentKey,
  describeAgentError,
  verifyBookingReceipt,
  verifyHoldOffer,
  verifyParticipantBooking,
} from "../src/agent/index.js";
import type { AgentError, DiscoveredHost } from "../src/agent/index.js";
import type { Result } from "../src/protocol/result.js";
import { formatInstant } from "../src/protocol/time/index.js";

const DAY_MS = 86_400_000;
const HOST_ID = "fades-on-queen";
const baseUrl = (process.env["GATEWAY_URL"] ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
let step = 0;

function show(title: string, lines: readonly string[] = []): void {
  step += 1;
  process.stdout.write(`\n${step}. ${title}\n`);
  for (const line of lines) process.stdout.write(`   ${line}\n`);
}

function fail(what: string, error: AgentError | string): never {
  const detail = typeof error === "string" ? error : describeAgentError(error);
  process.stderr.write(`\ndemo:participants: ${what} failed: ${detail}\n`);
  process.exit(1);
}

function must<T>(r: Result<T, AgentError>, what: string): T {
  if (!r.ok) fail(what, r.error);
  return r.value;
}

/** One person: their agent's key and client, and their own key app (principal key). */
function person() {
  const agentKey = createAgentKey();
  return {
    agentKey,
    client: new SchcpClient({ agentKey }),
    keyApp: new KeyApp({ principalKey: createAgentKey() }),
  };
}

async function main(): Promise<void> {
  const parent = person();
  const brother = person();

  const listed = await parent.client.discoverOperator(baseUrl);
  if (!listed.ok) {
    process.stderr.write(
      `demo:participants: no gateway answers at ${baseUrl} (${describeAgentError(listed.error)}); start one with npm start\n`,
    );
    process.exit(2);
  }
  const entry = listed.value.document.hosts.find((h) => h.id === HOST_ID);
  if (entry === undefined) fail("discovery", `the gateway does not list ${HOST_ID}`);
  const host: DiscoveredHost = must(await parent.client.discoverHost(entry.discovery), "discover host");
  if (!(host.document.capabilities ?? []).includes("participants"))
    fail("discovery", `${HOST_ID} does not publish the participants capability (§5.10)`);
  const tentative = host.document.policies["tentative"] as { max_confirm_within?: string } | undefined;
  show(`Host: ${host.document.host.name} (${host.hostId}) takes participants`, [
    `policies.tentative.max_confirm_within: ${tentative?.max_confirm_within ?? "?"}`,
  ]);

  const service = host.document.services[0]?.id ?? "haircut";
  const tz = host.document.host.timezone;
  const now = Date.now();
  const slots = must(
    await parent.client.availability(host, {
      service_id: service,
      window: { start: formatInstant(now + 2 * DAY_MS, tz), end: formatInstant(now + 9 * DAY_MS, tz) },
      limit: 5,
    }),
    "availability",
  ).body.slots;
  const slot = slots[0];
  if (slot === undefined) fail("availability", `${HOST_ID} offers no ${service} in the next week`);

  const open = await parent.keyApp.issueMandate({
    agent: parent.agentKey,
    audience: host.hostId,
    scope: ["hold", "book", "cancel"],
  });
  const hold = must(
    await parent.client.hold(host, { service_id: service, start: slot.start }, { mandate: open.compact }),
    "hold",
  );
  const held = must(await verifyHoldOffer(hold.body, host), "verify the hold's offer");
  show(`The parent holds ${service} at ${slot.start} (hold ${hold.body.hold_id})`);

  const confirmed = must(
    await parent.client.confirm(
      host,
      hold.body.hold_id,
      {
        offer_sha256: held.offer.sha256,
        participants: [
          {
            who: brother.keyApp.principal,
            role: "invitee",
            relationship: "brother",
            confirm_within: "PT2H",
          },
          { name: "Mira", role: "attendee", relationship: "child" },
        ],
      },
      { mandate: open.compact },
    ),
    "confirm",
  );
  const booked = must(
    await verifyBookingReceipt(confirmed.body, host, {
      offerSha256: held.offer.sha256,
      mandateJti: open.jti,
      retention: held.offer.claims.retention,
    }),
    "verify the receipt",
  );
  const bookingId = booked.booking.booking_id;
  show(`Confirm: booking ${bookingId} is ${booked.booking.status} (HTTP ${confirmed.status})`, [
    ...(booked.booking.participants ?? []).map(
      (p) =>
        `${p.role} ${p.name ?? p.who ?? "?"}${p.relationship === undefined ? "" : ` (${p.relationship})`}: ${p.status}` +
        (p.confirm_by === undefined ? "" : `, answer by ${p.confirm_by}`),
    ),
  ]);

  // The brother's own key app grants his own agent a mandate (any scope will do, §5.10).
  const his = await brother.keyApp.issueMandate({
    agent: brother.agentKey,
    audience: host.hostId,
    scope: ["book"],
  });
  const read = must(
    await brother.client.getBooking(host, bookingId, { mandate: his.compact }),
    "brother reads",
  );
  const asked = must(
    await verifyParticipantBooking(read.body, host, brother.keyApp.principal),
    "verify the contract the brother is asked to accept",
  );
  show(`The brother's agent reads the booking and verifies the host's offer`, [
    `contract offer_sha256 ${asked.offer.sha256} (the booking names ${asked.booking.offer_sha256})`,
    `he is ${asked.participant.role}, ${asked.participant.status}`,
  ]);

  const answered = must(
    await brother.client.respond(host, bookingId, true, asked.offer.sha256, { mandate: his.compact }),
    "respond",
  );
  const after = must(await verifyBookingReceipt(answered.body, host), "verify the receipt after the answer");
  show(
    `The brother accepts: booking ${bookingId} is ${after.booking.status} (sequence ${after.booking.sequence})`,
  );

  const cancelled = must(
    await parent.client.cancel(host, bookingId, { reason: "demo over" }, { mandate: open.compact }),
    "cancel",
  );
  show(`The parent cancels: ${cancelled.body.booking.status}`);
  process.stdout.write("\nDone.\n");
}

main().catch((e: unknown) => fail("the demo", e instanceof Error ? e.message : String(e)));
