/**
 * npm run demo:meeting — a meeting of several people (SchCP §5.12), against a running
 * `npm start` (the embedded default): Noor Haddad arranges Saturday's playdate with Ellis Moreau
 * and Priya Shah at Bellwoods Café. Noor's agent
 *
 *   1. reads availability at the three people's calendars and the café, keeps the common starts;
 *   2. holds the first one at each;
 *   3. writes the meeting contract over the holds' signed offers, and Noor's key app signs it
 *      (the statement printed is the text Noor approves);
 *   4. confirms each hold with the contract: Noor's own booking is tentative (her signature is
 *      her yes), the café's is tentative (its offer is its yes), Ellis's is answered by the rule
 *      Ellis signed (§7.9, "Weekend playdates with my contacts"), Priya's waits for Priya;
 *   5. Priya accepts: her key app signs an acceptance of the contract she was shown, and her
 *      agent gives it to her own calendar (the operator API, as her calendar's app would);
 *   6. commits at every calendar, the café first and Noor's own last: only then is any booking
 *      confirmed.
 *
 * It uses only the agent SDK (src/agent/), over HTTP, as any agent would. The people's key apps
 * hold the try-it keys the embedded default generated in its data dir (docs/meetings.md).
 *
 *   GATEWAY_URL       the gateway's public origin (default http://127.0.0.1:8787)
 *   GATEWAY_DATA_DIR  the gateway's data dir (default .gateway), for the try-it keys
 *   OPERATOR_TOKEN    the operator credential (default: read from the data dir)
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import {
  KeyApp,
  SchcpClient,
  agentKeyFromJwk,
  commonStarts,
  createAgentKey,
  describeAgentError,
  verifyHoldOffer,
} from "../src/agent/index.js";
import type { AgentError, DiscoveredHost } from "../src/agent/index.js";
import type { Result } from "../src/protocol/result.js";
import type { AvailabilityResponse, Booking, BookingResponse } from "../src/protocol/schcp/types.js";
import {
  addDays,
  formatInstant,
  instantToWallClock,
  isoWeekday,
  wallClockToInstant,
} from "../src/protocol/time/index.js";
import type { LocalDate } from "../src/protocol/time/index.js";

const TZ = "America/Toronto";
const NOOR = "noor-haddad";
const ELLIS = "ellis-moreau";
const PRIYA = "priya-shah";
const CAFE = "bellwoods-cafe";
const PEOPLE = [NOOR, ELLIS, PRIYA] as const;
const CALENDARS = [CAFE, NOOR, ELLIS, PRIYA] as const;
type Calendar = (typeof CALENDARS)[number];
const SERVICE: Record<Calendar, string> = {
  [CAFE]: "table",
  [NOOR]: "playdate",
  [ELLIS]: "playdate",
  [PRIYA]: "playdate",
};
const PLACE = { name: "Bellwoods Café", street: "790 Queen St W", locality: "Toronto" };

const baseUrl = (process.env["GATEWAY_URL"] ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
const dataDirSetting = process.env["GATEWAY_DATA_DIR"] ?? ".gateway";
const dataDir = isAbsolute(dataDirSetting) ? dataDirSetting : resolve(process.cwd(), dataDirSetting);
let step = 0;

function show(title: string, lines: readonly string[] = []): void {
  step += 1;
  process.stdout.write(`\n${step}. ${title}\n`);
  for (const line of lines) process.stdout.write(`   ${line}\n`);
}

function fail(what: string, error: AgentError | string): never {
  const detail = typeof error === "string" ? error : describeAgentError(error);
  process.stderr.write(`\ndemo:meeting: ${what} failed: ${detail}\n`);
  process.exit(1);
}

function must<T>(r: Result<T, AgentError>, what: string): T {
  if (!r.ok) fail(what, r.error);
  return r.value;
}

function readDataFile(name: string, what: string): string {
  try {
    return readFileSync(join(dataDir, name), "utf8");
  } catch {
    fail(
      "reading the data dir",
      `${what} is not in ${join(dataDir, name)}: run the demo against \`npm start\`'s embedded default, with GATEWAY_DATA_DIR set as the gateway's`,
    );
  }
}

/** A person's key app over the try-it key the embedded default keeps for them (docs/meetings.md). */
function keyAppOf(hostId: string): KeyApp {
  const jwk = JSON.parse(readDataFile(`try-it-people/${hostId}.jwk`, `${hostId}'s try-it key`)) as unknown;
  const key = agentKeyFromJwk(jwk);
  if (!key.ok) fail(`${hostId}'s try-it key`, key.error.message);
  return new KeyApp({ principalKey: key.value });
}

/** "Saturday 12:00 p.m. (2026-12-12T12:00:00-05:00, America/Toronto)". */
function inZone(iso: string): string {
  const ms = Date.parse(iso);
  const words = new Intl.DateTimeFormat("en-CA", {
    timeZone: TZ,
    weekday: "long",
    day: "numeric",
    month: "long",
    hour: "numeric",
    minute: "2-digit",
  }).format(ms);
  return `${words} (${formatInstant(ms, TZ)}, ${TZ})`;
}

function answered(b: Booking): string {
  if (b.answer === undefined) return "not answered yet";
  return `answered by ${b.answer.by}${b.answer.rule === undefined ? "" : ` ("${b.answer.rule}")`}`;
}

function line(cal: Calendar, b: Booking): string {
  const acc = b.meeting?.acceptance === undefined ? "" : ", acceptance on file";
  return `${cal}: booking ${b.booking_id} ${b.status}, ${answered(b)}${acc}`;
}

/** The operator API of a person's own calendar (what their calendar's app reaches). */
async function operatorPost(hostId: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const token =
    process.env["OPERATOR_TOKEN"] ?? readDataFile("operator-token", "the operator credential").trim();
  const res = await fetch(`${baseUrl}/operator/v0/${hostId}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) fail(`POST /operator/v0/${hostId}${path}`, `HTTP ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** The Saturday after today in Toronto, as a window from its midnight to the next. */
function nextSaturday(now: number): { start: string; end: string; date: LocalDate } {
  const w = instantToWallClock(now, TZ);
  const today = { year: w.year, month: w.month, day: w.day };
  const date = addDays(today, (6 - isoWeekday(today) + 7) % 7 || 7);
  const midnight = (d: LocalDate) => {
    const at = wallClockToInstant({ ...d, hour: 0, minute: 0, second: 0, millisecond: 0 }, TZ);
    if (!at.ok) fail("the window", at.error.message);
    return formatInstant(at.value, TZ);
  };
  return { start: midnight(date), end: midnight(addDays(date, 1)), date };
}

async function main(): Promise<void> {
  const agentKey = createAgentKey();
  const client = new SchcpClient({ agentKey });
  const keyApps = Object.fromEntries(PEOPLE.map((p) => [p, keyAppOf(p)])) as Record<
    (typeof PEOPLE)[number],
    KeyApp
  >;
  const noor = keyApps[NOOR];

  const listed = await client.discoverOperator(baseUrl);
  if (!listed.ok) {
    process.stderr.write(
      `demo:meeting: no gateway answers at ${baseUrl} (${describeAgentError(listed.error)}); start one with npm start\n`,
    );
    process.exit(2);
  }
  const hosts = {} as Record<Calendar, DiscoveredHost>;
  for (const id of CALENDARS) {
    const entry = listed.value.document.hosts.find((h) => h.id === id);
    if (entry === undefined)
      fail("discovery", `the gateway does not list ${id} (is it the embedded default?)`);
    hosts[id] = must(await client.discoverHost(entry.discovery), `discover ${id}`);
    if (!(hosts[id].document.capabilities ?? []).includes("meetings"))
      fail("discovery", `${id} does not advertise meetings (§5.12)`);
  }
  show("Noor's agent finds four calendars that take part in meetings", [
    ...CALENDARS.map((id) => {
      const h = hosts[id].document.host;
      return `${id}: ${h.name}, kind ${h.kind ?? "business"}`;
    }),
  ]);

  // §3.3: one mandate naming every member's calendar, scope hold, book, cancel and reschedule.
  const mandate = await noor.issueMandate({
    agent: agentKey,
    audience: [...CALENDARS],
    scope: ["hold", "book", "cancel", "reschedule"],
  });

  // Step 1: availability at each calendar; the starts all of them offer.
  const window = nextSaturday(Date.now());
  const responses: AvailabilityResponse[] = [];
  for (const id of CALENDARS) {
    responses.push(
      must(
        await client.availability(
          hosts[id],
          { service_id: SERVICE[id], window: { start: window.start, end: window.end }, limit: 100 },
          { mandate: mandate.compact },
        ),
        `availability at ${id}`,
      ).body,
    );
  }
  const common = commonStarts(responses);
  const first = common[0];
  if (first === undefined) fail("availability", "the four calendars have no start in common on Saturday");
  show(`Availability on Saturday: ${common.length} start(s) every calendar offers`, [
    ...CALENDARS.map((id, i) => `${id}: ${responses[i]!.slots.length} free ${SERVICE[id]} start(s)`),
    `first in common: ${inZone(first.start)}`,
  ]);

  // Step 2: hold that start at each calendar, naming the place at the people's (location elsewhere).
  const held = {} as Record<Calendar, { holdId: string; offerSha256: string; end: string }>;
  for (const id of CALENDARS) {
    const person = id !== CAFE;
    const hold = must(
      await client.hold(
        hosts[id],
        { service_id: SERVICE[id], start: first.start, ...(person && { place: PLACE }) },
        { mandate: mandate.compact },
      ),
      `hold at ${id}`,
    );
    const offer = must(await verifyHoldOffer(hold.body, hosts[id]), `verify ${id}'s offer`);
    if (hold.body.end === undefined)
      fail(`hold at ${id}`, "the hold has no end (this demo's services have one)");
    held[id] = { holdId: hold.body.hold_id, offerSha256: offer.offer.sha256, end: hold.body.end };
  }
  show("Noor's agent holds it at each calendar and verifies each signed offer", [
    ...CALENDARS.map((id) => `${id}: hold ${held[id].holdId}, offer ${held[id].offerSha256}`),
  ]);

  // Steps 3-4: the contract over the offers; Noor's key app signs it (her approval).
  const member = (id: (typeof PEOPLE)[number]) => ({
    principal: keyApps[id].principal,
    name: hosts[id].document.host.name,
    host: id,
    domain: null,
    service_id: SERVICE[id],
    offer_sha256: held[id].offerSha256,
  });
  const nowSec = Math.floor(Date.now() / 1000);
  const contract = must(
    await noor.signMeetingContract({
      // exp: everyone's answer is due within twelve hours, and before the playdate starts.
      exp: Math.min(nowSec + 12 * 3600, Math.floor(first.epochMs / 1000) - 3600),
      meeting_id: `mtg_playdate_${window.date.year}${String(window.date.month).padStart(2, "0")}${String(window.date.day).padStart(2, "0")}_${nowSec}`,
      revision: 1,
      title: "Playdate",
      tz: TZ,
      start: first.start,
      end: held[NOOR].end,
      place: PLACE,
      members: [
        member(NOOR),
        member(ELLIS),
        member(PRIYA),
        {
          principal: `urn:schcp:host:${CAFE}`,
          name: hosts[CAFE].document.host.name,
          host: CAFE,
          domain: null,
          service_id: SERVICE[CAFE],
          offer_sha256: held[CAFE].offerSha256,
          business: true,
        },
      ],
      attendees: [{ name: "Mira", relationship: "child" }],
    }),
    "sign the contract",
  );
  show("Noor approves the meeting contract; her key app signs it", [
    `statement: ${contract.statement}`,
    `contract_sha256 ${contract.sha256}`,
  ]);

  // Step 5: confirm each hold with the contract.
  const bookings = {} as Record<Calendar, Booking>;
  const confirmLines: string[] = [];
  for (const id of CALENDARS) {
    const reply = must(
      await client.confirmMeeting(hosts[id], held[id].holdId, contract.compact, held[id].offerSha256, {
        mandate: mandate.compact,
      }),
      `confirm at ${id}`,
    );
    bookings[id] = reply.body.booking;
    if (reply.body.booking.status === "confirmed")
      fail(`confirm at ${id}`, "a meeting booking was confirmed before the commit");
    confirmLines.push(`${line(id, reply.body.booking)} (HTTP ${reply.status})`);
  }
  show("Noor's agent confirms each hold with the contract: nothing is confirmed yet", confirmLines);

  const read = async (id: Calendar): Promise<Booking> => {
    const r: { body: BookingResponse } = must(
      await client.getBooking(hosts[id], bookings[id].booking_id, { mandate: mandate.compact }),
      `read the booking at ${id}`,
    );
    return r.body.booking;
  };

  // §7.9: where Ellis's calendar answers a meeting by Ellis's rule at confirm, Ellis's booking
  // is tentative with the calendar's acceptance in meeting.acceptance. Where it did not, Ellis
  // accepts themselves, as Priya does next.
  if (bookings[ELLIS].meeting?.acceptance === undefined) {
    const yes = must(await keyApps[ELLIS].signAcceptance(contract.compact), "Ellis signs");
    await operatorPost(ELLIS, `/bookings/${bookings[ELLIS].booking_id}/meeting-accept`, {
      acceptance: yes.compact,
    });
    bookings[ELLIS] = await read(ELLIS);
    show("Ellis's calendar did not answer by Ellis's rule at confirm: Ellis accepts on their own calendar", [
      `statement: ${yes.statement}`,
      line(ELLIS, bookings[ELLIS]),
    ]);
  }

  // Priya's agent shows her the text, her key app signs, her calendar keeps the acceptance.
  const priyaYes = must(await keyApps[PRIYA].signAcceptance(contract.compact), "Priya signs");
  await operatorPost(PRIYA, `/bookings/${bookings[PRIYA].booking_id}/meeting-accept`, {
    acceptance: priyaYes.compact,
  });
  bookings[PRIYA] = await read(PRIYA);
  show("Priya accepts on her own calendar", [
    `statement: ${priyaYes.statement}`,
    line(PRIYA, bookings[PRIYA]),
  ]);

  // Step 6: the acceptances the members' calendars keep, then commit, the café first, Noor's last.
  const acceptances: string[] = [];
  for (const id of [ELLIS, PRIYA] as const) {
    const b = await read(id);
    if (b.meeting?.acceptance === undefined) fail(`collect ${id}'s acceptance`, "the calendar keeps none");
    acceptances.push(b.meeting.acceptance);
  }
  const commitLines: string[] = [];
  for (const id of [CAFE, ELLIS, PRIYA, NOOR] as const) {
    const done = must(
      await client.commitMeeting(
        hosts[id],
        bookings[id].booking_id,
        { contract_sha256: contract.sha256, acceptances },
        { mandate: mandate.compact },
      ),
      `commit at ${id}`,
    );
    bookings[id] = done.body.booking;
    commitLines.push(`${line(id, done.body.booking)} (sequence ${done.body.booking.sequence})`);
  }
  show("Every member said yes to the same hash: Noor's agent commits at every calendar", commitLines);

  show("The playdate", [
    `${inZone(bookings[NOOR].start)} to ${inZone(bookings[NOOR].end ?? held[NOOR].end)}`,
    `at ${PLACE.name}, ${PLACE.street}, ${PLACE.locality}`,
    ...CALENDARS.map((id) => `${id}: ${bookings[id].status}`),
  ]);
  process.stdout.write("\nDone.\n");
}

main().catch((e: unknown) => fail("the demo", e instanceof Error ? e.message : String(e)));
