import { describe, expect, it } from "vitest";
import { offerSha256 } from "../../../../src/protocol/schcp/offer/hash.js";
import {
  answersFor,
  contractSha256,
  memberFor,
  membersWhoAccept,
  verifyMeetingContract,
} from "../../../../src/protocol/schcp/meeting/index.js";
import type { MeetingContractClaims, MeetingMember } from "../../../../src/protocol/schcp/types.js";
import { sha256Base64Url } from "../../../../src/protocol/json/base64.js";
import { IAT, NOW_MS, copy, ellis, noor, person, playdate, priya, signContract } from "./support.js";

const now = NOW_MS;

const cafe: MeetingMember = {
  principal: "urn:schcp:host:queen-st-cafe",
  name: "Queen St Café",
  host: "queen-st-cafe",
  domain: "queenstcafe.example",
  service_id: "table-for-4",
  offer_sha256: sha256Base64Url("offer-cafe"),
  business: true,
};

async function verify(claims: object, at = now) {
  return verifyMeetingContract(await signContract(claims), { now: at });
}

async function refusal(claims: object, at = now) {
  const r = await verify(claims, at);
  if (r.ok) throw new Error("expected a refusal");
  return r.error;
}

function modified(f: (c: MeetingContractClaims) => void): MeetingContractClaims {
  const c = copy(playdate());
  f(c);
  return c;
}

describe("verifyMeetingContract (SchCP §5.12)", () => {
  it("accepts the spec's playdate contract and names its hash, organizer and key", async () => {
    const jws = await signContract(playdate());
    const r = await verifyMeetingContract(jws, { now });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.jws).toBe(jws);
    expect(r.value.organizer).toBe(noor.principal);
    expect(r.value.principalJwk).toEqual(noor.publicJwk);
    expect(r.value.claims.meeting_id).toBe("mtg_playdate");
    expect(r.value.sha256).toBe(contractSha256(jws));
  });

  it("contract_sha256 is the base64url SHA-256 of the compact JWS, exactly as for offers", async () => {
    const jws = await signContract(playdate());
    expect(contractSha256(jws)).toBe(offerSha256(jws));
    expect(contractSha256(jws)).toBe(sha256Base64Url(jws));
    expect(contractSha256(jws)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  describe("the signature verifies with principal_jwk, iss is its principal (meeting_invalid)", () => {
    it("refuses a contract signed by another key than principal_jwk", async () => {
      const r = await verifyMeetingContract(await signContract(playdate(), ellis.privateKey), { now });
      expect(r.ok ? null : r.error).toMatchObject({ reason: "meeting_invalid", field: "/signature" });
    });

    it("refuses an iss that is not principal_jwk's principal", async () => {
      // Ellis signs with his own key and principal_jwk, but claims to be Noor.
      const claims = { ...playdate(), principal_jwk: ellis.publicJwk };
      const r = await verifyMeetingContract(await signContract(claims, ellis.privateKey), { now });
      expect(r.ok ? null : r.error).toMatchObject({ reason: "meeting_invalid", field: "/payload/iss" });
    });

    it("refuses a bit-flipped signature", async () => {
      const jws = await signContract(playdate());
      // The signature's first character changed: its top six bits, never padding bits.
      const at = jws.lastIndexOf(".") + 1;
      const tampered = `${jws.slice(0, at)}${jws[at] === "A" ? "B" : "A"}${jws.slice(at + 1)}`;
      expect(tampered).not.toBe(jws);
      const r = await verifyMeetingContract(tampered, { now });
      expect(r.ok ? null : r.error.reason).toBe("meeting_invalid");
    });

    it("refuses what is not a compact JWS", async () => {
      for (const bad of ["", "a.b", 42, null, "x.y.z"]) {
        const r = await verifyMeetingContract(bad, { now });
        expect(r.ok ? null : r.error.reason).toBe("meeting_invalid");
      }
    });
  });

  describe("typ schcp-meeting+jwt and a plain header", () => {
    it("refuses another typ", async () => {
      const jws = await signContract(playdate(), noor.privateKey, { alg: "EdDSA", typ: "schcp-mandate+jwt" });
      const r = await verifyMeetingContract(jws, { now });
      expect(r.ok ? null : r.error).toMatchObject({ reason: "meeting_invalid", field: "/header/typ" });
    });

    it("refuses a missing typ", async () => {
      const jws = await signContract(playdate(), noor.privateKey, { alg: "EdDSA" });
      const r = await verifyMeetingContract(jws, { now });
      expect(r.ok ? null : r.error.field).toBe("/header/typ");
    });

    it("refuses a second key in the header", async () => {
      const jws = await signContract(playdate(), noor.privateKey, {
        alg: "EdDSA",
        typ: "schcp-meeting+jwt",
        jwk: ellis.publicJwk,
      });
      const r = await verifyMeetingContract(jws, { now });
      expect(r.ok ? null : r.error).toMatchObject({ reason: "meeting_invalid", field: "/header/jwk" });
    });
  });

  describe("the contract has the shape above (closed schema)", () => {
    it("refuses an unknown claim", async () => {
      const e = await refusal({ ...playdate(), price: "free" });
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/price" });
    });

    it("refuses a missing place", async () => {
      const e = await refusal(modified((c) => delete (c as Partial<MeetingContractClaims>).place));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/place" });
    });

    it("refuses an unknown member property", async () => {
      const e = await refusal(
        modified((c) => Object.assign(c.members[1] as object, { phone: "+1-416-555-0100" })),
      );
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/members/1/phone" });
    });

    it("refuses a single member (at least two)", async () => {
      const e = await refusal(modified((c) => (c.members = c.members.slice(0, 1))));
      expect(e.reason).toBe("meeting_invalid");
    });

    it("revision starts at 1: refuses revision 0", async () => {
      const e = await refusal(modified((c) => (c.revision = 0)));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/revision" });
    });
  });

  describe("Terms: start, then end or open_end (exactly one)", () => {
    it("accepts an end instead of open_end", async () => {
      const r = await verify(
        modified((c) => {
          delete c.open_end;
          c.end = "2026-10-17T14:00:00-04:00";
        }),
      );
      expect(r.ok).toBe(true);
    });

    it("refuses both end and open_end", async () => {
      const e = await refusal(modified((c) => (c.end = "2026-10-17T14:00:00-04:00")));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/end" });
    });

    it("refuses neither end nor open_end", async () => {
      const e = await refusal(modified((c) => delete c.open_end));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/end" });
    });

    it("refuses an end not after start", async () => {
      const e = await refusal(
        modified((c) => {
          delete c.open_end;
          c.end = c.start;
        }),
      );
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/end" });
    });
  });

  describe("exp is the deadline for everyone's answer", () => {
    it("refuses exp not after iat", async () => {
      const e = await refusal(modified((c) => (c.exp = c.iat)));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/exp" });
      expect(e.expired).toBeUndefined();
    });

    it("reports a passed exp distinctly (expired: true), with no skew", async () => {
      const c = playdate();
      const e = await refusal(c, c.exp * 1000);
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/exp", expired: true });
      expect((await verify(c, c.exp * 1000 - 1)).ok).toBe(true);
    });

    it("a passed exp is not reported over another fault", async () => {
      const c = { ...playdate(), extra: 1 };
      const e = await refusal(c, (IAT + 86400 * 10) * 1000);
      expect(e.expired).toBeUndefined();
    });
  });

  describe("Members: at least two distinct principals, the organizer one of them", () => {
    it("refuses a principal named twice", async () => {
      const e = await refusal(modified((c) => ((c.members[2] as MeetingMember).principal = ellis.principal)));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/members/2/principal" });
    });

    it("refuses an organizer (iss) who is not a member", async () => {
      const e = await refusal(modified((c) => c.members.shift()));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/iss" });
      expect(e.message).toMatch(/must be a member/);
    });

    it("refuses two members on one calendar (each with their own calendar)", async () => {
      const e = await refusal(modified((c) => ((c.members[2] as MeetingMember).host = "ellis-moreau")));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/members/2/host" });
    });

    it("a person member is named by a principal, not a host URN", async () => {
      const e = await refusal(
        modified((c) => ((c.members[1] as MeetingMember).principal = "urn:schcp:host:ellis-moreau")),
      );
      expect(e.reason).toBe("meeting_invalid");
    });
  });

  describe("Businesses", () => {
    it("accepts a business member named urn:schcp:host:<its host id>", async () => {
      const r = await verify(modified((c) => c.members.push(copy(cafe))));
      expect(r.ok).toBe(true);
    });

    it("refuses a business named by another host's principal", async () => {
      const e = await refusal(
        modified((c) => c.members.push({ ...copy(cafe), principal: "urn:schcp:host:other-cafe" })),
      );
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/members/3/principal" });
    });

    it("refuses a business member with answers (it has no person to accept)", async () => {
      const e = await refusal(modified((c) => c.members.push({ ...copy(cafe), answers: "person" })));
      expect(e.reason).toBe("meeting_invalid");
    });

    it("refuses a business named by a person's principal", async () => {
      const e = await refusal(
        modified((c) => c.members.push({ ...copy(cafe), principal: person().principal })),
      );
      expect(e.reason).toBe("meeting_invalid");
    });

    it("refuses an organizer and a business alone (an ordinary booking)", async () => {
      const e = await refusal(modified((c) => (c.members = [c.members[0] as MeetingMember, copy(cafe)])));
      expect(e).toMatchObject({ reason: "meeting_invalid", field: "/payload/members" });
    });

    it("refuses an organizer who is a business", async () => {
      // The host principal is not a key's principal, so iss cannot be one in a signed contract;
      // the schema refuses it before any member rule.
      const e = await refusal({ ...playdate(), iss: cafe.principal });
      expect(e.reason).toBe("meeting_invalid");
    });
  });
});

describe("memberFor (SchCP §5.12: exactly one member names this calendar)", () => {
  const contract = { claims: { ...playdate(), members: [...playdate().members, cafe] } };

  it("a person's calendar: the member whose principal is the owner", () => {
    const r = memberFor(contract, { hostId: "ellis-moreau", kind: "person", owner: ellis.principal });
    expect(r.ok ? r.value.principal : r.error).toBe(ellis.principal);
  });

  it("refuses a person's calendar whose owner is not the member's principal", () => {
    const r = memberFor(contract, { hostId: "ellis-moreau", kind: "person", owner: priya.principal });
    expect(r.ok ? null : r.error).toMatchObject({
      reason: "meeting_invalid",
      field: "/payload/members/1/principal",
    });
  });

  it("refuses a person's calendar named by a business entry", () => {
    const r = memberFor(contract, { hostId: "queen-st-cafe", kind: "person", owner: ellis.principal });
    expect(r.ok ? null : r.error.reason).toBe("meeting_invalid");
  });

  it("a business's calendar: business: true, named by the host principal", () => {
    const r = memberFor(contract, { hostId: "queen-st-cafe", kind: "business" });
    expect(r.ok ? r.value.principal : r.error).toBe("urn:schcp:host:queen-st-cafe");
  });

  it("refuses a business's calendar whose entry is not marked business", () => {
    const r = memberFor(contract, { hostId: "priya-shah", kind: "business" });
    expect(r.ok ? null : r.error).toMatchObject({
      reason: "meeting_invalid",
      field: "/payload/members/2/business",
    });
  });

  it("refuses a calendar no member names", () => {
    const r = memberFor(contract, { hostId: "sam-r", kind: "person", owner: ellis.principal });
    expect(r.ok ? null : r.error.reason).toBe("meeting_invalid");
  });

  it("refuses a calendar two members name", () => {
    const twice = {
      claims: { ...playdate(), members: [...playdate().members, { ...cafe, host: "priya-shah" }] },
    };
    const r = memberFor(twice, { hostId: "priya-shah", kind: "person", owner: priya.principal });
    expect(r.ok ? null : r.error.message).toMatch(/more than one/);
  });

  it("refuses a service_id that is not the hold's service, when asked", () => {
    const r = memberFor(contract, {
      hostId: "ellis-moreau",
      kind: "person",
      owner: ellis.principal,
      serviceId: "coffee",
    });
    expect(r.ok ? null : r.error).toMatchObject({
      reason: "meeting_invalid",
      field: "/payload/members/1/service_id",
    });
    expect(
      memberFor(contract, {
        hostId: "ellis-moreau",
        kind: "person",
        owner: ellis.principal,
        serviceId: "playdate",
      }).ok,
    ).toBe(true);
  });
});

describe("answersFor (SchCP §5.12 answers)", () => {
  it("defaults to person_or_rule", () => {
    const c = playdate();
    delete c.answers;
    expect(answersFor({ claims: c }, c.members[1] as MeetingMember)).toBe("person_or_rule");
  });

  it("takes the contract's answers", () => {
    const c = { ...playdate(), answers: "person" as const };
    expect(answersFor({ claims: c }, c.members[1] as MeetingMember)).toBe("person");
  });

  it("a member's own answers overrides the contract's", () => {
    const c = { ...playdate(), answers: "person" as const };
    const m = { ...(c.members[1] as MeetingMember), answers: "person_or_rule" as const };
    expect(answersFor({ claims: c }, m)).toBe("person_or_rule");
    const p = { ...(c.members[2] as MeetingMember), answers: "person" as const };
    expect(answersFor({ claims: playdate() }, p)).toBe("person");
  });
});

describe("membersWhoAccept (SchCP §5.12 Commit)", () => {
  it("is every person except the organizer; a business sends none", () => {
    const c = { claims: { ...playdate(), members: [...playdate().members, cafe] } };
    expect(membersWhoAccept(c).map((m) => m.host)).toEqual(["ellis-moreau", "priya-shah"]);
  });
});
