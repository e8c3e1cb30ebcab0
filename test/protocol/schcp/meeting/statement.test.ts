import { describe, expect, it } from "vitest";
import { acceptanceStatement, organizerStatement } from "../../../../src/protocol/schcp/meeting/index.js";
import type { MeetingContractClaims, MeetingMember } from "../../../../src/protocol/schcp/types.js";
import { sha256Base64Url } from "../../../../src/protocol/json/base64.js";
import { ELLIS_ACCEPT_STATEMENT, PLAYDATE_STATEMENT, copy, ellis, playdate, priya } from "./support.js";

function modified(f: (c: MeetingContractClaims) => void): MeetingContractClaims {
  const c = copy(playdate());
  f(c);
  return c;
}

const cafe: MeetingMember = {
  principal: "urn:schcp:host:queen-st-cafe",
  name: "Queen St Café",
  host: "queen-st-cafe",
  domain: "queenstcafe.example",
  service_id: "table-for-4",
  offer_sha256: sha256Base64Url("offer-cafe"),
  business: true,
};

describe("organizerStatement (SchCP §5.12 statement, generated from the claims)", () => {
  it("is the spec's playdate sentence exactly", () => {
    expect(organizerStatement(playdate())).toBe(PLAYDATE_STATEMENT);
  });

  it("names each group when a member's answers overrides the contract's (the spec's own words)", () => {
    const c = modified((x) => ((x.members[2] as MeetingMember).answers = "person"));
    expect(organizerStatement(c)).toMatch(
      /; Priya Shah answers in person; Ellis Moreau may answer by a rule they signed\.$/,
    );
  });

  it("says so when no rule may answer (answers: person)", () => {
    const c = modified((x) => (x.answers = "person"));
    expect(organizerStatement(c)).toMatch(/; Ellis Moreau and Priya Shah each answer in person\.$/);
  });

  it("defaults to person_or_rule when answers is absent", () => {
    const c = modified((x) => delete x.answers);
    expect(organizerStatement(c)).toBe(PLAYDATE_STATEMENT);
  });

  it("a meeting of two, with an end, no attendees, the time in the contract's tz", () => {
    const c = modified((x) => {
      x.members = x.members.slice(0, 2);
      delete x.open_end;
      x.end = "2026-10-17T14:00:00-04:00";
      delete x.attendees;
      x.tz = "America/Vancouver";
    });
    expect(organizerStatement(c)).toBe(
      "I approve: Playdate with Ellis Moreau (ellis-moreau), Saturday 17 October 2026, 9:00–11:00 a.m. Pacific time, at Trinity Bellwoods Park playground, Toronto; Ellis Moreau may answer by a rule they signed.",
    );
  });

  it("names a business with its domain and leaves it out of who answers", () => {
    const c = modified((x) => {
      x.members = [x.members[0] as MeetingMember, x.members[1] as MeetingMember, cafe];
      x.attendees = [{ name: "Mira", relationship: "child" }, { name: "Sam" }];
    });
    expect(organizerStatement(c)).toBe(
      "I approve: Playdate with Ellis Moreau (ellis-moreau) and Queen St Café (queen-st-cafe, queenstcafe.example), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) and Sam coming along; Ellis Moreau may answer by a rule they signed.",
    );
  });
});

describe("acceptanceStatement (SchCP §5.12 Acceptances)", () => {
  it("is the spec's sentence for Ellis exactly", () => {
    expect(acceptanceStatement(playdate(), ellis)).toBe(ELLIS_ACCEPT_STATEMENT);
  });

  it("names the other members, never the reader, and the attendees (MUST name them)", () => {
    const text = acceptanceStatement(playdate(), priya);
    expect(text).toBe(
      "I accept: Playdate arranged by Noor Haddad (noor-haddad), with Ellis Moreau (ellis-moreau), Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park playground, Toronto, with Mira (child) coming along.",
    );
  });

  it("a meeting of two names only the organizer", () => {
    const c = modified((x) => (x.members = x.members.slice(0, 2)));
    expect(acceptanceStatement(c, ellis)).toMatch(
      /^I accept: Playdate arranged by Noor Haddad \(noor-haddad\), Saturday 17 October 2026/,
    );
  });
});
