/**
 * SchCP §5.9 end to end, over real HTTP on Redis: a booking cancelled frees its time to the
 * waitlist first (waitlist.offered to the first entry, signed, with the hold and the entry),
 * each lapse moves the offer down the line (the entry lapsed, the next offered), at most three
 * offers per freed time, then the time is public; confirming an offer makes its entry booked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyHoldOffer } from "../../src/agent/index.js";
import type { WebhookEvent } from "../../src/protocol/schcp/types.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../support/redis.js";
import {
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  refusalOf,
  type E2eAgent,
} from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import { CALLBACK_ORIGIN, startWebhookSink, verifyDelivery, type WebhookSink } from "./support/webhooks.js";
import type { DiscoveredHost, IssuedMandate } from "../../src/agent/index.js";
import { openRedis } from "../../src/redis/client.js";
import { extractApprovalToken } from "../../src/protocol/osbp/index.js";
import { formatInstant, instantToWallClock } from "../../src/protocol/time/index.js";
import { osbpSession } from "./support/osbp-in-process.js";

const HOST = "fades-on-queen";
const OFFER_TTL_MS = 2 * 60_000; // the embedded default's offer_ttl, PT2M

let redis: TestRedis;
let prefix: string;
let gw: E2eGateway;
let sink: WebhookSink;
beforeAll(async () => {
  redis = await startTestRedis();
  prefix = uniquePrefix("waitlist-e2e");
  sink = await startWebhookSink();
  gw = await startGateway({
    redisUrl: redis.url,
    redisKeyPrefix: prefix,
    runtime: { webhookFetch: sink.transport, workers: { sweepMs: 100 } },
  });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await sink?.close();
  if (redis !== undefined) {
    const client = openRedis(redis.url);
    await dropPrefix(client, prefix);
    client.disconnect();
    await redis.stop();
  }
});

interface InLine {
  readonly agent: E2eAgent;
  readonly mandate: IssuedMandate;
  readonly waitlistId: string;
  readonly callback: string;
}

async function joinLine(host: DiscoveredHost, start: string, end: string): Promise<InLine> {
  const agent = newAgent(gw);
  const mandate = await openMandate(agent, HOST);
  const callback = `${CALLBACK_ORIGIN}/hooks/${agent.key.thumbprint}`;
  const joined = must(
    await agent.client.joinWaitlist(
      host,
      { service_id: "haircut", window: { start, end }, callback_url: callback },
      { mandate: mandate.compact },
    ),
    "join",
  );
  expect(joined.status).toBe(201);
  expect(joined.body.status).toBe("waiting");
  return { agent, mandate, waitlistId: joined.body.waitlist_id, callback };
}

const offeredTo = (line: InLine) => (e: WebhookEvent) =>
  e.type === "waitlist.offered" && e.waitlist?.waitlist_id === line.waitlistId;

describe("§5.9 waitlist over HTTP on Redis", () => {
  it("discovery publishes policies.waitlist and the waitlist capability", async () => {
    const host = await discover(newAgent(gw), gw, HOST);
    expect(host.document.capabilities).toContain("waitlist");
    expect(host.document.policies.waitlist).toEqual({ offer_ttl: "PT2M", max_entries_per_agent: 2 });
  });

  it("§5.9 an offer that lapses moves down a line of three, then the time is public", async () => {
    const booker = newAgent(gw);
    const host = await discover(booker, gw, HOST);
    const [slot] = await freeSlots(booker, gw, host, "haircut", { fromDays: 4 });
    const booked = await holdAndBook(booker, host, "haircut", slot!.start);
    const line = [
      await joinLine(host, slot!.start, slot!.end!),
      await joinLine(host, slot!.start, slot!.end!),
      await joinLine(host, slot!.start, slot!.end!),
      await joinLine(host, slot!.start, slot!.end!),
    ];
    const second = must(
      await line[1]!.agent.client.getWaitlistEntry(host, line[1]!.waitlistId, {
        mandate: line[1]!.mandate.compact,
      }),
      "get",
    );
    expect(second.body.position).toBe(2);

    // The guest cancels: the time goes to the first entry, in the step that frees it.
    const manage = await booker.keyApp.managementMandate(booked.booking, {
      agent: booker.key,
      scope: ["cancel"],
    });
    must(
      await booker.client.cancel(host, booked.booking.booking.booking_id, {}, { mandate: manage.compact }),
      "cancel",
    );

    const heldIds: string[] = [];
    for (const [i, entry] of line.slice(0, 3).entries()) {
      const { event, delivery } = await sink.waitFor(offeredTo(entry));
      expect(delivery.url).toBe(entry.callback);
      expect(await verifyDelivery(delivery, host.keys, Math.floor(gw.clock.now() / 1000))).toEqual({
        ok: true,
        why: "",
      });
      expect(event.waitlist?.status).toBe("offered");
      expect(event.hold?.start).toBe(slot!.start);
      expect((await verifyHoldOffer(event.hold!, host)).ok).toBe(true);
      heldIds.push(event.hold!.hold_id);
      // While the offer holds the freed time, the public cannot take that barber's time: the
      // freed time is held by the entry (read back through GET).
      const read = must(
        await entry.agent.client.getWaitlistEntry(host, entry.waitlistId, { mandate: entry.mandate.compact }),
        "get offered",
      );
      expect(read.body).toMatchObject({ status: "offered", hold_id: event.hold!.hold_id });
      // The offer lapses: the entry is lapsed and (for the first two) the next entry is offered.
      gw.clock.advance(OFFER_TTL_MS + 1_000);
      await expect
        .poll(
          async () => {
            const r = await entry.agent.client.getWaitlistEntry(host, entry.waitlistId, {
              mandate: entry.mandate.compact,
            });
            return r.ok ? r.value.body.status : "error";
          },
          { timeout: 8_000 },
        )
        .toBe("lapsed");
      expect(i).toBeLessThan(3);
    }
    expect(new Set(heldIds).size).toBe(3);

    // After the third lapse the time is public: the fourth entry is not offered it…
    await new Promise((r) => setTimeout(r, 500));
    expect(sink.deliveries.some((d) => new TextDecoder().decode(d.body).includes(line[3]!.waitlistId))).toBe(
      false,
    );
    const fourth = must(
      await line[3]!.agent.client.getWaitlistEntry(host, line[3]!.waitlistId, {
        mandate: line[3]!.mandate.compact,
      }),
      "get 4th",
    );
    expect(fourth.body.status).toBe("waiting");
    // …and a fourth agent holds it as any hold.
    const walkIn = newAgent(gw);
    const m = await openMandate(walkIn, HOST);
    const held = must(
      await walkIn.client.hold(host, { service_id: "haircut", start: slot!.start }, { mandate: m.compact }),
      "public hold",
    );
    expect(held.status).toBe(201);
  }, 120_000);

  it("§5.9 confirming the offered hold (naming its offer hash) makes the entry booked; window_too_short and waitlist_limit refuse", async () => {
    const booker = newAgent(gw);
    const host = await discover(booker, gw, HOST);
    const [slot] = await freeSlots(booker, gw, host, "haircut", { fromDays: 6 });
    const booked = await holdAndBook(booker, host, "haircut", slot!.start);
    const entry = await joinLine(host, slot!.start, slot!.end!);

    // window_too_short: a window shorter than the service could never be offered anything.
    const short = refusalOf(
      await entry.agent.client.joinWaitlist(
        host,
        {
          service_id: "haircut",
          window: { start: slot!.start, end: slot!.start.replace(/:00(?=[-+Z])/, ":01") },
        },
        { mandate: entry.mandate.compact },
      ),
    );
    expect(short).toMatchObject({ status: 400, code: "INVALID_REQUEST", reason: "window_too_short" });
    // max_entries_per_agent 2: one more joins, the third is 429 HOLD_LIMIT waitlist_limit.
    must(
      await entry.agent.client.joinWaitlist(
        host,
        { service_id: "haircut", window: { start: slot!.start, end: slot!.end! } },
        { mandate: entry.mandate.compact },
      ),
      "second entry",
    );
    const third = refusalOf(
      await entry.agent.client.joinWaitlist(
        host,
        { service_id: "haircut", window: { start: slot!.start, end: slot!.end! } },
        { mandate: entry.mandate.compact },
      ),
    );
    expect(third).toMatchObject({ status: 429, code: "HOLD_LIMIT", reason: "waitlist_limit" });

    const manage = await booker.keyApp.managementMandate(booked.booking, {
      agent: booker.key,
      scope: ["cancel"],
    });
    must(
      await booker.client.cancel(host, booked.booking.booking.booking_id, {}, { mandate: manage.compact }),
      "cancel",
    );
    const { event } = await sink.waitFor(offeredTo(entry));
    const verified = must(await verifyHoldOffer(event.hold!, host), "verify offer");
    must(
      await entry.agent.client.confirm(
        host,
        event.hold!.hold_id,
        { offer_sha256: verified.offer.sha256 },
        { mandate: entry.mandate.compact },
      ),
      "confirm offer",
    );
    const after = must(
      await entry.agent.client.getWaitlistEntry(host, entry.waitlistId, { mandate: entry.mandate.compact }),
      "get booked",
    );
    expect(after.body.status).toBe("booked");
    // Leaving a booked entry changes nothing; leaving is idempotent.
    const left = must(
      await entry.agent.client.leaveWaitlist(host, entry.waitlistId, { mandate: entry.mandate.compact }),
      "leave",
    );
    expect(left.body.status).toBe("booked");
  }, 60_000);

  it("§5.9 cross-edge: while a waitlist offer holds the freed time, an OSBP and an A2A booking of it are refused", async () => {
    const TZ = "America/Toronto";
    const MARCUS = "barber-marcus";
    const booker = newAgent(gw);
    const host = await discover(booker, gw, HOST);
    const [slot] = await freeSlots(booker, gw, host, "haircut", { fromDays: 8 });
    const start = formatInstant(Date.parse(slot!.start), TZ);
    const m = await openMandate(booker, HOST);
    const hold = must(
      await booker.client.hold(
        host,
        { service_id: "haircut", start, resource: MARCUS },
        { mandate: m.compact },
      ),
      "hold marcus",
    );
    const held = must(await verifyHoldOffer(hold.body, host), "offer");
    const confirmed = must(
      await booker.client.confirm(
        host,
        hold.body.hold_id,
        { offer_sha256: held.offer.sha256 },
        { mandate: m.compact },
      ),
      "confirm",
    );
    const entry = await joinLine(host, slot!.start, slot!.end!);
    must(
      await booker.client.cancel(host, confirmed.body.booking.booking_id, {}, { mandate: m.compact }),
      "cancel",
    );
    const { event } = await sink.waitFor(offeredTo(entry));
    expect(event.hold?.start).toBe(slot!.start);

    // A2A books barber-marcus by default: the offered hold has his freed time.
    const a2a = await fetch(`${gw.origin}/api/servicialo/${HOST}/book`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ clientEmail: "walkin@mail.example", serviceId: "haircut", scheduledAt: start }),
    });
    expect(a2a.status).toBe(409);

    // OSBP booking.create for barber-marcus at that time: slot taken.
    const osbp = await osbpSession(gw, HOST);
    try {
      const w = instantToWallClock(Date.parse(slot!.start), TZ);
      const pad = (n: number) => String(n).padStart(2, "0");
      const date = `${w.year}-${pad(w.month)}-${pad(w.day)}`;
      const input = {
        idempotency_key: `wl-xedge-${entry.waitlistId}`,
        service_id: "haircut",
        schedule_id: HOST,
        provider_id: MARCUS,
        date,
        time: `${pad(w.hour)}:${pad(w.minute)}`,
        customer: { display_name: "Ada Lovelace", email: "ada@mail.example", phone: "+14165550100" },
        mandate: {
          id: `mnd_${entry.waitlistId}`,
          expires_at: new Date(gw.clock.now() + 20 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
          allowed_actions: ["booking.create"],
          organization_id: HOST,
          earliest_start: `${date}T00:00:00`,
          latest_end: `${date}T23:59:00`,
          max_price: { amount_minor: 1_000_000, currency: "CAD" },
        },
      };
      let answer = await osbp.call("booking.create", input);
      if (!answer.ok && answer.problem.code === "requires_user_confirmation") {
        const token = extractApprovalToken(answer.problem.message);
        answer = await osbp.call("booking.create", { ...input, approval: { confirmed: true, token } });
      }
      expect(answer.ok).toBe(false);
      if (!answer.ok) expect(answer.problem.code).toBe("slot_taken");
    } finally {
      await osbp.close();
    }
  }, 60_000);
  it("§5.9 §9.1 a replay of POST /waitlist with the same idempotency_key returns the same entry; DELETE /waitlist/{id} makes it left", async () => {
    const agent = newAgent(gw);
    const host = await discover(agent, gw, HOST);
    const [slot] = await freeSlots(agent, gw, host, "haircut", { fromDays: 10 });
    const mandate = await openMandate(agent, HOST);
    const opts = { mandate: mandate.compact };
    const body = {
      idempotency_key: `wl-replay-${agent.key.thumbprint.slice(0, 12)}`,
      service_id: "haircut",
      window: { start: slot!.start, end: slot!.end! },
    };
    const first = must(await agent.client.joinWaitlist(host, body, opts), "join");
    expect(first.status).toBe(201);
    const replay = must(await agent.client.joinWaitlist(host, body, opts), "replay");
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    // The replay took no place in the line: under max_entries_per_agent 2 another key still joins.
    const other = must(
      await agent.client.joinWaitlist(host, { ...body, idempotency_key: `${body.idempotency_key}-2` }, opts),
      "second entry",
    );
    expect(other.body.waitlist_id).not.toBe(first.body.waitlist_id);

    const left = must(await agent.client.leaveWaitlist(host, first.body.waitlist_id, opts), "leave");
    expect(left.status).toBe(200);
    expect(left.body).toMatchObject({ waitlist_id: first.body.waitlist_id, status: "left" });
    expect(left.body.position).toBeUndefined();
    const read = must(await agent.client.getWaitlistEntry(host, first.body.waitlist_id, opts), "get left");
    expect(read.body.status).toBe("left");
    // Leaving one entry leaves the agent's other entry waiting.
    const still = must(await agent.client.getWaitlistEntry(host, other.body.waitlist_id, opts), "get other");
    expect(still.body.status).toBe("waiting");
  }, 60_000);
});
