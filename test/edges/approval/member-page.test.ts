/**
 * SchCP §5.12: the approval link of a meeting a calendar's person answers as a member, over
 * HTTP on the approval routes: the page shows the member's statement (naming who arranged it,
 * the other members and the attendees) and carries the console's key app to sign it; the
 * accept posts the signed acceptance, the decline the person's message, to the core.
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { mountApprovalRoutes, type ApprovalRouteDeps } from "../../../src/edges/approval/approval-routes.js";
import type { ApprovalView } from "../../../src/edges/approval/approval-page.js";
import { issueApprovalToken, MemoryLinkUseStore } from "../../../src/booking/approval/links.js";
import { signMeetingContract } from "../../../src/agent/meeting.js";
import { generateEd25519KeyPair, jwkThumbprint, principalUrn } from "../../../src/protocol/jose/index.js";
import { ok } from "../../../src/protocol/result.js";

const NOW = Math.floor(Date.now() / 1000) * 1000;
const secret = new Uint8Array(32).fill(7);
const noor = generateEd25519KeyPair();
const ellis = generateEd25519KeyPair();
const priya = generateEd25519KeyPair();
const principal = (k: typeof noor) => principalUrn(jwkThumbprint(k.publicJwk));

async function setUp(knownAs: Record<string, string> = {}) {
  const signed = await signMeetingContract(
    {
      exp: NOW / 1000 + 6 * 3600,
      meeting_id: "mtg_1",
      revision: 1,
      title: "Playdate",
      tz: "America/Toronto",
      start: "2026-10-17T12:00:00-04:00",
      open_end: true,
      place: { name: "Trinity Bellwoods Park playground", locality: "Toronto" },
      members: [
        {
          principal: principal(noor),
          name: "Noor Haddad",
          host: "noor-haddad",
          domain: null,
          service_id: "playdate",
          offer_sha256: "A".repeat(43),
        },
        {
          principal: principal(ellis),
          name: "Ellis Moreau",
          host: "ellis-moreau",
          domain: null,
          service_id: "playdate",
          offer_sha256: "B".repeat(42) + "A",
        },
        {
          principal: principal(priya),
          name: "Priya Shah",
          host: "priya-shah",
          domain: null,
          service_id: "playdate",
          offer_sha256: "C".repeat(42) + "A",
        },
      ],
      attendees: [{ name: "Mira", relationship: "child" }],
    },
    noor,
    NOW,
  );
  if (!signed.ok) throw new Error(JSON.stringify(signed.error));
  const answers: unknown[] = [];
  let status = "pending_host";
  const view = (): ApprovalView => ({
    hostName: "Ellis",
    bookingId: "b_1",
    serviceName: "Playdate",
    start: Date.parse("2026-10-17T16:00:00Z"),
    timeZone: "America/Toronto",
    partySize: 1,
    status,
    answerBy: NOW + 3_600_000,
    meeting: { contract: signed.value.compact, issuedAt: NOW, member: principal(ellis), knownAs },
  });
  const deps: ApprovalRouteDeps = {
    secret,
    uses: new MemoryLinkUseStore(),
    clock: { now: () => NOW },
    read: () => Promise.resolve(view()),
    answer: () => Promise.resolve(ok("confirmed")),
    member: (_h, _b, answer) => {
      answers.push(answer);
      status = "acceptance" in answer ? "tentative" : "declined";
      return Promise.resolve(ok(status));
    },
  };
  const app = new Hono();
  mountApprovalRoutes(app, deps);
  const token = issueApprovalToken(secret, {
    hostId: "ellis-moreau",
    bookingId: "ev1",
    expiresAt: NOW + 3_600_000,
  });
  return { app, token, answers, sha: signed.value.sha256 };
}

const post = (app: Hono, token: string, form: Record<string, string>) =>
  app.request(`/approve/${token}`, { method: "POST", body: new URLSearchParams(form) });

describe("§5.12 a meeting member's approval link", () => {
  it("shows the member's statement with the attendees and carries the key app to sign it", async () => {
    const { app, token, sha } = await setUp();
    const res = await app.request(`/approve/${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toContain(
      "I accept: Playdate arranged by Noor Haddad (noor-haddad), with Priya Shah (priya-shah), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along.",
    );
    expect(html).toContain(`data-terms="${sha}"`);
    expect(html).toContain(`data-owner="${principal(ellis)}"`);
    expect(html).toContain('<script src="/console/key-app.js"></script>');
    expect(html).not.toContain('value="approve"');
  });

  it("shows each other person by the name in the person's own contacts, else as someone they don't know, the organizer's name only in quotes", async () => {
    const { app, token } = await setUp({ [principal(noor)]: "Noor (Mira's mum)" });
    const html = await (await app.request(`/approve/${token}`)).text();
    const people = /<ul id="people">(.*?)<\/ul>/.exec(html)?.[1] ?? "";
    expect(people).toBe(
      "<li><strong>Noor (Mira&#39;s mum)</strong> (in your contacts), who arranged it</li>" +
        "<li>someone you don't know, named “Priya Shah” by the organizer</li>",
    );
    // The member themself is not listed among the others.
    expect(people).not.toContain("Ellis");
  });

  it("posts the signed acceptance to the core, and a decline with the person's message", async () => {
    const { app, token, answers } = await setUp();
    const unsigned = await post(app, token, { action: "accept", acceptance: "" });
    expect(unsigned.status).toBe(400);
    const accepted = await post(app, token, { action: "accept", acceptance: "x.y.z" });
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toContain("You accepted the meeting");
    // The link is spent by the answer (not by the unsigned post before it).
    const again = await post(app, token, { action: "decline", message: "no" });
    expect(answers).toEqual([{ acceptance: "x.y.z" }]);
    expect(again.status).toBe(409);

    const fresh = await setUp();
    const declined = await post(fresh.app, fresh.token, {
      action: "decline",
      message: "  Sorry,   not this weekend. ",
    });
    expect(declined.status).toBe(200);
    expect(fresh.answers).toEqual([{ message: "Sorry, not this weekend." }]);
  });
});
