/**
 * A Servicialo host whose platform books a service only against prepayment (v1.2.0 "3.
 * book_session", Error Responses: 402 PAYMENT_REQUIRED; "Error Recovery": "Inform user that
 * prepayment is needed, do NOT collect payment"), through both edges of one real gateway,
 * against the loopback Servicialo fake (support/fake-servicialo.ts, `prepaid`):
 *
 * - SchCP over HTTP: the confirm is refused 501 UNSUPPORTED, reason payment_required (the
 *   gateway's registration; §8 "There are no payment errors"), whose contact remedy carries the
 *   business's own page (§8: "through a link it gives in a refusal's contact remedy") beside the
 *   phone the host publishes; no retry is offered, nothing is booked upstream, and the hold
 *   goes back to held (the confirm's rule for a definitive upstream refusal);
 * - OSBP, the adapter over the same core in process: booking.create answers
 *   requires_payment_handoff, not retryable, and the time is given back.
 *
 * Neither edge marks the host unhealthy: a 402 is the platform's answer, not a failure.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyHoldOffer } from "../../src/agent/index.js";
import { SERVICIALO_PLATFORM } from "../../src/connectors/servicialo/index.js";
import { createCoreAdapter } from "../../src/edges/osbp/adapter/index.js";
import { MemoryIdempotencyStore } from "../../src/edges/osbp/idempotency/memory.js";
import {
  extractApprovalToken,
  type AdapterResult,
  type BookingCreateInput,
  type Problem,
  type Slot as OsbpSlot,
} from "../../src/protocol/osbp/index.js";
import { instantToWallClock } from "../../src/protocol/time/index.js";
import { DAY_MS, discover, freeSlots, must, newAgent, openMandate, refusalOf } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import {
  FakeServicialoServer,
  SERVICIALO_API_KEY,
  SERVICIALO_ORG,
  SERVICIALO_PROVIDERS,
  SERVICIALO_SERVICE,
  SERVICIALO_TZ,
} from "./support/fake-servicialo.js";

const HOST = "clinica-prepago";
/** The business's own page for prepayment (host settings paymentUrl: the 402 names none). */
const PAY = "https://clinica-demo.example/pagar?servicio=lactancia";
/** What the host publishes in discovery (§9.2 contact remedy). */
const CONTACT = { phone: "+56-2-2345-6789", url: "https://clinica-demo.example/contacto" };

const servicialo = new FakeServicialoServer();
let gw: E2eGateway;
let dir: string;

beforeAll(async () => {
  const origin = await servicialo.start();
  servicialo.prepaid.add(SERVICIALO_SERVICE);
  dir = mkdtempSync(join(tmpdir(), "e2e-payment-"));
  gw = await startGateway({
    config: {
      hosts: [
        {
          id: HOST,
          name: "Clinica Demo",
          kind: "business",
          timezone: SERVICIALO_TZ,
          contact: CONTACT,
          connector: {
            type: "servicialo",
            settings: {
              baseUrl: origin,
              orgSlug: SERVICIALO_ORG,
              apiKey: SERVICIALO_API_KEY,
              timezone: SERVICIALO_TZ,
              providers: SERVICIALO_PROVIDERS,
              fallbackClientEmail: "reservas@clinica-demo.example",
              // The operator's statement says no prepayment; the platform asks for it anyway
              // (a per-service rule the services list does not show).
              paymentRequirement: "none",
              paymentUrl: PAY,
              timeoutMs: 5_000,
            },
          },
          policies: { confirmation: "instant", retention: "P365D" },
          services: [],
        },
      ],
    },
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await servicialo.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function health(): Promise<{ health: string; last_error?: unknown }> {
  const res = await fetch(`${gw.origin}/operator/v0/${HOST}/health`, { headers: gw.operatorAuth });
  expect(res.status).toBe(200);
  return (await res.json()) as { health: string; last_error?: unknown };
}

describe("SchCP: a confirm the platform answers 402 PAYMENT_REQUIRED", { timeout: 120_000 }, () => {
  it("is 501 UNSUPPORTED payment_required, the business's page as the contact remedy, the hold kept held", async () => {
    const agent = newAgent(gw);
    const host = await discover(agent, gw, HOST);
    const slots = await freeSlots(agent, gw, host, SERVICIALO_SERVICE, { fromDays: 2, toDays: 9 });
    expect(slots.length).toBeGreaterThan(0);
    const m = await openMandate(agent, HOST);
    const hold = must(
      await agent.client.hold(
        host,
        { service_id: SERVICIALO_SERVICE, start: slots[0]!.start },
        { mandate: m.compact },
      ),
      "hold",
    );
    const held = must(await verifyHoldOffer(hold.body, host), "verify offer");
    const booksBefore = servicialo.books().length;

    const answer = await agent.client.confirm(
      host,
      hold.body.hold_id,
      { offer_sha256: held.offer.sha256, idempotency_key: "prepaid-1" },
      { mandate: m.compact },
    );
    const r = refusalOf(answer);
    expect(r.status).toBe(501);
    expect(r).toMatchObject({ code: "UNSUPPORTED", reason: "payment_required" });
    // The link the host gave for this refusal, with the phone it publishes; the published url
    // gives way to it. The agent's request carried no URL at all.
    expect(r.remedies).toEqual([{ type: "contact", phone: CONTACT.phone, url: PAY }]);
    // No retry: trying again cannot help until the person has dealt with the business.
    expect(r.retry).toBeUndefined();
    expect(answer.ok ? undefined : answer.error.retryAfterSec).toBeUndefined();

    // One create reached the platform, which made nothing; it was not retried.
    expect(servicialo.books().length).toBe(booksBefore + 1);
    expect(servicialo.live()).toHaveLength(0);
    // confirm.ts: a definitive refusal gives the hold back to held (not released): the agent
    // may release it, or it lapses at its TTL.
    const kept = must(
      await agent.client.getHold(host, hold.body.hold_id, { mandate: m.compact }),
      "get hold",
    );
    expect(kept.body.status).toBe("held");
    // A refusal is not a failing upstream.
    expect(await health()).toMatchObject({ health: "ok" });
    must(await agent.client.releaseHold(host, hold.body.hold_id, { mandate: m.compact }), "release");
  });
});

// ---- OSBP: the adapter over the gateway's own core --------------------------------------

const pad = (n: number) => String(n).padStart(2, "0");
function localDate(ms: number): string {
  const w = instantToWallClock(ms, SERVICIALO_TZ);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}`;
}
function valueOf<T>(r: AdapterResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.problem)}`);
  return r.value;
}
function problemOf(r: AdapterResult<unknown>): Problem {
  if (r.ok) throw new Error(`expected a problem, got ${JSON.stringify(r.value)}`);
  return r.problem;
}

describe("OSBP: booking.create on a host whose platform answers 402", { timeout: 120_000 }, () => {
  it("is requires_payment_handoff, not retryable, with the business's page; nothing booked, the time given back", async () => {
    const adapter = createCoreAdapter({
      core: gw.runtime.service,
      platform: SERVICIALO_PLATFORM,
      hostId: HOST,
      idempotency: new MemoryIdempotencyStore(),
      clock: gw.clock,
      logger: { warn: () => undefined, error: () => undefined },
    });
    let slot: OsbpSlot | undefined;
    let date = "";
    for (let d = 4; d < 14 && slot === undefined; d++) {
      date = localDate(gw.clock.now() + d * DAY_MS);
      slot = valueOf(await adapter.findAvailability({ service_id: SERVICIALO_SERVICE, date }))[0];
    }
    if (slot === undefined) throw new Error("no Servicialo slot in 10 days");
    const [, time] = slot.starts_at_local.split("T") as [string, string];
    const input: BookingCreateInput = {
      idempotency_key: "osbp-prepaid-1",
      service_id: SERVICIALO_SERVICE,
      schedule_id: slot.schedule_id,
      ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
      date,
      time: time.slice(0, 5),
      customer: { display_name: "Ana Rojas", email: "ana@example.org", phone: "+56912345678" },
      mandate: {
        id: "mnd_prepaid_1",
        expires_at: new Date(gw.clock.now() + 20 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
        allowed_actions: ["booking.create"],
        organization_id: slot.organization_id,
        earliest_start: `${date}T00:00:00`,
        latest_end: `${date}T23:59:00`,
        max_price: { amount_minor: 100_000, currency: "CLP" },
      },
    };
    const challenge = problemOf(await adapter.createBooking(input));
    expect(challenge.code).toBe("requires_user_confirmation");
    const token = extractApprovalToken(challenge.message);
    expect(token).toBeDefined();
    const booksBefore = servicialo.books().length;

    const p = problemOf(
      await adapter.createBooking({ ...input, approval: { confirmed: true, token: token! } }),
    );
    expect(p).toMatchObject({ code: "requires_payment_handoff", retryable: false });
    expect(p.message).toContain(PAY);
    expect(p.message).not.toContain("ana@example.org");
    expect(servicialo.books().length).toBe(booksBefore + 1);
    expect(servicialo.live()).toHaveLength(0);
    // The direct path releases the hold when the platform definitely made nothing: the time
    // is offered again.
    const again = valueOf(await adapter.findAvailability({ service_id: SERVICIALO_SERVICE, date }));
    expect(again.some((s) => s.starts_at === slot.starts_at && s.provider_id === slot.provider_id)).toBe(
      true,
    );
    expect(await health()).toMatchObject({ health: "ok" });
  });
});
