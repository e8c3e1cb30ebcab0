/**
 * SchCP §5.12 meetings on real calendars, end to end over HTTP on loopback with the store on
 * Redis: Noor (the organizer) keeps her calendar on CalDAV (a real xandikos), Ellis on Google
 * and Priya on Microsoft 365 (the loopback API fakes of test/support/oauth-standins, reached by
 * the real connectors through a rewriting fetch), and a café that takes part in meetings keeps
 * an ics directory. Each calendar's own store is read after every step (CalDAV GET of the
 * event resource, the fakes' recorded events, the café's .ics file): "Nothing is confirmed on
 * any calendar until every member has said yes to the same contract hash" — every event is
 * tentative until the organizer commits, then confirmed; a no, a take-back, a lapse or a
 * calendar turning busy frees the time on the calendar (§10: "Every later transition ...
 * rewrites the event"). Ellis answers by a rule he signed (§7.9), through his calendar's
 * meeting-accept with an acceptance his calendar agent signs under it.
 *
 * The playdate is a fixed three hours: a calendar host's services have a duration (open-ended
 * services are for platforms, §4.2).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  KeyApp,
  SchcpClient,
  createAgentKey,
  signRuleAcceptance,
  verifyHoldOffer,
} from "../../src/agent/index.js";
import type { AgentKey, DiscoveredHost, IssuedMandate } from "../../src/agent/index.js";
import { ownEventId } from "../../src/booking/calendar/own-events.js";
import { upstreamKey } from "../../src/booking/confirm/record-booking.js";
import { googleEventId } from "../../src/connectors/google/index.js";
import type { BookingResponse } from "../../src/protocol/schcp/types.js";
import { createPolicyFetch } from "../../src/protocol/net/policy-fetch.js";
import { openRedis } from "../../src/redis/client.js";
import {
  originMap,
  rewritingFetch,
  startGoogleCalendarFake,
  startGraphCalendarFake,
  type CalendarApiFake,
} from "../support/oauth-standins/index.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import { startXandikos, XANDIKOS_START_TIMEOUT_MS, type Xandikos } from "../support/xandikos.js";
import { HOUR_MS, must, operator, refusalOf, type E2eAgent } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import { CALLBACK_ORIGIN, startWebhookSink, type WebhookSink } from "./support/webhooks.js";

const TZ = "America/Toronto";
const PLACE = { name: "Trinity Bellwoods Park playground", locality: "Toronto" };
const PEOPLE = ["noor", "ellis", "priya"] as const;
type Person = (typeof PEOPLE)[number];
type Calendar = Person | "cafe";
const TOKEN = "ya29.meeting-calendars-TEST-TOKEN";

let redis: TestRedis;
let prefix: string;
let gw: E2eGateway;
let sink: WebhookSink;
let dir: string;
let xandikos: Xandikos;
let noorCalendar: string;
let google: CalendarApiFake;
let graph: CalendarApiFake;
const clock = { now: (): number => (gw === undefined ? Date.now() : gw.clock.now()) };
const agents = {} as Record<Person, E2eAgent>;
const hosts = {} as Record<Calendar, DiscoveredHost>;
/** Ellis's calendar agent: the key his rule names (cnf.jkt), which answers by it. */
const ellisAgent: AgentKey = createAgentKey();
let ellisRule: string;

const calendarSection = (id: string, extra: Record<string, unknown> = {}) => ({
  capacity: "me",
  hours: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: "08:00", close: "20:00" })),
  services: [{ id: "playdate", name: "Playdate", duration: "PT3H" }],
  granularity: "PT1H",
  approver: { email: `${id}@example.com` },
  ...extra,
});

function person(id: Person, connector: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    timezone: TZ,
    kind: "person",
    owner: agents[id].keyApp.principal,
    connector,
    calendar: calendarSection(id, extra),
    services: [{ service_id: "playdate", location: "elsewhere" }],
  };
}

beforeAll(async () => {
  redis = await startTestRedis();
  prefix = uniquePrefix("meeting-calendars");
  sink = await startWebhookSink();
  dir = mkdtempSync(join(tmpdir(), "e2e-meeting-calendars-"));
  xandikos = await startXandikos();
  noorCalendar = await xandikos.makeCalendar("noor");
  const tokens = {
    grants: [{ clientId: "test", scope: "calendar", accessToken: TOKEN, refreshToken: undefined }],
  };
  google = await startGoogleCalendarFake(tokens);
  graph = await startGraphCalendarFake(tokens);
  writeFileSync(join(dir, "google-token"), TOKEN);
  writeFileSync(join(dir, "graph-token"), TOKEN);
  mkdirSync(join(dir, "cafe"));
  for (const p of PEOPLE) {
    const key = createAgentKey();
    agents[p] = {
      key,
      client: new SchcpClient({ agentKey: key, clock }),
      keyApp: new KeyApp({ principalKey: createAgentKey(), clock }),
    };
  }
  const rule = must(
    await agents.ellis.keyApp.signRule({
      agent: ellisAgent,
      label: "Playdates Noor arranges",
      services: ["playdate"],
      organizers: [agents.noor.keyApp.principal],
    }),
    "Ellis signs his rule",
  );
  ellisRule = rule.compact;
  gw = await startGateway({
    config: {
      hosts: [
        person("noor", {
          type: "caldav",
          settings: { serverUrl: xandikos.serverUrl, calendarPath: noorCalendar },
        }),
        person(
          "ellis",
          { type: "google", settings: { accessTokenFile: join(dir, "google-token") } },
          { calendars: [{ id: "owner@example.com" }] },
        ),
        person("priya", { type: "microsoft", settings: { accessTokenFile: join(dir, "graph-token") } }),
        {
          id: "cafe",
          name: "Café Pamenar",
          timezone: TZ,
          kind: "business",
          connector: { type: "ics-dir", settings: { path: join(dir, "cafe") } },
          calendar: calendarSection("cafe"),
          policies: { confirmation: "instant", meetings: true },
        },
      ],
    },
    redisUrl: redis.url,
    redisKeyPrefix: prefix,
    runtime: {
      webhookFetch: sink.transport,
      workers: { approvalsMs: 3_600_000 },
      // Google's and Graph's real origins go to their loopback fakes; xandikos is on loopback.
      connectorFetch: rewritingFetch(
        originMap(google, graph),
        createPolicyFetch({ policy: { allowPrivate: true } }),
      ),
    },
  });
  for (const id of [...PEOPLE, "cafe"] as const) {
    expect(await gw.runtime.syncCalendarNow(id)).toBe(true);
    hosts[id] = must(
      await agents.noor.client.discoverHost(`${gw.origin}/hosts/${id}/scheduling.json`),
      `discover ${id}`,
    );
  }
}, 120_000 + XANDIKOS_START_TIMEOUT_MS);

afterAll(async () => {
  await gw?.close();
  await sink?.close();
  await google?.close();
  await graph?.close();
  await xandikos?.stop();
  const admin = openRedis(redis.url);
  await dropPrefix(admin, prefix);
  await dropPrefix(admin, `{${prefix}`);
  await admin.quit();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A start `days` ahead at 10:00 in Toronto (each test its own day, so holds never collide). */
function startIn(days: number): { start: string; end: string; startMs: number } {
  const d = new Date(clock.now() + days * 24 * HOUR_MS);
  const ymd = d.toISOString().slice(0, 10);
  const offset = new Intl.DateTimeFormat("en-CA", { timeZone: TZ, timeZoneName: "longOffset" })
    .formatToParts(new Date(`${ymd}T15:00:00Z`))
    .find((p) => p.type === "timeZoneName")!
    .value.replace("GMT", "");
  const start = `${ymd}T10:00:00${offset}`;
  return { start, end: `${ymd}T13:00:00${offset}`, startMs: Date.parse(start) };
}

interface Held {
  readonly cal: Calendar;
  readonly holdId: string;
  readonly offerSha256: string;
}

interface Meeting {
  readonly contract: string;
  readonly sha256: string;
  readonly mandate: IssuedMandate;
  readonly held: Record<string, Held>;
  readonly bookings: Record<string, BookingResponse>;
}

async function holdAt(cal: Calendar, start: string, mandate: IssuedMandate): Promise<Held> {
  const host = hosts[cal];
  const hold = must(
    await agents.noor.client.hold(
      host,
      {
        service_id: "playdate",
        start,
        ...(cal !== "cafe" && { place: PLACE }),
        callback_url: `${CALLBACK_ORIGIN}/hooks/noor`,
      },
      { mandate: mandate.compact },
    ),
    `hold at ${cal}`,
  );
  const held = must(await verifyHoldOffer(hold.body, host), "verify hold");
  return { cal, holdId: hold.body.hold_id, offerSha256: held.offer.sha256 };
}

function contractFor(
  day: number,
  held: readonly Held[],
  revision: number,
  opts: { expInSec?: number; title?: string } = {},
) {
  const { start, end } = startIn(day);
  return agents.noor.keyApp.signMeetingContract({
    exp: Math.floor(clock.now() / 1000) + (opts.expInSec ?? 6 * 3600),
    meeting_id: `mtg_cal_${day}`,
    revision,
    title: opts.title ?? "Playdate",
    tz: TZ,
    start,
    end,
    place: PLACE,
    members: held.map((h) => ({
      principal: h.cal === "cafe" ? "urn:schcp:host:cafe" : agents[h.cal].keyApp.principal,
      name: h.cal,
      host: h.cal,
      domain: null,
      service_id: "playdate",
      offer_sha256: h.offerSha256,
      ...(h.cal === "cafe" && { business: true as const }),
    })),
    attendees: [{ name: "Mira", relationship: "child" }],
  });
}

/** Holds `day`'s time at every calendar, signs the contract, confirms each hold with it. */
async function arrange(
  day: number,
  calendars: readonly Calendar[],
  opts: { expInSec?: number } = {},
): Promise<Meeting> {
  const { start } = startIn(day);
  const mandate = await agents.noor.keyApp.issueMandate({
    agent: agents.noor.key,
    audience: [...calendars],
    scope: ["hold", "book", "cancel", "reschedule"],
  });
  const held: Record<string, Held> = {};
  for (const cal of calendars) held[cal] = await holdAt(cal, start, mandate);
  const signed = must(await contractFor(day, Object.values(held), 1, opts), "sign contract");
  const bookings: Record<string, BookingResponse> = {};
  for (const h of Object.values(held)) {
    const reply = must(
      await agents.noor.client.confirmMeeting(hosts[h.cal], h.holdId, signed.compact, h.offerSha256, {
        mandate: mandate.compact,
      }),
      `confirm at ${h.cal}`,
    );
    expect(reply.status).toBe(202);
    bookings[h.cal] = reply.body;
  }
  return { contract: signed.compact, sha256: signed.sha256, mandate, held, bookings };
}

const bookingId = (m: Meeting, cal: Calendar) => m.bookings[cal]!.booking.booking_id;

/** Ellis's calendar agent answers by his rule (§5.12 by: "rule"), on his calendar. */
async function ellisByRule(contract: string): Promise<string> {
  return must(
    await signRuleAcceptance(contract, { rule: ellisRule, agentKey: ellisAgent, now: clock.now() }),
    "rule acceptance",
  ).compact;
}

async function personYes(who: Person, contract: string): Promise<string> {
  return must(await agents[who].keyApp.signAcceptance(contract), `${who} signs`).compact;
}

async function accept(m: Meeting, who: Person, acceptance: string) {
  const r = await operator(gw, who, `/bookings/${bookingId(m, who)}/meeting-accept`, { acceptance });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return (await read(m, who)).answer;
}

async function read(m: Meeting, cal: Calendar) {
  return must(
    await agents.noor.client.getBooking(hosts[cal], bookingId(m, cal), { mandate: m.mandate.compact }),
    `read at ${cal}`,
  ).body.booking;
}

/** The event the gateway wrote for the booking at `cal`, as the calendar itself holds it. */
async function eventStatus(m: Meeting, cal: Calendar): Promise<string | undefined> {
  const eventId = ownEventId(upstreamKey(cal, m.held[cal]!.holdId));
  switch (cal) {
    case "noor": {
      // CalDAV: GET the event resource from xandikos (RFC 4791 §5.3.4).
      const res = await fetch(new URL(`${noorCalendar}${eventId}.ics`, xandikos.serverUrl));
      if (res.status === 404) return undefined;
      return /^STATUS:(\w+)/m.exec(await res.text())?.[1];
    }
    case "ellis": {
      const event = google.events.get("primary")?.find((e) => e["id"] === googleEventId(eventId));
      return event?.["status"] as string | undefined;
    }
    case "priya": {
      const event = graph.events.get("default")?.find((e) => e["transactionId"] === eventId);
      return event?.["showAs"] as string | undefined;
    }
    case "cafe": {
      try {
        return /^STATUS:(\w+)/m.exec(readFileSync(join(dir, "cafe", `${eventId}.ics`), "utf8"))?.[1];
      } catch {
        return undefined;
      }
    }
  }
}

/** What each calendar calls its states: CalDAV/ics STATUS, Google status, Graph showAs. */
const TENTATIVE = { noor: "TENTATIVE", ellis: "tentative", priya: "tentative", cafe: "TENTATIVE" };
const CONFIRMED = { noor: "CONFIRMED", ellis: "confirmed", priya: "busy", cafe: "CONFIRMED" };
const FREED = { noor: "CANCELLED", ellis: "cancelled", priya: "free", cafe: "CANCELLED" };

async function statuses(m: Meeting, cals: readonly Calendar[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const c of cals) out[c] = await eventStatus(m, c);
  return out;
}
const expected = (table: Record<Calendar, string>, cals: readonly Calendar[]) =>
  Object.fromEntries(cals.map((c) => [c, table[c]]));

describe("SchCP §5.12 meetings on CalDAV, Google and Microsoft calendars (HTTP, Redis)", () => {
  it("every calendar holds the playdate tentative until every member said yes and the organizer committed, then confirmed", async () => {
    const all = ["cafe", "noor", "ellis", "priya"] as const;
    const m = await arrange(3, all);
    expect(m.bookings.noor!.booking.status).toBe("tentative");
    expect(m.bookings.cafe!.booking.status).toBe("tentative");
    expect(m.bookings.ellis!.booking.status).toBe("pending_host");
    expect(m.bookings.priya!.booking.status).toBe("pending_host");
    // The organizer's own calendar and the instant café said yes at once, yet nothing is confirmed.
    expect(await statuses(m, all)).toEqual(expected(TENTATIVE, all));

    const ellisYes = await ellisByRule(m.contract);
    expect(await accept(m, "ellis", ellisYes)).toMatchObject({
      by: "rule",
      rule: "Playdates Noor arranges",
    });
    const priyaYes = await personYes("priya", m.contract);
    expect(await accept(m, "priya", priyaYes)).toMatchObject({ by: "person" });
    // Every member has said yes; the organizer has not committed: still tentative everywhere.
    expect(await statuses(m, all)).toEqual(expected(TENTATIVE, all));

    const done: Calendar[] = [];
    for (const cal of all) {
      const r = must(
        await agents.noor.client.commitMeeting(
          hosts[cal],
          bookingId(m, cal),
          { contract_sha256: m.sha256, acceptances: [ellisYes, priyaYes] },
          { mandate: m.mandate.compact },
        ),
        `commit at ${cal}`,
      );
      expect(r.body.booking.status).toBe("confirmed");
      done.push(cal);
      // Committed calendars are confirmed; the others are still tentative.
      const rest = all.filter((c) => !done.includes(c));
      expect(await statuses(m, all)).toEqual({
        ...expected(CONFIRMED, done),
        ...expected(TENTATIVE, rest),
      });
    }
  }, 90_000);

  it("a revision one member declines: her event is freed, and the organizer calls it off on the others", async () => {
    const cals = ["noor", "ellis", "priya"] as const;
    const m = await arrange(4, cals);
    await accept(m, "ellis", await ellisByRule(m.contract));
    const revised = must(
      await contractFor(4, Object.values(m.held), 2, { title: "Playdate and picnic" }),
      "sign revision",
    );
    for (const cal of cals) {
      const b = await read(m, cal);
      const r = must(
        await agents.noor.client.reviseMeeting(
          hosts[cal],
          bookingId(m, cal),
          { sequence: b.sequence, contract: revised.compact },
          { mandate: m.mandate.compact },
        ),
        `revise at ${cal}`,
      );
      expect(r.body.booking.meeting).toMatchObject({ revision: 2, contract_sha256: revised.sha256 });
    }
    // The revision drops Ellis's yes: his calendar answers again, and nothing is confirmed.
    expect((await read(m, "ellis")).status).toBe("pending_host");
    expect(await statuses(m, cals)).toEqual(expected(TENTATIVE, cals));

    // Priya says no to the revised booking.
    const no = await operator(gw, "priya", `/bookings/${bookingId(m, "priya")}/meeting-take-back`, {
      message: "Not with a picnic, sorry.",
    });
    expect(no.status).toBe(200);
    expect(await read(m, "priya")).toMatchObject({
      status: "declined",
      refusal: { code: "DECLINED", message: "Not with a picnic, sorry." },
      answer: { by: "person" },
    });
    await sink.waitFor(
      (e) => e.type === "booking.declined" && e.booking?.booking_id === bookingId(m, "priya"),
    );
    expect(await eventStatus(m, "priya")).toBe(FREED.priya);
    // The organizer's agent cancels the others, its own last (§5.12 "Calling it off").
    for (const cal of ["ellis", "noor"] as const)
      must(
        await agents.noor.client.cancel(
          hosts[cal],
          bookingId(m, cal),
          { reason: "The meeting is off: priya said no." },
          { mandate: m.mandate.compact },
        ),
        `cancel at ${cal}`,
      );
    expect(await statuses(m, cals)).toEqual(expected(FREED, cals));
  }, 90_000);

  it("Ellis takes back the yes his rule gave: declined by the person, his Google event freed", async () => {
    const m = await arrange(5, ["noor", "ellis"]);
    await accept(m, "ellis", await ellisByRule(m.contract));
    expect(await eventStatus(m, "ellis")).toBe(TENTATIVE.ellis);
    const back = await operator(gw, "ellis", `/bookings/${bookingId(m, "ellis")}/meeting-take-back`, {
      message: "My rule said yes; I can't make it.",
    });
    expect(back.status).toBe(200);
    expect(await read(m, "ellis")).toMatchObject({
      status: "declined",
      sequence: 1,
      refusal: { code: "DECLINED", reason: "host_declined" },
      answer: { by: "person" },
    });
    expect(await eventStatus(m, "ellis")).toBe(FREED.ellis);
    expect(await eventStatus(m, "noor")).toBe(TENTATIVE.noor);
  }, 60_000);

  it("the deadline passes with Priya silent: every booking lapses and the time is freed on every calendar", async () => {
    const cals = ["noor", "ellis", "priya"] as const;
    const m = await arrange(6, cals, { expInSec: 3600 });
    await accept(m, "ellis", await ellisByRule(m.contract));
    gw.clock.advance(2 * HOUR_MS);
    try {
      for (const cal of cals) await gw.runtime.service.expireOverdue(cal);
    } finally {
      gw.clock.advance(-2 * HOUR_MS);
    }
    expect(await read(m, "priya")).toMatchObject({
      status: "expired",
      refusal: { code: "EXPIRED", reason: "host_did_not_answer" },
    });
    expect(await read(m, "ellis")).toMatchObject({
      status: "expired",
      refusal: { code: "EXPIRED", reason: "meeting_incomplete" },
    });
    expect((await read(m, "noor")).status).toBe("expired");
    expect(await statuses(m, cals)).toEqual(expected(FREED, cals));
    // The time is free again at Priya's calendar.
    const again = await agents.noor.keyApp.issueMandate({
      agent: agents.noor.key,
      audience: "priya",
      scope: ["hold"],
    });
    await holdAt("priya", startIn(6).start, again);
  }, 60_000);

  it("§5.8: Ellis's calendar turns busy before commit: his calendar declines the meeting booking, and the organizer hears it", async () => {
    const cals = ["noor", "ellis"] as const;
    const m = await arrange(7, cals);
    await accept(m, "ellis", await ellisByRule(m.contract));
    // Something else lands in Ellis's Google calendar over the playdate.
    const { startMs } = startIn(7);
    google.events.get("primary")!.push({
      kind: "calendar#event",
      id: "dentist0000000000000000000",
      etag: '"dentist"',
      status: "confirmed",
      summary: "Dentist",
      start: { dateTime: new Date(startMs + HOUR_MS).toISOString() },
      end: { dateTime: new Date(startMs + 2 * HOUR_MS).toISOString() },
      updated: new Date().toISOString(),
    });
    expect(await gw.runtime.syncCalendarNow("ellis")).toBe(true);
    expect(await read(m, "ellis")).toMatchObject({
      status: "declined",
      sequence: 1,
      refusal: { code: "DECLINED", reason: "host_declined:calendar_busy" },
      answer: { by: "person" },
    });
    await sink.waitFor(
      (e) => e.type === "booking.declined" && e.booking?.booking_id === bookingId(m, "ellis"),
    );
    expect(await eventStatus(m, "ellis")).toBe(FREED.ellis);
    // The organizer's agent cannot commit at a calendar that said no.
    const refused = refusalOf(
      await agents.noor.client.commitMeeting(
        hosts.ellis,
        bookingId(m, "ellis"),
        { contract_sha256: m.sha256, acceptances: [await ellisByRule(m.contract)] },
        { mandate: m.mandate.compact },
      ),
    );
    expect(refused.code).toBe("INVALID_STATE");
  }, 60_000);
});
