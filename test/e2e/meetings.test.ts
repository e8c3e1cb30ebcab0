/**
 * SchCP §5.12 meetings of several people, end to end over real HTTP on loopback with the store
 * on Redis: three people's calendars (Noor organizes, Ellis and Priya are members) and a café
 * that takes part in meetings, each a host of this gateway configured here. The organizer's
 * agent holds the same hour at every calendar, signs the contract with Noor's key app,
 * confirms each hold with it and commits once every member accepted on their own calendar
 * (the operator API). Also: nothing confirmed while a member is missing; the contract's
 * deadline with a member silent; a member taking back their yes; meeting_invalid at a
 * business that does not take part in meetings; a garage on the synthetic booking platform as
 * a member, whose own appointment stays tentative until the commit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jwkThumbprint } from "../../src/protocol/jose/index.js";
import type { DiscoveredHost, IssuedMandate } from "../../src/agent/index.js";
import type { SyntheticConnector } from "../../src/connectors/synthetic/index.js";
import { upstreamKey } from "../../src/booking/confirm/record-booking.js";
import { HOUR_MS, must, newAgent, operator, refusalOf, type E2eAgent } from "./support/agents.js";
import type { E2eGateway } from "./support/gateway.js";
import { MeetingWorld, PLACE, TZ, type Meeting } from "./support/meetings.js";
import type { WebhookSink } from "./support/webhooks.js";

const PEOPLE = ["noor", "ellis", "priya"] as const;
type Person = (typeof PEOPLE)[number];
type Calendar = Person | "cafe" | "shop" | "garage";

/** A business on a booking platform (the synthetic one) that takes part in meetings. */
const GARAGE = {
  id: "garage",
  name: "Maple Street Auto",
  kind: "business",
  timezone: TZ,
  domain: null,
  address: { locality: "Toronto", region: "ON", country: "CA" },
  connector: { type: "synthetic", settings: { scenario: "maple-street-auto" } },
  policies: { confirmation: "instant", retention: "P365D", meetings: true },
  services: [],
};
let w: MeetingWorld<Person>;
let gw: E2eGateway;
let sink: WebhookSink;
let agents: Record<Person, E2eAgent>;
let hosts: Record<Calendar, DiscoveredHost>;
const clock = { now: (): number => w.clock.now() };

beforeAll(async () => {
  w = await MeetingWorld.start({
    name: "meetings",
    people: PEOPLE,
    // §7.8: each person takes requests from the other two only (the organizer is on every
    // member's contact list, §5.12).
    personPolicies: (p, people) => ({
      access: "contacts",
      contacts: PEOPLE.filter((o) => o !== p).map((o) => people[o].keyApp.principal),
    }),
    platforms: { garage: { config: GARAGE, service: "brake-inspection" } },
  });
  ({ gw, sink, agents, hosts } = w);
}, 120_000);

afterAll(async () => {
  await w?.close();
});

const startIn = (days: number) => w.startIn(days);
const holdAt = (cal: Calendar, start: string, mandate: IssuedMandate) => w.holdAt(cal, start, mandate);
const arrange = (day: number, calendars: readonly Calendar[], opts?: { expInSec?: number }) =>
  w.arrange(day, calendars, opts);
const accept = (m: Meeting, who: Person) => w.accept(m, who);
const acceptanceOf = (m: Meeting, who: Person) => w.acceptanceOf(m, who);
const commit = (m: Meeting, cal: Calendar, acceptances: string[], sha?: string) =>
  w.commit(m, cal, acceptances, sha);

/** The first day from `days` ahead that is a weekday in Toronto (the garage opens Monday to Friday). */
function weekdayFrom(days: number): number {
  for (let d = days; ; d++) {
    const ymd = new Date(clock.now() + d * 24 * HOUR_MS).toISOString().slice(0, 10);
    const weekday = new Date(`${ymd}T12:00:00Z`).getUTCDay();
    if (weekday >= 1 && weekday <= 5) return d;
  }
}

/** The organizer's agent calls the meeting off at one calendar (§5.12: cancelling costs nothing). */
async function callOff(m: Meeting, cal: Calendar, quote: string): Promise<void> {
  const off = must(
    await agents.noor.client.cancel(
      hosts[cal],
      m.bookings[cal]!.booking.booking_id,
      { reason: quote },
      { mandate: m.mandate.compact },
    ),
    `cancel at ${cal}`,
  );
  expect(off.body.booking.status).toBe("cancelled");
}

describe("SchCP §5.12 meetings over HTTP on Redis", () => {
  it("advertises meetings at every person's calendar and a café that opted in, not at another business", () => {
    for (const p of PEOPLE) expect(hosts[p].document.capabilities).toContain("meetings");
    expect(hosts.cafe.document.capabilities).toContain("meetings");
    expect(hosts.shop.document.capabilities).not.toContain("meetings");
  });

  it("confirms nothing until every member accepted the same hash, then commits at every calendar", async () => {
    const m = await arrange(3, ["cafe", "noor", "ellis", "priya"]);
    for (const cal of ["cafe", "noor", "ellis", "priya"]) {
      expect(m.statuses[cal]).toBe(202);
      expect(m.bookings[cal]!.contract).toBe(m.contract);
      expect(m.bookings[cal]!.booking.meeting).toEqual({
        meeting_id: "mtg_3",
        revision: 1,
        contract_sha256: m.sha256,
      });
    }
    expect(m.bookings.noor!.booking.status).toBe("tentative");
    expect(m.bookings.cafe!.booking.status).toBe("tentative");
    expect(m.bookings.ellis!.booking.status).toBe("pending_host");
    expect(m.bookings.priya!.booking.status).toBe("pending_host");

    // Nobody has accepted: the café's own commit is refused, naming who is awaited.
    const early = refusalOf(await commit(m, "cafe", []));
    expect(early).toMatchObject({ status: 409, code: "INVALID_STATE", reason: "awaiting_members" });
    expect((early.details as { awaiting: { principal: string }[] }).awaiting.map((a) => a.principal)).toEqual(
      [agents.ellis.keyApp.principal, agents.priya.keyApp.principal],
    );

    const ellis = await accept(m, "ellis");
    expect(ellis.status).toBe(200);
    await sink.waitFor(
      (e) => e.type === "booking.accepted" && e.booking?.booking_id === m.bookings.ellis!.booking.booking_id,
    );
    const ellisYes = await acceptanceOf(m, "ellis");
    // One member's yes is not enough.
    const half = refusalOf(await commit(m, "noor", [ellisYes]));
    expect(half.reason).toBe("awaiting_members");
    // A wrong hash names the current one.
    const wrong = refusalOf(await commit(m, "noor", [ellisYes], "A".repeat(43)));
    expect(wrong).toMatchObject({ status: 409, code: "CONTRACT_MISMATCH" });
    expect(wrong.details).toMatchObject({ contract_sha256: m.sha256 });
    // Two acceptances from one member.
    expect(refusalOf(await commit(m, "noor", [ellisYes, ellisYes])).reason).toBe("acceptance_invalid");

    // Priya has not answered on her calendar; her acceptance handed over at commit is her answer.
    const priyaYes = await acceptanceOf(m, "priya");
    for (const cal of ["cafe", "ellis", "priya", "noor"] as const) {
      const done = must(await commit(m, cal, [ellisYes, priyaYes]), `commit at ${cal}`);
      expect(done.status).toBe(200);
      expect(done.body.booking.status).toBe("confirmed");
      expect(done.body.booking.sequence).toBe(1);
      expect(done.body.contract).toBe(m.contract);
      await sink.waitFor(
        (e) =>
          e.type === "booking.confirmed" && e.booking?.booking_id === m.bookings[cal]!.booking.booking_id,
      );
    }
    // Committing again returns the booking unchanged.
    const again = must(await commit(m, "noor", [ellisYes, priyaYes]), "commit again");
    expect(again.body.booking.sequence).toBe(1);
  }, 60_000);

  it("lapses at the contract's deadline with a member silent: the time comes free", async () => {
    const m = await arrange(4, ["noor", "ellis", "priya"], { expInSec: 3600 });
    expect((await accept(m, "ellis")).status).toBe(200);
    gw.clock.advance(2 * HOUR_MS);
    try {
      for (const cal of ["noor", "ellis", "priya"] as const) await gw.runtime.service.expireOverdue(cal);
    } finally {
      gw.clock.advance(-2 * HOUR_MS);
    }
    const read = async (cal: Person) =>
      must(
        await agents.noor.client.getBooking(hosts[cal], m.bookings[cal]!.booking.booking_id, {
          mandate: m.mandate.compact,
        }),
        "read",
      ).body.booking;
    expect(await read("priya")).toMatchObject({
      status: "expired",
      refusal: { code: "EXPIRED", reason: "host_did_not_answer" },
    });
    expect(await read("ellis")).toMatchObject({
      status: "expired",
      refusal: { code: "EXPIRED", reason: "meeting_incomplete" },
    });
    expect((await read("noor")).status).toBe("expired");
    await sink.waitFor(
      (e) => e.type === "booking.expired" && e.booking?.booking_id === m.bookings.ellis!.booking.booking_id,
    );
    // The time is free again at Priya's calendar.
    const again = await agents.noor.keyApp.issueMandate({
      agent: agents.noor.key,
      audience: "priya",
      scope: ["hold"],
    });
    await holdAt("priya", startIn(4).start, again);
  }, 60_000);

  it("a member takes back their yes: declined with their words, answered by the person", async () => {
    const m = await arrange(5, ["noor", "ellis"]);
    expect((await accept(m, "ellis")).status).toBe(200);
    const id = m.bookings.ellis!.booking.booking_id;
    const back = await operator(gw, "ellis", `/bookings/${id}/meeting-take-back`, {
      message: "Sorry, not this weekend.",
    });
    expect(back.status).toBe(200);
    const b = must(
      await agents.noor.client.getBooking(hosts.ellis, id, { mandate: m.mandate.compact }),
      "read",
    ).body.booking;
    expect(b).toMatchObject({
      status: "declined",
      sequence: 1,
      refusal: { code: "DECLINED", reason: "host_declined", message: "Sorry, not this weekend." },
      answer: { by: "person" },
    });
    await sink.waitFor((e) => e.type === "booking.declined" && e.booking?.booking_id === id);
    await callOff(m, "noor", 'The meeting is off: Ellis declined ("Sorry, not this weekend.").');
  }, 60_000);

  it("refuses a meeting contract at a business that does not take part in meetings (meeting_invalid)", async () => {
    const { start, end } = startIn(6);
    const mandate = await agents.noor.keyApp.issueMandate({
      agent: agents.noor.key,
      audience: ["noor", "shop"],
      scope: ["hold", "book"],
    });
    const shop = await holdAt("shop", start, mandate);
    const noor = await holdAt("noor", start, mandate);
    const signed = must(
      await agents.noor.keyApp.signMeetingContract({
        exp: Math.floor(clock.now() / 1000) + 3600,
        meeting_id: "mtg_shop",
        revision: 1,
        title: "Coffee",
        tz: TZ,
        start,
        end,
        place: PLACE,
        members: [
          {
            principal: agents.noor.keyApp.principal,
            name: "Noor",
            host: "noor",
            domain: null,
            service_id: "coffee",
            offer_sha256: noor.offerSha256,
          },
          {
            principal: agents.ellis.keyApp.principal,
            name: "Ellis",
            host: "ellis",
            domain: null,
            service_id: "coffee",
            offer_sha256: noor.offerSha256,
          },
          {
            principal: "urn:schcp:host:shop",
            name: "Shop",
            host: "shop",
            domain: null,
            service_id: "coffee",
            offer_sha256: shop.offerSha256,
            business: true,
          },
        ],
      }),
      "sign",
    );
    const refused = refusalOf(
      await agents.noor.client.confirmMeeting(hosts.shop, shop.holdId, signed.compact, shop.offerSha256, {
        mandate: mandate.compact,
      }),
    );
    expect(refused).toMatchObject({ status: 400, code: "INVALID_REQUEST", reason: "meeting_invalid" });
  }, 60_000);

  it("§7.9 a member's rule answers at confirm: tentative with the calendar's acceptance by rule, which the organizer hands over at commit", async () => {
    // Priya's rule names her calendar's signing key (the first key its discovery publishes).
    const rule = must(
      await agents.priya.keyApp.signRule({
        agent: jwkThumbprint(hosts.priya.document.keys[0]!),
        label: "Coffee with Noor",
        services: ["coffee"],
        organizers: [agents.noor.keyApp.principal],
        jti: "r-coffee-noor",
      }),
      "sign rule",
    );
    const kept = await fetch(`${gw.origin}/operator/v0/priya/rules`, {
      method: "POST",
      headers: { ...gw.operatorAuth, "content-type": "application/json" },
      body: JSON.stringify({ rule: rule.compact }),
    });
    expect(kept.status).toBeLessThan(300);
    try {
      const m = await arrange(7, ["noor", "ellis", "priya"]);
      const priya = m.bookings.priya!.booking;
      expect(priya.status).toBe("tentative");
      expect(priya.answer).toMatchObject({ by: "rule", rule: "Coffee with Noor" });
      const byRule = priya.meeting?.acceptance;
      expect(typeof byRule).toBe("string");
      expect(m.bookings.ellis!.booking.status).toBe("pending_host");
      await sink.waitFor((e) => e.type === "booking.accepted" && e.booking?.booking_id === priya.booking_id);

      const ellisYes = await acceptanceOf(m, "ellis");
      for (const cal of ["ellis", "priya", "noor"] as const) {
        const done = must(await commit(m, cal, [ellisYes, byRule!]), `commit at ${cal}`);
        expect(done.body.booking.status).toBe("confirmed");
      }
    } finally {
      await fetch(`${gw.origin}/operator/v0/priya/rules/r-coffee-noor`, {
        method: "DELETE",
        headers: gw.operatorAuth,
      });
    }
  }, 60_000);
  it("§2.3/§7.8: the operator document lists each person with host_domain null; the listing makes the document fetchable, not the time visible", async () => {
    const res = await fetch(`${gw.origin}/.well-known/scheduling.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      hosts: Array<{ id: string; discovery: string; host_domain: unknown }>;
    };
    for (const p of PEOPLE) {
      const listed = doc.hosts.find((h) => h.id === p);
      expect(listed).toMatchObject({ host_domain: null });
      // The listed discovery URL answers a plain GET (§2.3) with the person's document.
      const own = await fetch(listed!.discovery);
      expect(own.status).toBe(200);
      const document = (await own.json()) as { host: { kind?: string } };
      expect(document.host.kind).toBe("person");
    }
    // A stranger who found Ellis through the listing still sees none of Ellis's time.
    const stranger = newAgent(gw);
    const ellis = must(
      await stranger.client.discoverHost(`${gw.origin}/hosts/ellis/scheduling.json`),
      "discover",
    );
    const { start } = startIn(2);
    const window = { start, end: startIn(9).start };
    expect(
      refusalOf(await stranger.client.availability(ellis, { service_id: "coffee", window })),
    ).toMatchObject({
      status: 403,
      code: "NOT_PERMITTED",
      reason: "not_a_contact",
    });
  });

  it("a business on a booking platform as a member: its own appointment is tentative upstream until the commit confirms it", async () => {
    const m = await arrange(weekdayFrom(8), ["garage", "noor", "ellis"]);
    const platform = gw.runtime.hosts.get("garage")!.connector as SyntheticConnector;
    const heldAt = m.held.find((h) => h.hostId === "garage")!;
    const upstreamStatus = async (): Promise<string> => {
      const found = await platform.bookings.findByIdempotencyKey(upstreamKey("garage", heldAt.holdId));
      if (!found.ok || found.value === null) throw new Error("the platform has no appointment");
      return found.value.status;
    };
    // Its signed offer is its yes (tentative at once), but nothing is final anywhere yet (§5.12).
    expect(m.bookings.garage!.booking).toMatchObject({ status: "tentative", answer: { by: "host" } });
    expect(await upstreamStatus()).toBe("tentative");
    const ellisYes = await acceptanceOf(m, "ellis");
    // Businesses first (§5.12 Commit).
    for (const cal of ["garage", "ellis", "noor"] as const) {
      const done = must(await commit(m, cal, [ellisYes]), `commit at ${cal}`);
      expect(done.body.booking.status).toBe("confirmed");
    }
    expect(await upstreamStatus()).toBe("confirmed");
  }, 60_000);

  it("§5.12 Backing out: a member's calendar cancels its own booking, before the meeting is final and after (booking.cancelled_by_host, host_cancelled, the person's words)", async () => {
    const read = async (m: Meeting, cal: Person) =>
      must(
        await agents.noor.client.getBooking(hosts[cal], m.bookings[cal]!.booking.booking_id, {
          mandate: m.mandate.compact,
        }),
        "read",
      ).body.booking;
    const backOut = async (m: Meeting, cal: Person, message: string) => {
      const id = m.bookings[cal]!.booking.booking_id;
      const res = await operator(gw, cal, `/bookings/${id}/cancel`, { message });
      expect(res.status).toBe(200);
      expect(await read(m, cal)).toMatchObject({
        status: "cancelled",
        refusal: { code: "CANCELLED", reason: "host_cancelled", message },
      });
      await sink.waitFor((e) => e.type === "booking.cancelled_by_host" && e.booking?.booking_id === id);
    };

    // Before final: Ellis said yes, then backs out.
    const pending = await arrange(11, ["noor", "ellis"]);
    expect((await accept(pending, "ellis")).status).toBe(200);
    await backOut(pending, "ellis", "Sorry, something came up.");
    // The meeting is off: the commit cannot make it final at Ellis's calendar.
    const ellisYes = await acceptanceOf(pending, "ellis");
    expect(refusalOf(await commit(pending, "ellis", [ellisYes])).status).toBe(409);
    // The organizer's agent cancels the other calendars, quoting the member.
    await callOff(pending, "noor", 'The meeting is off: Ellis backed out ("Sorry, something came up.").');

    // After final: a confirmed meeting can still go off.
    const done = await arrange(12, ["noor", "priya"]);
    const priyaYes = await acceptanceOf(done, "priya");
    for (const cal of ["priya", "noor"] as const)
      expect(must(await commit(done, cal, [priyaYes]), `commit at ${cal}`).body.booking.status).toBe(
        "confirmed",
      );
    await backOut(done, "priya", "My daughter is ill.");
    // The other calendars keep it until the organizer's agent calls it off there.
    expect((await read(done, "noor")).status).toBe("confirmed");
    await callOff(done, "noor", 'The meeting is off: Priya backed out ("My daughter is ill.").');
  }, 60_000);
});
