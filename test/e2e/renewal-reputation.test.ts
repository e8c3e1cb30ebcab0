/**
 * End to end over HTTP on Redis, with the clock moved forward:
 * - §3.3 Renewal: "Moving the booking later does not extend it, and hosts MUST NOT treat a
 *   reschedule as renewing any credential": a management mandate lives to its own exp however
 *   far the booking moves; the key app's fresh one (over the moved booking's verified receipt)
 *   is what works after it.
 * - §7.3: "An operator SHOULD keep reputation per subject across its tenants too: an agent that
 *   abandons holds at one salon on a platform is the same agent at the next": holds abandoned at
 *   one embedded host suspend the agent's holds at another.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt } from "../../src/agent/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { openRedis } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, type TestRedis, uniquePrefix } from "../support/redis.js";
import {
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  refusalOf,
} from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import { CALLBACK_ORIGIN, startWebhookSink, type WebhookSink } from "./support/webhooks.js";

let redis: TestRedis;
let prefix: string;
let gw: E2eGateway;
let sink: WebhookSink;
beforeAll(async () => {
  redis = await startTestRedis();
  prefix = uniquePrefix("renewal-e2e");
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

describe("§3.3 Renewal: a reschedule renews no credential", () => {
  it("§3.3 §5.7 after a reschedule to a later day, the management mandate still expires at its own exp (401 mandate_expired); a fresh one over the moved receipt works", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, "fades-on-queen");
    const [slot] = await freeSlots(agent, gw, fades, "haircut", { fromDays: 2 });
    const later = (await freeSlots(agent, gw, fades, "haircut", { fromDays: 4 }))[0];
    const booked = await holdAndBook(agent, fades, "haircut", slot!.start);
    const id = booked.booking.booking.booking_id;
    // Lives until the booking's end plus an hour (§3.3 "the reference key app uses the booking's
    // end plus one hour").
    const manage = await agent.keyApp.managementMandate(booked.booking, { agent: agent.key });
    const seq = booked.booking.booking.sequence;
    const change = must(
      await agent.client.changeOffer(
        fades,
        id,
        { sequence: seq, start: later!.start },
        { mandate: manage.compact },
      ),
      "change-offer",
    );
    const changeHash = offerSha256(change.body.proposal.offer);
    const moved = must(
      await agent.client.reschedule(
        fades,
        id,
        { sequence: seq, offer_sha256: changeHash },
        { mandate: manage.compact },
      ),
      "reschedule",
    );
    const verified = must(
      await verifyBookingReceipt(moved.body, fades, { bookingId: id, offerSha256: changeHash }),
      "moved receipt",
    );
    expect(Date.parse(verified.booking.start)).toBe(Date.parse(later!.start));

    // Past the mandate's exp (the old end plus an hour), before the new start.
    const oldEnd = Date.parse(booked.booking.booking.end!);
    gw.clock.advance(oldEnd + 3_600_000 + 60_000 - gw.clock.now());
    expect(gw.clock.now()).toBeLessThan(Date.parse(later!.start));
    const read = refusalOf(await agent.client.getBooking(fades, id, { mandate: manage.compact }));
    expect(read).toMatchObject({ status: 401, code: "MANDATE_INVALID", reason: "mandate_expired" });
    const cancel = refusalOf(await agent.client.cancel(fades, id, {}, { mandate: manage.compact }));
    expect(cancel).toMatchObject({ status: 401, code: "MANDATE_INVALID", reason: "mandate_expired" });

    // The key app renews after verifying the moved booking's receipt: valid until the new end.
    const renewed = await agent.keyApp.managementMandate(verified, { agent: agent.key });
    const cancelled = must(
      await agent.client.cancel(fades, id, {}, { mandate: renewed.compact }),
      "cancel under the renewed mandate",
    );
    expect(cancelled.body.booking.status).toBe("cancelled");
  }, 60_000);
});

describe("§7.3 reputation per subject across the operator's tenants", () => {
  it("§7.3 an agent whose holds lapsed at one host (five straight expiries) gets no hold at another host of the same operator; a new agent still does", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    const fades = await discover(agent, gw, "fades-on-queen");
    const [mapleSlot] = await freeSlots(agent, gw, maple, "oil-change", { fromDays: 6 });
    const [fadesSlot] = await freeSlots(agent, gw, fades, "haircut", { fromDays: 6 });
    const callback = `${CALLBACK_ORIGIN}/hooks/${agent.key.thumbprint}`;
    const atMaple = await openMandate(agent, maple.hostId);
    for (let i = 0; i < 5; i++) {
      const held = must(
        await agent.client.hold(
          maple,
          { service_id: "oil-change", start: mapleSlot!.start, ttl: "PT1M", callback_url: callback },
          { mandate: atMaple.compact },
        ),
        `hold ${i + 1} at maple`,
      );
      gw.clock.advance(61_000);
      // The sweeper records the expiry for the agent and the principal, then sends hold.expired.
      await sink.waitFor((e) => e.type === "hold.expired" && e.hold?.hold_id === held.body.hold_id);
    }
    const atFades = await openMandate(agent, fades.hostId);
    const refused = refusalOf(
      await agent.client.hold(
        fades,
        { service_id: "haircut", start: fadesSlot!.start },
        { mandate: atFades.compact },
      ),
    );
    expect(refused).toMatchObject({ status: 429, code: "HOLD_LIMIT", reason: "holds_suspended" });

    const other = newAgent(gw);
    const otherMandate = await openMandate(other, fades.hostId);
    const granted = must(
      await other.client.hold(
        fades,
        { service_id: "haircut", start: fadesSlot!.start },
        { mandate: otherMandate.compact },
      ),
      "another agent's hold at fades",
    );
    expect(granted.status).toBe(201);
  }, 60_000);
});
