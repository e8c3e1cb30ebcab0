/**
 * The agent SDK's meeting side (SchCP §5.12, §7.9): what KeyApp and a calendar agent sign
 * verifies with the pure verifiers a host uses, and the organizer's calls reach the right paths.
 */
import { describe, expect, it } from "vitest";
import {
  KeyApp,
  SchcpClient,
  commonStarts,
  createAgentKey,
  signRuleAcceptance,
} from "../../src/agent/index.js";
import type { MeetingContractRequest } from "../../src/agent/index.js";
import { sha256Base64Url } from "../../src/protocol/json/base64.js";
import {
  acceptanceContext,
  contractSha256,
  memberFor,
  verifyAcceptance,
  verifyMeetingContract,
} from "../../src/protocol/schcp/meeting/index.js";
import { ruleCovers, verifyRule } from "../../src/protocol/schcp/rule/index.js";
import type { MeetingMember } from "../../src/protocol/schcp/types.js";
import { ELLIS_ACCEPT_STATEMENT, PLAYDATE_STATEMENT } from "../protocol/schcp/meeting/support.js";

/** 2026-10-13T13:00:00Z. */
const T0 = 1792155600_000;
const clock = { now: () => T0 };

const noorKey = createAgentKey();
const ellisKey = createAgentKey();
const priyaKey = createAgentKey();
const noorApp = new KeyApp({ principalKey: noorKey, clock });
const ellisApp = new KeyApp({ principalKey: ellisKey, clock });
const priyaApp = new KeyApp({ principalKey: priyaKey, clock });
/** Ellis's calendar agent, which answers by his rule. */
const ellisCalendar = createAgentKey();

function member(name: string, host: string, principal: string): MeetingMember {
  return {
    principal,
    name,
    host,
    domain: null,
    service_id: "playdate",
    offer_sha256: sha256Base64Url(`offer-${host}`),
  };
}

function playdateRequest(): MeetingContractRequest {
  return {
    exp: T0 / 1000 + 43200,
    meeting_id: "mtg_playdate",
    revision: 1,
    title: "Playdate",
    tz: "America/Toronto",
    start: "2026-10-17T12:00:00-04:00",
    open_end: true,
    place: { name: "Trinity Bellwoods Park playground", locality: "Toronto" },
    members: [
      member("Noor Haddad", "noor-haddad", noorApp.principal),
      member("Ellis Moreau", "ellis-moreau", ellisApp.principal),
      member("Priya Shah", "priya-shah", priyaApp.principal),
    ],
    attendees: [{ name: "Mira", relationship: "child" }],
    answers: "person_or_rule",
  };
}

async function contract(req: MeetingContractRequest = playdateRequest()) {
  const signed = await noorApp.signMeetingContract(req);
  if (!signed.ok) throw new Error(signed.error.message);
  return signed.value;
}

describe("KeyApp.signMeetingContract (SchCP §5.12 step 4)", () => {
  it("signs a contract every calendar verifies, with iss, principal_jwk, iat and the statement filled in", async () => {
    const signed = await contract();
    const v = await verifyMeetingContract(signed.compact, { now: T0 });
    if (!v.ok) throw new Error(v.error.message);
    expect(v.value.organizer).toBe(noorApp.principal);
    expect(v.value.principalJwk).toEqual(noorKey.publicJwk);
    expect(v.value.claims.iat).toBe(T0 / 1000);
    expect(v.value.sha256).toBe(signed.sha256);
    expect(signed.sha256).toBe(contractSha256(signed.compact));
  });

  it("generates the statement from the claims: the spec's playdate text", async () => {
    const signed = await contract();
    expect(signed.statement).toBe(PLAYDATE_STATEMENT);
    expect(signed.claims.statement).toBe(PLAYDATE_STATEMENT);
  });

  it("refuses to sign what a calendar would refuse (the organizer not a member)", async () => {
    const req = { ...playdateRequest(), members: playdateRequest().members.slice(1) };
    const r = await noorApp.signMeetingContract(req);
    expect(r.ok ? null : r.error).toMatchObject({ code: "meeting_invalid", field: "/payload/iss" });
  });

  it("a calendar finds its own member in what the key app signed", async () => {
    const v = await verifyMeetingContract((await contract()).compact, { now: T0 });
    if (!v.ok) throw new Error(v.error.message);
    const m = memberFor(v.value, { hostId: "priya-shah", kind: "person", owner: priyaApp.principal });
    expect(m.ok && m.value.name).toBe("Priya Shah");
  });
});

describe("KeyApp.signRule (SchCP §7.9)", () => {
  it("signs a rule verifyRule accepts, naming the calendar agent's key", async () => {
    const r = await ellisApp.signRule({
      agent: ellisCalendar,
      label: "Weekend playdates with my contacts",
      services: ["playdate"],
      weekdays: ["sat", "sun"],
      tz: "America/Toronto",
    });
    if (!r.ok) throw new Error(r.error.message);
    const v = await verifyRule(r.value.compact, { now: T0 / 1000 });
    if (!v.ok) throw new Error(v.error.message);
    expect(v.value.claims).toMatchObject({ iss: ellisApp.principal, cnf: { jkt: ellisCalendar.thumbprint } });
    const use = { at: T0 / 1000, serviceId: "playdate", start: "2026-10-17T12:00:00-04:00" };
    expect(ruleCovers(v.value.claims, use)).toBe(true);
  });

  it("refuses weekdays without tz", async () => {
    const r = await ellisApp.signRule({ agent: ellisCalendar, label: "Weekends", weekdays: ["sat"] });
    expect(r.ok ? null : r.error.code).toBe("meeting_invalid");
  });
});

describe("acceptances the SDK signs verify (SchCP §5.12 Acceptances)", () => {
  it("KeyApp.signAcceptance: the member's own yes, with the spec's text", async () => {
    const c = await contract();
    const a = await ellisApp.signAcceptance(c.compact);
    if (!a.ok) throw new Error(a.error.message);
    expect(a.value.statement).toBe(ELLIS_ACCEPT_STATEMENT);
    expect(a.value.claims).toMatchObject({ by: "person", terms_sha256: c.sha256, iss: ellisApp.principal });
    const v = await verifyMeetingContract(c.compact, { now: T0 });
    if (!v.ok) throw new Error(v.error.message);
    const m = memberFor(v.value, { hostId: "ellis-moreau", kind: "person", owner: ellisApp.principal });
    if (!m.ok) throw new Error(m.error.message);
    const r = await verifyAcceptance(a.value.compact, acceptanceContext(v.value, m.value, T0));
    expect(r.ok && r.value.by).toBe("person");
  });

  it("the organizer sends no acceptance, and a stranger cannot accept", async () => {
    const c = await contract();
    const own = await noorApp.signAcceptance(c.compact);
    expect(own.ok ? null : own.error.code).toBe("meeting_invalid");
    const stranger = new KeyApp({ principalKey: createAgentKey(), clock });
    const r = await stranger.signAcceptance(c.compact);
    expect(r.ok ? null : r.error.code).toBe("meeting_invalid");
  });

  it("refuses a contract that does not verify", async () => {
    const c = await contract();
    const r = await ellisApp.signAcceptance(`${c.compact.slice(0, -4)}AAAA`);
    expect(r.ok ? null : r.error.code).toBe("meeting_invalid");
  });

  it("signRuleAcceptance: the calendar agent's yes by the member's rule", async () => {
    const c = await contract();
    const rule = await ellisApp.signRule({
      agent: ellisCalendar,
      label: "Weekend playdates with my contacts",
      weekdays: ["sat", "sun"],
      tz: "America/Toronto",
      organizers: [noorApp.principal],
    });
    if (!rule.ok) throw new Error(rule.error.message);
    const a = await signRuleAcceptance(c.compact, {
      rule: rule.value.compact,
      agentKey: ellisCalendar,
      now: T0,
    });
    if (!a.ok) throw new Error(a.error.message);
    expect(a.value.claims).toMatchObject({
      by: "rule",
      iss: ellisApp.principal,
      jwk: ellisCalendar.publicJwk,
    });
    const v = await verifyMeetingContract(c.compact, { now: T0 });
    if (!v.ok) throw new Error(v.error.message);
    const m = memberFor(v.value, { hostId: "ellis-moreau", kind: "person", owner: ellisApp.principal });
    if (!m.ok) throw new Error(m.error.message);
    const r = await verifyAcceptance(a.value.compact, acceptanceContext(v.value, m.value, T0));
    expect(r.ok ? { by: r.value.by, label: r.value.ruleLabel } : r.error).toEqual({
      by: "rule",
      label: "Weekend playdates with my contacts",
    });
  });

  it("signRuleAcceptance refuses where the member must answer in person, or the rule does not cover it", async () => {
    const req = playdateRequest();
    (req.members[1] as MeetingMember).answers = "person";
    const c = await contract(req);
    const rule = await ellisApp.signRule({ agent: ellisCalendar, label: "Anything" });
    if (!rule.ok) throw new Error(rule.error.message);
    const a = await signRuleAcceptance(c.compact, {
      rule: rule.value.compact,
      agentKey: ellisCalendar,
      now: T0,
    });
    expect(a.ok ? null : a.error.message).toMatch(/^person_required/);

    const weekdays = await ellisApp.signRule({
      agent: ellisCalendar,
      label: "Weekdays",
      weekdays: ["mon"],
      tz: "America/Toronto",
    });
    if (!weekdays.ok) throw new Error(weekdays.error.message);
    const open = await contract();
    const b = await signRuleAcceptance(open.compact, {
      rule: weekdays.value.compact,
      agentKey: ellisCalendar,
      now: T0,
    });
    expect(b.ok ? null : b.error.message).toMatch(/^acceptance_invalid/);
  });

  it("signRuleAcceptance refuses a key the rule does not name", async () => {
    const c = await contract();
    const rule = await ellisApp.signRule({ agent: ellisCalendar, label: "Anything" });
    if (!rule.ok) throw new Error(rule.error.message);
    const a = await signRuleAcceptance(c.compact, {
      rule: rule.value.compact,
      agentKey: createAgentKey(),
      now: T0,
    });
    expect(a.ok ? null : a.error.code).toBe("meeting_invalid");
  });
});

describe("commonStarts (SchCP §5.12 step 1)", () => {
  it("keeps the starts every calendar offers, compared as instants, earliest first", () => {
    const a = {
      slots: [
        { start: "2026-10-17T13:00:00-04:00" },
        { start: "2026-10-17T12:00:00-04:00" },
        { start: "2026-10-17T14:00:00-04:00" },
      ],
    };
    const b = { slots: [{ start: "2026-10-17T16:00:00Z" }, { start: "2026-10-17T17:00:00Z" }] };
    const c = {
      slots: [
        { start: "2026-10-17T09:00:00-07:00" },
        { start: "2026-10-17T10:00:00-07:00" },
        { start: "2026-10-17T13:00:00-04:00" },
      ],
    };
    const common = commonStarts([a, b, c]);
    expect(common.map((s) => s.start)).toEqual(["2026-10-17T12:00:00-04:00", "2026-10-17T13:00:00-04:00"]);
    expect(common[0]?.slots.map((s) => s.start)).toEqual([
      "2026-10-17T12:00:00-04:00",
      "2026-10-17T16:00:00Z",
      "2026-10-17T09:00:00-07:00",
    ]);
  });

  it("no calendars, or one with nothing free, leave no start", () => {
    expect(commonStarts([])).toEqual([]);
    expect(commonStarts([{ slots: [{ start: "2026-10-17T12:00:00-04:00" }] }, { slots: [] }])).toEqual([]);
  });
});

describe("the organizer's meeting calls (SchCP §5.12)", () => {
  const refusal = {
    error: { code: "INVALID_STATE", reason: "awaiting_members", message: "Waiting for Priya Shah." },
  };

  function recorder() {
    const seen: { method: string; url: string; body: unknown; headers: Headers }[] = [];
    const fetch = (url: string, init: RequestInit): Promise<Response> => {
      const body: unknown =
        init.body === undefined ? undefined : JSON.parse(new TextDecoder().decode(init.body as Uint8Array));
      seen.push({ method: init.method ?? "GET", url, body, headers: new Headers(init.headers) });
      return Promise.resolve(
        new Response(JSON.stringify(refusal), {
          status: 409,
          headers: { "content-type": "application/json", "schcp-version": "0.4" },
        }),
      );
    };
    const client = new SchcpClient({ agentKey: createAgentKey(), fetch, clock });
    return { client, seen };
  }

  const host = { endpoint: "http://127.0.0.1:9/schcp/v1" };

  it("confirmMeeting: POST /holds/{id}/confirm with meeting and the hold's offer hash", async () => {
    const { client, seen } = recorder();
    const r = await client.confirmMeeting(host, "h_1", "a.b.c", "hash", {
      mandate: "m.n.o",
      idempotencyKey: "k1",
    });
    expect(r.ok ? null : r.error.refusal?.reason).toBe("awaiting_members");
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "http://127.0.0.1:9/schcp/v1/holds/h_1/confirm",
      body: { offer_sha256: "hash", meeting: "a.b.c", idempotency_key: "k1" },
    });
    expect(seen[0]?.headers.get("schcp-mandate")).toBe("m.n.o");
    expect(seen[0]?.headers.get("signature")).toBeTruthy();
  });

  it("commitMeeting: POST /bookings/{id}/commit with the hash and acceptances", async () => {
    const { client, seen } = recorder();
    await client.commitMeeting(host, "b_1", { contract_sha256: "h", acceptances: ["x.y.z"] });
    expect(seen[0]).toMatchObject({ method: "POST", url: "http://127.0.0.1:9/schcp/v1/bookings/b_1/commit" });
    expect(seen[0]?.body).toMatchObject({ contract_sha256: "h", acceptances: ["x.y.z"] });
    expect(typeof (seen[0]?.body as { idempotency_key: unknown }).idempotency_key).toBe("string");
  });

  it("reviseMeeting: POST /bookings/{id}/meeting with sequence and contract", async () => {
    const { client, seen } = recorder();
    await client.reviseMeeting(host, "b_1", { sequence: 2, contract: "a.b.c" });
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "http://127.0.0.1:9/schcp/v1/bookings/b_1/meeting",
    });
    expect(seen[0]?.body).toMatchObject({ sequence: 2, contract: "a.b.c" });
  });

  it("withdrawMeetingRevision: POST /bookings/{id}/meeting/withdraw with hash and reason", async () => {
    const { client, seen } = recorder();
    await client.withdrawMeetingRevision(host, "b/1", { contract_sha256: "h", reason: "Priya said no." });
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "http://127.0.0.1:9/schcp/v1/bookings/b%2F1/meeting/withdraw",
      body: { contract_sha256: "h", reason: "Priya said no." },
    });
  });
});
