/**
 * npm run demo:schcp — one agent's walk through SchCP against a running gateway:
 * discover -> availability -> hold -> consent text -> confirm -> receipt -> cancel.
 *
 * It uses only the agent SDK (src/agent/), over HTTP, as any agent would: fresh agent and
 * principal keys, an open mandate to look and hold, a closed mandate over the exact offer the
 * person read (§5.3), and a management mandate to cancel (§3.3). Every hold, offer, booking
 * and receipt is verified against the discovery keys before it is shown.
 *
 *   GATEWAY_URL  the gateway's public origin (default http://127.0.0.1:8787)
 *   HOST_ID      which host (default: maple-street-auto when listed, else the first)
 *   SERVICE_ID   which service (default: the host's first)
 *   OPERATOR_TOKEN  the operator credential, to say why a host offers nothing (default: read from
 *                   $GATEWAY_DATA_DIR/operator-token, or .gateway/operator-token where `npm start`
 *                   keeps it; without it the demo still runs, and says less when a host fails)
 */
import {
  KeyApp,
  SchcpClient,
  createAgentKey,
  describeAgentError,
  verifyBookingReceipt,
  verifyHoldOffer,
} from "../src/agent/index.js";
import type { AgentError } from "../src/agent/index.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatInstant } from "../src/protocol/time/index.js";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const baseUrl = (process.env["GATEWAY_URL"] ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
let step = 0;

function show(title: string, lines: readonly string[] = []): void {
  step += 1;
  process.stdout.write(`\n${step}. ${title}\n`);
  for (const line of lines) process.stdout.write(`   ${line}\n`);
}

function fail(what: string, error: AgentError | string): never {
  const detail = typeof error === "string" ? error : describeAgentError(error);
  process.stderr.write(`\ndemo:schcp: ${what} failed: ${detail}\n`);
  process.exit(1);
}

/** The operator credential, when this machine has it (see OPERATOR_TOKEN above). */
function operatorToken(): string | undefined {
  const given = process.env["OPERATOR_TOKEN"];
  if (given !== undefined && given !== "") return given;
  try {
    const file = join(process.env["GATEWAY_DATA_DIR"] ?? ".gateway", "operator-token");
    return readFileSync(file, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a host offers nothing, from the operator API's health view (GET /operator/v0/{host}/health):
 * a degraded host or one that needs reconnecting names its last error there. A sentence, or
 * a hint on where to look when the credential is not at hand.
 */
async function healthOf(hostId: string): Promise<string> {
  const token = operatorToken();
  const where = `${baseUrl}/operator/v0/${encodeURIComponent(hostId)}/health`;
  if (token === undefined)
    return `its health is at ${where} (set OPERATOR_TOKEN to the operator credential and the demo says it here)`;
  try {
    const res = await fetch(where, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) return `its health could not be read (${where} answered ${res.status})`;
    const h = (await res.json()) as {
      health?: string;
      since?: string;
      last_error?: { message?: string; code?: string };
    };
    if (h.health === "ok") return "its health is ok";
    const why = h.last_error?.message ?? h.last_error?.code ?? "no error recorded";
    return `the host is ${h.health ?? "in an unknown state"} since ${h.since ?? "?"}: ${why}`;
  } catch (e) {
    return `its health could not be read (${e instanceof Error ? e.message : String(e)})`;
  }
}

async function main(): Promise<void> {
  process.stdout.write(`SchCP demo against ${baseUrl}\n`);
  const agentKey = createAgentKey();
  const keyApp = new KeyApp({
    principalKey: createAgentKey(),
    contact: { name: "Sam R.", phone: "+1-416-555-0100" },
  });
  const client = new SchcpClient({ agentKey });

  const op = await client.discoverOperator(baseUrl);
  if (!op.ok) {
    if (op.error.code === "network") {
      process.stderr.write(
        `demo:schcp: no gateway answers at ${baseUrl} (${op.error.message}).\n` +
          `Start one with \`npm start\` in another terminal, or set GATEWAY_URL to where it runs.\n`,
      );
      process.exit(2);
    }
    fail("reading the operator document", op.error);
  }
  const listing =
    op.value.document.hosts.find((h) => h.id === (process.env["HOST_ID"] ?? "maple-street-auto")) ??
    op.value.document.hosts[0];
  if (listing === undefined) fail("choosing a host", `${op.value.url} lists no hosts`);
  show(`Discover: ${op.value.document.operator.name} (${op.value.document.operator.domain})`, [
    `operator document ${op.value.url}`,
    ...op.value.document.hosts.map((h) => `host ${h.id}: ${h.discovery}`),
  ]);

  const disc = await client.discoverHost(listing.discovery);
  if (!disc.ok) fail(`discovering ${listing.id}`, disc.error);
  const host = disc.value;
  const doc = host.document;
  const wanted = process.env["SERVICE_ID"];
  const service = doc.services.find((s) => s.id === (wanted ?? doc.services[0]?.id));
  if (service === undefined)
    fail(
      "choosing a service",
      doc.services.length === 0
        ? `${host.hostId} offers no service right now; ${await healthOf(host.hostId)}`
        : `${host.hostId} has no service ${JSON.stringify(wanted)}; it offers ${doc.services.map((s) => s.id).join(", ")}`,
    );
  show(`Host: ${doc.host.name} (${host.hostId}, ${doc.host.timezone})`, [
    `endpoint ${host.endpoint}, authorized by §2.2 rule ${host.authorization.rule}: ${host.authorization.basis}`,
    `signing keys: ${host.keys.map((k) => k.kid).join(", ")}; confirmation: ${doc.policies.confirmation ?? "instant"}`,
    `service ${service.id} "${service.name}", ${service.duration}` +
      (service.price === undefined
        ? ", no price"
        : `, ${service.price.currency} ${service.price.amount} before tax`),
    `agent key ${agentKey.thumbprint}; principal ${keyApp.principal}`,
  ]);

  // From tomorrow, on the hour, for a week: whole times read better than "05:01:16.529".
  const now = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS;
  const open = await keyApp.issueMandate({
    agent: agentKey,
    audience: host.hostId,
    scope: ["hold"],
    constraints: { services: [service.id] },
    ttlSec: 1800,
    consent: { mode: "human_present", statement: `Find me a ${service.name} this week.` },
  });
  const window = {
    start: formatInstant(now + DAY_MS, doc.host.timezone),
    end: formatInstant(now + 8 * DAY_MS, doc.host.timezone),
  };
  const avail = await client.availability(
    host,
    { service_id: service.id, window, limit: 5 },
    { mandate: open.compact },
  );
  if (!avail.ok) fail("availability", `${describeAgentError(avail.error)}; ${await healthOf(host.hostId)}`);
  const slot = avail.value.body.slots[0];
  show(`Availability for ${service.id}, ${window.start} to ${window.end}`, [
    ...avail.value.body.slots.map(
      (s) =>
        `${s.start}${s.end === undefined ? " (open-ended)" : ` – ${s.end}`}${s.total === undefined ? "" : `  total ${s.total.currency} ${s.total.amount}`}`,
    ),
    `as of ${avail.value.body.as_of}`,
  ]);
  if (slot === undefined)
    fail("availability", `no free slot in the next week; ${await healthOf(host.hostId)}`);

  const held = await client.hold(
    host,
    { service_id: service.id, start: slot.start, ttl: "PT5M" },
    { mandate: open.compact },
  );
  if (!held.ok) fail("placing the hold", held.error);
  const verifiedHold = await verifyHoldOffer(held.value.body, host);
  if (!verifiedHold.ok) fail("verifying the hold's offer", verifiedHold.error);
  const offer = verifiedHold.value.offer;
  show(`Hold ${held.value.body.hold_id} (HTTP ${held.value.status})`, [
    `${held.value.body.start} – ${held.value.body.end ?? "open"}, expires ${held.value.body.expires_at}`,
    `offer signed by ${offer.kid}, verified against discovery; offer_sha256 ${offer.sha256}`,
    ...(offer.claims.lines ?? []).map(
      (l) => `${l.kind.padEnd(8)} ${l.label}: ${l.amount.currency} ${l.amount.amount}`,
    ),
  ]);

  const closed = await keyApp.closedMandate(held.value.body.offer, host, { agent: agentKey });
  if (!closed.ok) fail("the key app's consent", closed.error);
  show("Consent text (rendered by the key app from the signed offer)", [
    `"${closed.value.consentText}"`,
    `the person approves; the key app signs a closed mandate over exactly this offer (jti ${closed.value.jti})`,
  ]);

  const confirmed = await client.confirm(
    host,
    held.value.body.hold_id,
    { offer_sha256: offer.sha256, contact: { name: "Sam R.", phone: "+1-416-555-0100" } },
    { mandate: closed.value.compact },
  );
  if (!confirmed.ok) fail("confirming", confirmed.error);
  const booked = await verifyBookingReceipt(confirmed.value.body, host, {
    offerSha256: offer.sha256,
    mandateJti: closed.value.jti,
    retention: offer.claims.retention,
  });
  if (!booked.ok) fail("verifying the receipt", booked.error);
  const b = booked.value.booking;
  show(`Confirm: booking ${b.booking_id} is ${b.status} (HTTP ${confirmed.value.status})`, [
    `${b.start} – ${b.end ?? "open"}, sequence ${b.sequence}` +
      (b.total === undefined ? "" : `, total ${b.total.currency} ${b.total.amount}`),
    `calendar event: "${b.event.title}" ${b.event.start} ${b.event.timeZone} for ${b.event.duration} (${b.event.status})`,
  ]);
  const r = booked.value.receipt;
  show("Receipt (host-signed, verified against the discovery keys)", [
    `issuer ${r.iss}, contract ${r.offer_sha256 ?? "none"}, retention ${r.retention}`,
    `consent: approved by ${r.consent?.approved ?? "?"} under mandate ${r.consent?.mandate ?? "?"} (${r.consent?.mode ?? "mode not stated"})`,
  ]);

  const manage = await keyApp.managementMandate(booked.value, { agent: agentKey, scope: ["cancel"] });
  const cancelled = await client.cancel(
    host,
    b.booking_id,
    { reason: "demo over" },
    { mandate: manage.compact },
  );
  if (!cancelled.ok) fail("cancelling", cancelled.error);
  const after = await verifyBookingReceipt(cancelled.value.body, host, {
    bookingId: b.booking_id,
    retention: offer.claims.retention,
  });
  if (!after.ok) fail("verifying the cancellation receipt", after.error);
  show(`Cancel under a management mandate for ${b.booking_id} only (jti ${manage.jti})`, [
    `status ${after.value.booking.status}, sequence ${after.value.booking.sequence}; free, and nothing recorded against the guest (§5.6)`,
    `new receipt verified; event status ${after.value.booking.event.status}`,
  ]);
  process.stdout.write("\nDone.\n");
}

main().catch((e: unknown) => fail("the demo", e instanceof Error ? e.message : String(e)));
