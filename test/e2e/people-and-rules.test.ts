/**
 * SchCP §7.7 people as hosts and §7.9 who says yes, over real HTTP on Redis: a person's calendar
 * (kind "person", host_approval, its owner named in config) beside a business that confirms at
 * once and one that approves each booking.
 *
 * - every offer of the person host names host.kind "person" and host.owner (§5.2);
 * - the owner's own booking is confirmed at once, answer by "person" (§7.9 Owners);
 * - a rule the owner signed, kept through the operator API, confirms a booking it covers at once
 *   with answer by "rule" and the rule's label, on the booking and in its signed receipt;
 *   answers: "person" makes the booking wait for the person instead;
 * - rules only say yes: a booking the rule does not cover waits, and the person's decline is by
 *   "person"; the person's approval is by "person" too; a business's is by "host";
 * - a guest's move the rule covers is made at once (§5.7 step 3), answer by rule.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentKey, KeyApp, SchcpClient, verifyBookingReceipt } from "../../src/agent/index.js";
import type { AgentKey, DiscoveredHost } from "../../src/agent/index.js";
import { jwkThumbprint, principalUrn } from "../../src/protocol/jose/index.js";
import { signCompactJws } from "../../src/protocol/jose/jws.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { parseInstant } from "../../src/protocol/time/index.js";
import { openRedis, type RedisClient } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import {
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  operator,
  type E2eAgent,
} from "./support/agents.js";
import { defaultConfig, startGateway, type E2eGateway } from "./support/gateway.js";
import { osbpBook, osbpSession } from "./support/osbp-in-process.js";

const PERSON = "fades-on-queen";
const DENTAL = "harbourview-dental";
const MAPLE = "maple-street-auto";

const owner: AgentKey = createAgentKey();
const OWNER = principalUrn(owner.thumbprint);
const stranger: AgentKey = createAgentKey();

let redis: TestRedis;
let raw: RedisClient;
let gw: E2eGateway;
const P = uniquePrefix("people");

beforeAll(async () => {
  redis = await startTestRedis();
  raw = openRedis(redis.url);
  const config = defaultConfig();
  const fades = config.hosts.find((h) => h.id === PERSON);
  if (fades === undefined) throw new Error("no fades");
  // A person's calendar: the person asks to be asked (§7.7), and names their own principal.
  fades["kind"] = "person";
  fades["owner"] = OWNER;
  fades.policies = { confirmation: "host_approval", retention: "P365D" };
  gw = await startGateway({ config, redisUrl: redis.url, redisKeyPrefix: P, runtime: { workers: false } });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  if (raw !== undefined) {
    await dropPrefix(raw, P);
    raw.disconnect();
  }
  await redis?.stop();
});

/** An agent whose key app holds `principalKey`: its mandates are that principal's. */
function agentOf(principalKey: AgentKey): E2eAgent {
  const key = createAgentKey();
  return {
    key,
    client: new SchcpClient({ agentKey: key, clock: gw.clock }),
    keyApp: new KeyApp({ principalKey, clock: gw.clock }),
  };
}

/** The thumbprint of the key the host signs with (its first discovery key). */
function hostKeyThumbprint(host: DiscoveredHost): string {
  const key = host.document.keys[0];
  if (key === undefined) throw new Error("no host key");
  return jwkThumbprint(key);
}

async function signRule(
  signer: AgentKey,
  claims: Record<string, unknown>,
  typ = "schcp-rule+jwt",
): Promise<string> {
  const iat = Math.floor(gw.clock.now() / 1000);
  return signCompactJws(
    { typ },
    {
      iss: principalUrn(signer.thumbprint),
      principal_jwk: signer.publicJwk,
      iat,
      exp: iat + 30 * 86_400,
      jti: "r-haircuts",
      label: "Haircuts with anyone",
      ...claims,
    },
    signer.privateKey,
  );
}

async function rulesApi(method: "GET" | "POST" | "DELETE", path = "", body?: unknown) {
  const res = await fetch(`${gw.origin}/operator/v0/${PERSON}/rules${path}`, {
    method,
    headers: { ...gw.operatorAuth, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("§7.7 people as hosts and §7.9 answers over HTTP on Redis", { timeout: 90_000 }, () => {
  let person: DiscoveredHost;
  let slots: Array<{ start: string }>;
  let next = 0;
  const slot = (): string => slots[next++]!.start;

  beforeAll(async () => {
    const a = newAgent(gw);
    person = await discover(a, gw, PERSON);
    slots = await freeSlots(a, gw, person, "haircut", { fromDays: 2, toDays: 9, limit: 50 });
  });

  it("§5.2/§7.7: discovery says kind person; every offer names host.kind person and host.owner", async () => {
    expect(person.document.host.kind).toBe("person");
    const a = newAgent(gw);
    const m = await openMandate(a, PERSON);
    const hold = must(
      await a.client.hold(person, { service_id: "haircut", start: slot() }, { mandate: m.compact }),
      "hold",
    );
    const payload = JSON.parse(Buffer.from(hold.body.offer.split(".")[1]!, "base64url").toString()) as {
      host: Record<string, unknown>;
    };
    expect(payload.host).toMatchObject({ kind: "person", owner: OWNER, name: "Fades on Queen" });
    must(await a.client.releaseHold(person, hold.body.hold_id, { mandate: m.compact }), "release");
  });

  it("§7.9 Owners: the owner's own booking at their host_approval calendar is confirmed at once, answer by person", async () => {
    const me = agentOf(owner);
    const booked = await holdAndBook(me, person, "haircut", slot());
    expect(booked.reply.status).toBe(201);
    expect(booked.booking.booking.status).toBe("confirmed");
    expect(booked.booking.booking.answer).toMatchObject({ by: "person" });
    expect(booked.booking.booking.answer?.rule).toBeUndefined();
  });

  it("§7.9 without a rule a stranger's booking waits; the person's yes and no are by person, a business's by host", async () => {
    const guest = agentOf(stranger);
    const one = await holdAndBook(guest, person, "haircut", slot());
    expect(one.reply.status).toBe(202);
    expect(one.booking.booking.answer).toBeUndefined();
    const approved = await operator(gw, PERSON, `/bookings/${one.booking.booking.booking_id}/approve`, {});
    expect(approved.status).toBe(200);
    const read = must(
      await guest.client.getBooking(person, one.booking.booking.booking_id, { mandate: one.mandate.compact }),
      "read",
    );
    const receipt = must(
      await verifyBookingReceipt(read.body, person, { bookingId: one.booking.booking.booking_id }),
      "receipt",
    );
    expect(receipt.booking).toMatchObject({ status: "confirmed", answer: { by: "person" } });

    const two = await holdAndBook(guest, person, "haircut", slot());
    const declined = await operator(gw, PERSON, `/bookings/${two.booking.booking.booking_id}/decline`, {});
    expect(declined.status).toBe(200);
    const gone = must(
      await guest.client.getBooking(person, two.booking.booking.booking_id, { mandate: two.mandate.compact }),
      "read declined",
    );
    expect(gone.body.booking).toMatchObject({ status: "declined", answer: { by: "person" } });

    // A business: instant confirmation is its standing yes; its approval is the host's too.
    const biz = newAgent(gw);
    const maple = await discover(biz, gw, MAPLE);
    const [m1] = await freeSlots(biz, gw, maple, "oil-change", { fromDays: 3, toDays: 5, limit: 1 });
    const instant = await holdAndBook(biz, maple, "oil-change", m1!.start);
    expect(instant.booking.booking).toMatchObject({ status: "confirmed", answer: { by: "host" } });
    const dental = await discover(biz, gw, DENTAL);
    const [d1] = await freeSlots(biz, gw, dental, "cleaning", { fromDays: 3, toDays: 5, limit: 1 });
    const asked = await holdAndBook(biz, dental, "cleaning", d1!.start);
    expect(asked.reply.status).toBe(202);
    const ok = await operator(gw, DENTAL, `/bookings/${asked.booking.booking.booking_id}/approve`, {});
    expect(ok.json).toMatchObject({ booking: { status: "confirmed" } });
    const dentalRead = must(
      await biz.client.getBooking(dental, asked.booking.booking.booking_id, {
        mandate: asked.mandate.compact,
      }),
      "dental read",
    );
    expect(dentalRead.body.booking.answer).toMatchObject({ by: "host" });
  });

  it("§7.9 the operator API keeps only the owner's rules, verified, never published", async () => {
    const jkt = hostKeyThumbprint(person);
    // Someone else's rule, a mandate's typ, an expired rule: refused.
    const theirs = await rulesApi("POST", "", { rule: await signRule(stranger, { cnf: { jkt } }) });
    expect(theirs.status).toBe(400);
    expect(JSON.stringify(theirs.json)).toContain("owner");
    const wrongTyp = await rulesApi("POST", "", {
      rule: await signRule(owner, { cnf: { jkt } }, "schcp-mandate+jwt"),
    });
    expect(wrongTyp.status).toBe(400);
    const expired = await rulesApi("POST", "", {
      rule: await signRule(owner, {
        cnf: { jkt },
        iat: Math.floor(gw.clock.now() / 1000) - 100,
        exp: Math.floor(gw.clock.now() / 1000) - 1,
      }),
    });
    expect(expired.status).toBe(400);
    const extra = await rulesApi("POST", "", { rule: "x", note: "hi" });
    expect(extra.status).toBe(400);
    // Without the operator credential, nothing.
    const anon = await fetch(`${gw.origin}/operator/v0/${PERSON}/rules`);
    expect(anon.status).toBe(401);
    // A business keeps no rules.
    const biz = await fetch(`${gw.origin}/operator/v0/${MAPLE}/rules`, {
      method: "POST",
      headers: { ...gw.operatorAuth, "content-type": "application/json" },
      body: JSON.stringify({ rule: await signRule(owner, { cnf: { jkt } }) }),
    });
    expect(biz.status).toBe(400);

    const rule = await signRule(owner, { cnf: { jkt }, services: ["haircut"] });
    const added = await rulesApi("POST", "", { rule });
    expect(added.status, JSON.stringify(added.json)).toBe(201);
    expect(added.json).toMatchObject({
      rule: { jws: rule, answerable: true, claims: { jti: "r-haircuts" } },
    });
    const listed = await rulesApi("GET");
    expect(listed.json).toMatchObject({ rules: [{ jws: rule, claims: { label: "Haircuts with anyone" } }] });
    // Not published: discovery says nothing of it.
    const doc = await fetch(`${gw.origin}/hosts/${PERSON}/scheduling.json`).then((r) => r.text());
    expect(doc).not.toContain("Haircuts with anyone");
  });

  it("§7.9 a covering rule confirms at once with answer by rule and its label; answers: person waits; a rule's cnf.jkt must be the calendar's key", async () => {
    const guest = agentOf(stranger);
    const covered = await holdAndBook(guest, person, "haircut", slot());
    expect(covered.reply.status).toBe(201);
    expect(covered.booking.booking).toMatchObject({
      status: "confirmed",
      answer: { by: "rule", rule: "Haircuts with anyone" },
    });
    const at = parseInstant(covered.booking.booking.answer?.at, "");
    if (!at.ok) throw new Error("answer.at is not an RFC 3339 instant");
    expect(gw.clock.now() - at.value.epochMs).toBeGreaterThanOrEqual(0);
    expect(gw.clock.now() - at.value.epochMs).toBeLessThan(10_000);

    // answers: "person": the host must not answer by rule.
    const m = await openMandate(guest, PERSON);
    const hold = must(
      await guest.client.hold(person, { service_id: "haircut", start: slot() }, { mandate: m.compact }),
      "hold",
    );
    const asked = must(
      await guest.client.confirm(
        person,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer), answers: "person" },
        { mandate: m.compact },
      ),
      "confirm answers person",
    );
    expect(asked.status).toBe(202);
    expect(asked.body.booking.status).toBe("pending_host");
    expect(asked.body.booking.answer).toBeUndefined();

    // A service the rule does not name: the person is asked.
    const consultation = await freeSlots(guest, gw, person, "consultation", {
      fromDays: 9,
      toDays: 12,
      limit: 1,
    });
    const other = await holdAndBook(guest, person, "consultation", consultation[0]!.start);
    expect(other.reply.status).toBe(202);

    // A rule naming another agent's key is kept but answers nothing here.
    const elsewhere = await signRule(owner, {
      cnf: { jkt: createAgentKey().thumbprint },
      jti: "r-phone",
      label: "Anything, by my phone",
    });
    const kept = await rulesApi("POST", "", { rule: elsewhere });
    expect(kept.json).toMatchObject({ rule: { answerable: false } });
    const removed = await rulesApi("DELETE", "/r-haircuts");
    expect(removed).toMatchObject({ status: 200, json: { removed: "r-haircuts" } });
    expect((await rulesApi("DELETE", "/r-haircuts")).status).toBe(404);
    const after = await holdAndBook(guest, person, "haircut", slot());
    expect(after.reply.status).toBe(202);
    expect(after.booking.booking.answer).toBeUndefined();
    await rulesApi("DELETE", "/r-phone");
  });

  it("§5.7 step 3: a guest's move a rule covers is made at once, answer by rule", async () => {
    const jkt = hostKeyThumbprint(person);
    const guest = agentOf(stranger);
    const first = await holdAndBook(guest, person, "haircut", slot());
    expect(first.reply.status).toBe(202);
    const id = first.booking.booking.booking_id;
    expect((await operator(gw, PERSON, `/bookings/${id}/approve`, {})).status).toBe(200);
    const rule = await signRule(owner, { cnf: { jkt }, jti: "r-moves", label: "Moves are fine" });
    expect((await rulesApi("POST", "", { rule })).status).toBe(201);
    const m = first.mandate.compact;
    const before = must(await guest.client.getBooking(person, id, { mandate: m }), "read");
    const seq = before.body.booking.sequence;
    const change = must(
      await guest.client.changeOffer(person, id, { sequence: seq, start: slot() }, { mandate: m }),
      "change-offer",
    );
    const moved = must(
      await guest.client.reschedule(
        person,
        id,
        { sequence: seq, offer_sha256: offerSha256(change.body.proposal.offer) },
        { mandate: m },
      ),
      "reschedule",
    );
    expect(moved.body.booking.sequence).toBe(seq + 1);
    expect(moved.body.booking.start).toBe(change.body.proposal.start);
    expect(moved.body.booking.proposal).toBeUndefined();
    expect(moved.body.booking.answer).toMatchObject({ by: "rule", rule: "Moves are fine" });

    // Every edge: an OSBP booking the rule covers is confirmed at once too, answered by the rule.
    const osbp = await osbpSession(gw, PERSON);
    try {
      const osbpId = await osbpBook(osbp, gw, {
        serviceId: "haircut",
        timezone: "America/Toronto",
        daysAhead: 10,
        key: "people-osbp-1",
      });
      const list = await operator(gw, PERSON, "/bookings");
      const seen = (list.json as { bookings: Array<{ booking: Record<string, unknown> }> }).bookings.find(
        (b) => b.booking["booking_id"] === osbpId,
      );
      expect(seen?.booking).toMatchObject({
        status: "confirmed",
        answer: { by: "rule", rule: "Moves are fine" },
      });
    } finally {
      await osbp.close();
    }
    await rulesApi("DELETE", "/r-moves");
  });
});
