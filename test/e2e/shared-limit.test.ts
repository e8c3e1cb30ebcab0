/**
 * End to end over real HTTP, on Redis: SchCP §3.3 "One consent, several hosts" and check 7.
 * The principal's key app is the agent SDK's KeyAppStatusService on loopback (reachable because
 * the gateway runs with STATUS_ALLOW_PRIVATE's setting, as the embedded default does); the
 * agent uses only the SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyAppStatusService } from "../../src/agent/index.js";
import type { RunningKeyAppStatus } from "../../src/agent/index.js";
import { openRedis } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import { discover, freeSlots, holdAndBook, must, newAgent, refusalOf } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import { localhostCertificate } from "../support/local-tls.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";

const A = "maple-street-auto";
const B = "fades-on-queen";

let redis: TestRedis;
let prefix: string;
let gw: E2eGateway;
let keyApp: KeyAppStatusService;
let keyAppServer: RunningKeyAppStatus;

beforeAll(async () => {
  redis = await startTestRedis();
  prefix = uniquePrefix("e2e-shared");
  // Status URLs are https (MandateClaims): the key app serves its own certificate for
  // localhost, which the gateway is told to trust, as docs/schcp.md describes for a developer.
  const tls = localhostCertificate();
  keyApp = new KeyAppStatusService();
  keyAppServer = await keyApp.listen({ tls });
  gw = await startGateway({
    redisUrl: redis.url,
    redisKeyPrefix: prefix,
    runtime: { statusAllowPrivate: true, statusCa: [tls.cert], workers: false },
  });
}, 60_000);

afterAll(async () => {
  await gw.close();
  await keyAppServer.close();
  const client = openRedis(redis.url);
  await dropPrefix(client, prefix);
  await client.quit();
  await redis.stop();
});

describe("§3.3 shared booking limit across two hosts, over HTTP on Redis", () => {
  it("§3.3 aud [A, B], shared_limit, max_bookings 1: booked at A; B refused 403 MANDATE_LIMIT shared_limit_reached; cancel at A gives the unit back; B books", async () => {
    const agent = newAgent(gw);
    const jti = `m-shared-${Date.now()}`;
    keyApp.register(jti, { maxBookings: 1 });
    const mandate = await agent.keyApp.issueSharedLimitMandate({
      agent: agent.key,
      audience: [A, B],
      scope: ["hold", "book", "cancel"],
      maxBookings: 1,
      status: keyAppServer.statusUrl(jti),
      jti,
    });
    const hostA = await discover(agent, gw, A);
    const hostB = await discover(agent, gw, B);
    const [slotA] = await freeSlots(agent, gw, hostA, "oil-change", {
      fromDays: 3,
      mandate: mandate.compact,
    });
    const [slotB] = await freeSlots(agent, gw, hostB, "haircut", { fromDays: 3, mandate: mandate.compact });

    const atA = await holdAndBook(agent, hostA, "oil-change", slotA!.start, mandate);
    expect(atA.reply.status).toBe(201);
    expect(keyApp.record(jti)?.claims).toEqual([`${A}/${atA.held.hold.hold_id}`]);
    expect(keyApp.remaining(jti)).toBe(0);

    // Host B counts only its own bookings; the key app says none are left.
    const hold = must(
      await agent.client.hold(
        hostB,
        { service_id: "haircut", start: slotB!.start },
        { mandate: mandate.compact },
      ),
      "hold at B",
    );
    const refused = refusalOf(
      await agent.client.confirm(
        hostB,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer) },
        { mandate: mandate.compact },
      ),
    );
    expect(refused).toMatchObject({ status: 403, code: "MANDATE_LIMIT", reason: "shared_limit_reached" });
    expect(keyApp.record(jti)?.claims).toHaveLength(1);

    // The guest's cancel at A gives the unit back before it answers.
    must(
      await agent.client.cancel(hostA, atA.booking.booking.booking_id, {}, { mandate: mandate.compact }),
      "cancel at A",
    );
    expect(keyApp.record(jti)?.claims).toEqual([]);
    expect(keyApp.remaining(jti)).toBe(1);

    // The same hold at B (it still counts against B's own max_bookings), confirmed again.
    const atB = must(
      await agent.client.confirm(
        hostB,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer) },
        { mandate: mandate.compact },
      ),
      "confirm at B",
    );
    expect(atB.status).toBe(201);
    expect(keyApp.record(jti)?.claims).toEqual([`${B}/${hold.body.hold_id}`]);
  }, 60_000);

  it("§3.3 check 7: revoked at the key app, the next request is refused 401 MANDATE_INVALID", async () => {
    const agent = newAgent(gw);
    const jti = `m-revoke-${Date.now()}`;
    keyApp.register(jti);
    const mandate = await agent.keyApp.issueMandate({
      agent: agent.key,
      audience: A,
      scope: ["hold", "book", "cancel"],
      status: keyAppServer.statusUrl(jti),
      jti,
    });
    const hostA = await discover(agent, gw, A);
    const [slot] = await freeSlots(agent, gw, hostA, "oil-change", { fromDays: 4, mandate: mandate.compact });
    expect(slot).toBeDefined();

    keyApp.revoke(jti);
    // Check 7 is best effort: a link's "active" is reused for a short while (30 s), then asked again.
    gw.clock.advance(31_000);
    const r = refusalOf(
      await agent.client.hold(
        hostA,
        { service_id: "oil-change", start: slot!.start },
        { mandate: mandate.compact },
      ),
    );
    expect(r).toMatchObject({ status: 401, code: "MANDATE_INVALID", reason: "mandate_invalid" });
  }, 60_000);

  it("§3.3 check 7 is best effort: a key app that is down does not refuse", async () => {
    const agent = newAgent(gw);
    const mandate = await agent.keyApp.issueMandate({
      agent: agent.key,
      audience: A,
      scope: ["hold", "book"],
      // Nothing listens here: the status is "unknown".
      status: "https://localhost:9/status/m-gone",
    });
    const hostA = await discover(agent, gw, A);
    const slots = await freeSlots(agent, gw, hostA, "oil-change", { fromDays: 5, mandate: mandate.compact });
    expect(slots.length).toBeGreaterThan(0);
  }, 60_000);
});
