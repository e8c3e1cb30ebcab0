/**
 * SchCP §5.12 Revisions and "Changing a confirmed meeting", end to end over real HTTP on
 * loopback with the store on Redis: Noor organizes a coffee with Ellis, each on their own
 * person's calendar (hosts of this gateway configured here). After the meeting is confirmed,
 * Noor's agent obtains change offers at both calendars, hands over a revision, Ellis says yes
 * on her own calendar (operator meeting-accept), and the commit moves each calendar; a
 * revision Ellis says no to is dropped at hers and withdrawn at Noor's; accepting a change
 * offer directly on a meeting booking is meeting_invalid.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DiscoveredHost, IssuedMandate } from "../../src/agent/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { must, operator, refusalOf, type E2eAgent } from "./support/agents.js";
import type { E2eGateway } from "./support/gateway.js";
import { MeetingWorld, PLACE, TZ, type Meeting } from "./support/meetings.js";
import type { WebhookSink } from "./support/webhooks.js";

const PEOPLE = ["noor", "ellis"] as const;
type Person = (typeof PEOPLE)[number];
type Calendar = Person | "cafe" | "shop";

let w: MeetingWorld<Person>;
let gw: E2eGateway;
let sink: WebhookSink;
let agents: Record<Person, E2eAgent>;
let hosts: Record<Calendar, DiscoveredHost>;

beforeAll(async () => {
  w = await MeetingWorld.start({ name: "meeting-revisions", people: PEOPLE });
  ({ gw, sink, agents, hosts } = w);
}, 120_000);

afterAll(async () => {
  await w?.close();
});

const startIn = (days: number, hour?: number) => w.startIn(days, hour);
const holdAt = (cal: Calendar, start: string, mandate: IssuedMandate) => w.holdAt(cal, start, mandate);
const arrange = (day: number, calendars: readonly Calendar[], opts?: { expInSec?: number }) =>
  w.arrange(day, calendars, opts);
const accept = (m: Meeting, who: Person) => w.accept(m, who);
const acceptanceOf = (m: Meeting, who: Person) => w.acceptanceOf(m, who);
const commit = (m: Meeting, cal: Calendar, acceptances: string[], sha?: string) =>
  w.commit(m, cal, acceptances, sha);

/** Ellis says yes on her own calendar, and the organizer commits at both: confirmed. */
async function confirmed(day: number): Promise<Meeting> {
  const m = await arrange(day, ["noor", "ellis"]);
  expect((await accept(m, "ellis")).status).toBe(200);
  const yes = await acceptanceOf(m, "ellis");
  for (const cal of ["ellis", "noor"] as const) {
    const done = must(await commit(m, cal, [yes]), `commit at ${cal}`);
    expect(done.body.booking.status).toBe("confirmed");
  }
  return m;
}

/** The organizer's change offer at a calendar (§5.7), and its hash. */
async function changeOfferAt(m: Meeting, cal: Person, start: string): Promise<string> {
  const id = m.bookings[cal]!.booking.booking_id;
  const now = must(
    await agents.noor.client.getBooking(hosts[cal], id, { mandate: m.mandate.compact }),
    "read",
  );
  const r = must(
    await agents.noor.client.changeOffer(
      hosts[cal],
      id,
      { sequence: now.body.booking.sequence, start },
      { mandate: m.mandate.compact },
    ),
    `change offer at ${cal}`,
  );
  expect(r.status).toBe(201);
  return offerSha256(r.body.proposal.offer);
}

/** The organizer's revised contract: the same meeting, the given offers and time. */
async function revision(
  m: Meeting,
  day: number,
  rev: number,
  offers: Record<Person, string>,
  time: { start: string; end: string },
  expSec: number,
): Promise<{ compact: string; sha256: string }> {
  return must(
    await agents.noor.keyApp.signMeetingContract({
      exp: expSec,
      meeting_id: `mtg_${day}`,
      revision: rev,
      title: "Coffee",
      tz: TZ,
      start: time.start,
      end: time.end,
      place: PLACE,
      members: PEOPLE.map((p) => ({
        principal: agents[p].keyApp.principal,
        name: p,
        host: p,
        domain: null,
        service_id: "coffee",
        offer_sha256: offers[p],
      })),
    }),
    "sign revision",
  );
}

async function reviseAt(m: Meeting, cal: Person, contract: string) {
  const id = m.bookings[cal]!.booking.booking_id;
  const now = must(
    await agents.noor.client.getBooking(hosts[cal], id, { mandate: m.mandate.compact }),
    "read",
  );
  return agents.noor.client.reviseMeeting(
    hosts[cal],
    id,
    { sequence: now.body.booking.sequence, contract },
    { mandate: m.mandate.compact },
  );
}

const secondsBefore = (start: string, s: number) => Math.floor(Date.parse(start) / 1000) - s;

describe("SchCP §5.12 changing a confirmed meeting over HTTP on Redis", () => {
  it("a confirmed meeting keeps its time until every member said yes; the commit moves each calendar (change_approved)", async () => {
    const day = 3;
    const m = await confirmed(day);
    const later = startIn(day, 14);
    const offers = {
      noor: await changeOfferAt(m, "noor", later.start),
      ellis: await changeOfferAt(m, "ellis", later.start),
    };
    const original = startIn(day).start;
    // exp after the meeting's current start: meeting_invalid.
    const late = await revision(m, day, 2, offers, later, secondsBefore(original, -60));
    expect(refusalOf(await reviseAt(m, "ellis", late.compact))).toMatchObject({
      status: 400,
      reason: "meeting_invalid",
    });
    const k2 = await revision(m, day, 3, offers, later, secondsBefore(original, 3600));
    for (const cal of PEOPLE) {
      const r = must(await reviseAt(m, cal, k2.compact), `revise at ${cal}`);
      expect(r.status).toBe(200);
      expect(r.body.pending_contract).toBe(k2.compact);
      expect(r.body.contract).toBe(m.contract);
      expect(r.body.booking).toMatchObject({
        status: "confirmed",
        sequence: 1,
        meeting: {
          revision: 1,
          contract_sha256: m.sha256,
          pending_revision: { revision: 3, contract_sha256: k2.sha256, answered: cal === "noor" },
        },
      });
    }
    // Accepting a change offer directly on a meeting booking is refused.
    const direct = await agents.noor.client.reschedule(
      hosts.ellis,
      m.bookings.ellis!.booking.booking_id,
      { sequence: 1, offer_sha256: offers.ellis },
      { mandate: m.mandate.compact },
    );
    expect(refusalOf(direct)).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
      reason: "meeting_invalid",
    });

    // Until Ellis answers, the revision's commit awaits her; another hash names both.
    expect(refusalOf(await commit(m, "ellis", [], k2.sha256)).reason).toBe("awaiting_members");
    const other = refusalOf(await commit(m, "ellis", [], "A".repeat(43)));
    expect(other).toMatchObject({ status: 409, code: "CONTRACT_MISMATCH" });
    expect(other.details).toEqual({ contract_sha256: m.sha256, pending_contract_sha256: k2.sha256 });

    const yes2 = must(await agents.ellis.keyApp.signAcceptance(k2.compact), "ellis signs").compact;
    const id = m.bookings.ellis!.booking.booking_id;
    expect((await operator(gw, "ellis", `/bookings/${id}/meeting-accept`, { acceptance: yes2 })).status).toBe(
      200,
    );
    for (const cal of ["ellis", "noor"] as const) {
      const done = must(await commit(m, cal, [yes2], k2.sha256), `commit revision at ${cal}`);
      expect(done.body.booking).toMatchObject({
        status: "confirmed",
        sequence: 2,
        offer_sha256: offers[cal],
        meeting: { revision: 3, contract_sha256: k2.sha256 },
      });
      expect(Date.parse(done.body.booking.start)).toBe(Date.parse(later.start));
      expect(done.body.booking.meeting?.pending_revision).toBeUndefined();
      await sink.waitFor(
        (e) =>
          e.type === "booking.change_approved" &&
          e.booking?.booking_id === m.bookings[cal]!.booking.booking_id,
      );
    }
    // Committing it again returns it unchanged.
    expect(must(await commit(m, "noor", [yes2], k2.sha256), "again").body.booking.sequence).toBe(2);
  }, 60_000);

  it("a member's no drops the revision at her calendar; the organizer withdraws it at the others in its words", async () => {
    const day = 4;
    const m = await confirmed(day);
    const later = startIn(day, 15);
    const offers = {
      noor: await changeOfferAt(m, "noor", later.start),
      ellis: await changeOfferAt(m, "ellis", later.start),
    };
    const k2 = await revision(m, day, 2, offers, later, secondsBefore(startIn(day).start, 3600));
    for (const cal of PEOPLE) must(await reviseAt(m, cal, k2.compact), `revise at ${cal}`);

    const ellisId = m.bookings.ellis!.booking.booking_id;
    const no = await operator(gw, "ellis", `/bookings/${ellisId}/meeting-take-back`, {
      message: "Not that late.",
    });
    expect(no.status).toBe(200);
    await sink.waitFor((e) => e.type === "booking.change_declined" && e.booking?.booking_id === ellisId);
    const ellis = must(
      await agents.noor.client.getBooking(hosts.ellis, ellisId, { mandate: m.mandate.compact }),
      "read",
    );
    expect(ellis.body.booking).toMatchObject({
      status: "confirmed",
      sequence: 1,
      meeting: { revision: 1, contract_sha256: m.sha256 },
      declined_change: {
        revision: 2,
        refusal: { code: "DECLINED", reason: "host_declined", message: "Not that late." },
      },
    });
    expect(Date.parse(ellis.body.booking.start)).toBe(Date.parse(startIn(day).start));

    const noorId = m.bookings.noor!.booking.booking_id;
    const withdrawn = must(
      await agents.noor.client.withdrawMeetingRevision(
        hosts.noor,
        noorId,
        { contract_sha256: k2.sha256, reason: "Ellis can't stay late; we keep 10:00." },
        { mandate: m.mandate.compact },
      ),
      "withdraw",
    );
    expect(withdrawn.body.booking).toMatchObject({
      status: "confirmed",
      meeting: { revision: 1, contract_sha256: m.sha256 },
      declined_change: {
        revision: 2,
        refusal: {
          code: "DECLINED",
          reason: "organizer_withdrew",
          message: "Ellis can't stay late; we keep 10:00.",
        },
      },
    });
    expect(withdrawn.body.pending_contract).toBeUndefined();
    // The freed time can be held again.
    const mandate = await agents.noor.keyApp.issueMandate({
      agent: agents.noor.key,
      audience: ["noor"],
      scope: ["hold"],
    });
    await holdAt("noor", later.start, mandate);
  }, 60_000);
});
