/**
 * SchCP §3.4 end to end, over real HTTP, on Redis (and in memory): three garages that list
 * "dc+sd-jwt" in auth.mandates and one that does not. A key app with a P-256 principal key
 * (ES256, the profile's own) issues one SD-JWT VC mandate naming the three, each with its own
 * host_constraints; the agent presents it at one garage through the SDK client (a fresh KB-JWT
 * per request), holds and confirms, and the gateway refuses what §3.4 and §3.2 refuse: the
 * exact request replayed, the presentation from another agent key, after 300 s, at another
 * garage, with a KB-JWT for another garage, and at a host that does not list dc+sd-jwt.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  KeyApp,
  SchcpClient,
  createAgentKey,
  createP256PrincipalKey,
  sdJwtPresenter,
  verifyBookingReceipt,
  verifyHoldOffer,
} from "../../src/agent/index.js";
import type { AgentKey, DiscoveredHost, IssuedSdJwt, MandatePresenter } from "../../src/agent/index.js";
import { sdHash, signJws } from "../../src/protocol/schcp/mandate/sd-jwt/index.js";
import { randomToken } from "../../src/protocol/random.js";
import { formatInstant } from "../../src/protocol/time/index.js";
import { openRedis } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix } from "../support/redis.js";
import type { TestRedis } from "../support/redis.js";
import { DAY_MS, must, refusalOf } from "./support/agents.js";
import { startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

const MAPLE = "maple-street-auto";
const QUEEN = "queen-west-garage";
const DUNDAS = "dundas-auto";
/** A garage that does not list dc+sd-jwt. */
const PLAIN = "plain-garage";

function garage(id: string, sdJwt: boolean) {
  return {
    id,
    name: id,
    kind: "business",
    timezone: "America/Toronto",
    domain: null,
    address: { locality: "Toronto", region: "ON", country: "CA" },
    connector: { type: "synthetic", settings: { scenario: "maple-street-auto" } },
    policies: { confirmation: "instant", retention: "P365D", ...(sdJwt && { sd_jwt_mandates: true }) },
    services: [],
  };
}

const CONFIG = {
  hosts: [garage(MAPLE, true), garage(QUEEN, true), garage(DUNDAS, true), garage(PLAIN, false)],
};

const stores: Array<[string, boolean]> = [
  ["redis", true],
  ["memory", false],
];

describe.each(stores)("§3.4 SD-JWT VC mandates end to end (%s store)", (_label, useRedis) => {
  let redis: TestRedis | undefined;
  const redisKeyPrefix = uniquePrefix("sdjwt");
  let gw: E2eGateway;
  let agentKey: AgentKey;
  let client: SchcpClient;
  let keyApp: KeyApp;
  const hosts = new Map<string, DiscoveredHost>();
  let issued: IssuedSdJwt;
  let atMaple: MandatePresenter;

  const host = (id: string) => hosts.get(id)!;

  async function slots(at: DiscoveredHost, serviceId: string, mandate: MandatePresenter | string) {
    const now = gw.clock.now();
    const tz = at.document.host.timezone;
    const r = await client.availability(
      at,
      {
        service_id: serviceId,
        window: { start: formatInstant(now + 2 * DAY_MS, tz), end: formatInstant(now + 9 * DAY_MS, tz) },
        limit: 20,
      },
      { mandate },
    );
    return must(r, `availability at ${at.hostId}`).body.slots;
  }

  beforeAll(async () => {
    if (useRedis) redis = await startTestRedis();
    gw = await startGateway({
      config: CONFIG,
      ...(redis !== undefined && { redisUrl: redis.url, redisKeyPrefix }),
    });
    agentKey = createAgentKey();
    client = new SchcpClient({ agentKey, clock: gw.clock });
    keyApp = new KeyApp({ principalKey: createP256PrincipalKey(), clock: gw.clock });
    for (const id of [MAPLE, QUEEN, DUNDAS, PLAIN]) {
      hosts.set(
        id,
        must(await client.discoverHost(`${gw.origin}/hosts/${id}/scheduling.json`), `discover ${id}`),
      );
    }
    // One consent, three garages, each with its own limits (§3.3 "One consent, several hosts", §3.4).
    issued = keyApp.issueSdJwtMandate({
      agent: agentKey,
      scope: ["hold", "book", "cancel"],
      constraints: { max_bookings: 1 },
      hosts: {
        [MAPLE]: { services: ["oil-change"], max_price: { amount: "100.00", currency: "CAD" } },
        [QUEEN]: {
          services: ["oil-change", "brake-inspection"],
          max_price: { amount: "200.00", currency: "CAD" },
        },
        [DUNDAS]: {},
      },
      consent: {
        mode: "human_present",
        statement: "One oil change at Maple under $100, or brakes at Queen West.",
      },
    });
    atMaple = sdJwtPresenter(issued.sdJwt, { host: host(MAPLE), agentKey, clock: gw.clock });
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    if (redis !== undefined) {
      const c = openRedis(redis.url);
      for (const prefix of [redisKeyPrefix, `{${redisKeyPrefix}`]) await dropPrefix(c, prefix);
      await c.quit();
      await redis.stop();
    }
  });

  it("§3.4: discovery lists dc+sd-jwt in auth.mandates only at hosts configured to accept it", () => {
    for (const id of [MAPLE, QUEEN, DUNDAS]) {
      expect(host(id).document.auth?.mandates).toEqual(["schcp-mandate+jwt", "dc+sd-jwt"]);
    }
    expect(host(PLAIN).document.auth?.mandates).toEqual(["schcp-mandate+jwt"]);
  });

  it("§3.4: the agent presents the mandate at one garage, holds and confirms; the receipt names its jti", async () => {
    const maple = host(MAPLE);
    const [slot] = await slots(maple, "oil-change", atMaple);
    const hold = must(
      await client.hold(maple, { service_id: "oil-change", start: slot!.start }, { mandate: atMaple }),
      "hold",
    );
    const held = must(await verifyHoldOffer(hold.body, maple), "verify offer");
    const reply = must(
      await client.confirm(
        maple,
        hold.body.hold_id,
        { offer_sha256: held.offer.sha256, contact: { name: "Sam R." } },
        { mandate: atMaple },
      ),
      "confirm",
    );
    const booked = must(
      await verifyBookingReceipt(reply.body, maple, {
        offerSha256: held.offer.sha256,
        mandateJti: issued.jti,
      }),
      "receipt",
    );
    expect(booked.booking.status).toBe("confirmed");
    expect(booked.booking.service_id).toBe("oil-change");
  });

  it("§3.4 / §3.3 check 6: this garage's host_constraints member binds (services), another garage's does not", async () => {
    const r = await client.hold(
      host(MAPLE),
      {
        service_id: "brake-inspection",
        start: (await slots(host(MAPLE), "brake-inspection", atMaple))[0]!.start,
      },
      { mandate: atMaple },
    );
    const refusal = refusalOf(r);
    expect(refusal.status).toBe(403);
    expect(refusal.code).toBe("MANDATE_SCOPE");
    // At Queen West the same credential allows brake inspections: its own member says so.
    const atQueen = sdJwtPresenter(issued.sdJwt, { host: host(QUEEN), agentKey, clock: gw.clock });
    const [slot] = await slots(host(QUEEN), "brake-inspection", atQueen);
    const hold = must(
      await client.hold(
        host(QUEEN),
        { service_id: "brake-inspection", start: slot!.start },
        { mandate: atQueen },
      ),
      "hold at Queen West",
    );
    must(
      await client.releaseHold(host(QUEEN), hold.body.hold_id, { mandate: atQueen }),
      "release at Queen West",
    );
  });

  it("§3.4 / §3.3 check 6: max_bookings counts under (root iss, jti) at this garage: a second hold at Maple is refused", async () => {
    const maple = host(MAPLE);
    const [, second] = await slots(maple, "oil-change", atMaple);
    const refusal = refusalOf(
      await client.hold(maple, { service_id: "oil-change", start: second!.start }, { mandate: atMaple }),
    );
    expect(refusal.status).toBe(403);
    expect(refusal.code).toBe("MANDATE_LIMIT");
  });

  it("§3.2: the exact signed request replayed is refused (each request signature is single-use)", async () => {
    const maple = host(MAPLE);
    const presented = must(atMaple.present(), "present");
    const req = {
      method: "POST",
      url: `${maple.endpoint}/availability`,
      body: {
        service_id: "oil-change",
        window: {
          start: formatInstant(gw.clock.now() + 2 * DAY_MS, "America/Toronto"),
          end: formatInstant(gw.clock.now() + 3 * DAY_MS, "America/Toronto"),
        },
      },
      mandate: presented,
      created: Math.floor(gw.clock.now() / 1000),
      nonce: randomToken(16),
    };
    const first = must(await client.signedFetch(req), "first send");
    expect(first.status).toBe(200);
    const again = must(await client.signedFetch(req), "replay");
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("BAD_SIGNATURE");
  });

  it("§3.4 / §3.2: the request signature covers the presentation byte for byte: one swapped under it is BAD_SIGNATURE", async () => {
    const maple = host(MAPLE);
    const signedFor = must(atMaple.present(), "present");
    const swapped = must(atMaple.present(), "present another");
    const res = must(
      await client.signedFetch({
        method: "GET",
        url: `${maple.endpoint}/holds/h_unknown`,
        mandate: signedFor,
        headers: { "schcp-mandate": swapped },
      }),
      "send",
    );
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("BAD_SIGNATURE");
  });

  it("§3.4: the presentation sent by another agent key is refused (cnf.jwk must sign the request)", async () => {
    const presented = must(atMaple.present(), "present");
    const thief = new SchcpClient({ agentKey: createAgentKey(), clock: gw.clock });
    const refusal = refusalOf(await thief.getHold(host(MAPLE), "h_unknown", { mandate: presented }));
    expect([refusal.status, refusal.code]).toEqual([401, "MANDATE_INVALID"]);
  });

  it("§3.4: the presentation made for Maple is refused at Queen West", async () => {
    const presented = must(atMaple.present(), "present");
    const refusal = refusalOf(await client.getHold(host(QUEEN), "h_unknown", { mandate: presented }));
    expect([refusal.status, refusal.code]).toEqual([401, "MANDATE_INVALID"]);
  });

  it("§3.4: a KB-JWT whose aud is another garage is refused, even with this garage's disclosures", async () => {
    const presented = must(atMaple.present(), "present");
    const parts = presented.split("~");
    const disclosures = parts.slice(1, -1);
    const kb = signJws(
      { typ: "kb+jwt" },
      {
        aud: QUEEN,
        nonce: "n-wrong-aud",
        iat: Math.floor(gw.clock.now() / 1000),
        sd_hash: sdHash(parts[0]!, disclosures),
      },
      agentKey,
    );
    const wrongAud = [...parts.slice(0, -1), kb].join("~");
    const refusal = refusalOf(await client.getHold(host(MAPLE), "h_unknown", { mandate: wrongAud }));
    expect([refusal.status, refusal.code]).toEqual([401, "MANDATE_INVALID"]);
    expect(refusal.message).toMatch(/KB-JWT aud/);
  });

  it("§3.4: a host that does not list dc+sd-jwt refuses an SD-JWT VC presentation, 401 MANDATE_INVALID", async () => {
    const plainIssued = keyApp.issueSdJwtMandate({
      agent: agentKey,
      scope: ["hold"],
      hosts: { [PLAIN]: {} },
    });
    const atPlain = sdJwtPresenter(plainIssued.sdJwt, { host: host(PLAIN), agentKey, clock: gw.clock });
    const refusal = refusalOf(await client.getHold(host(PLAIN), "h_unknown", { mandate: atPlain }));
    expect([refusal.status, refusal.code]).toEqual([401, "MANDATE_INVALID"]);
  });

  it("§3.4: a presentation more than 300 s old is refused; a fresh one from the same credential is not", async () => {
    const presented = must(atMaple.present(), "present");
    gw.clock.advance(301_000);
    const stale = refusalOf(await client.getHold(host(MAPLE), "h_unknown", { mandate: presented }));
    expect([stale.status, stale.code]).toEqual([401, "MANDATE_INVALID"]);
    // The presenter signs a new KB-JWT for every request: the same credential still works.
    const fresh = await client.getHold(host(MAPLE), "h_unknown", { mandate: atMaple });
    expect(refusalOf(fresh).code).not.toBe("MANDATE_INVALID");
  });
});
