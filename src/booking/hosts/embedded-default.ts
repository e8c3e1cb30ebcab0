/**
 * The embedded default operator: three synthetic hosts, written in the same
 * config format a deployment's file uses, so the default doubles as an example and is checked
 * by the same parser. The synthetic scenarios (src/connectors/synthetic/scenarios.ts) carry
 * the matching catalogs: services, resources and hours, prices and taxes.
 *
 * 1. maple-street-auto: instant confirmation, bays and technicians, HST on every line.
 * 2. harbourview-dental: host_approval, hygienists, a tax-exempt cleaning.
 * 3. fades-on-queen: instant, selectable barbers, an unpriced consultation; participants and
 *    reconfirmation (SchCP §5.10).
 * And, apart (EMBEDDED_BRANCH_CONFIG), maple-street-auto-east: maple-street-auto's second
 *    location; the two name one brand and list each other (SchCP §2.4).
 * And, apart (EMBEDDED_CALENDAR_CONFIG), nora-okafor-tutoring: a person's own calendar (SchCP §10 calendar fallback): a local
 *    calendar directory in the data dir, seeded with a weekly class and a one-off the first time
 *    (seedEmbeddedCalendar); every booking waits for Nora, who gets an approval link (printed to
 *    the console and kept in <data dir>/host-messages.jsonl, since there is no mail server).
 */
import { existsSync } from "node:fs";
import { chmod, readdir } from "node:fs/promises";
import { ensurePrivateDir, PRIVATE_FILE_MODE, writePrivateFile } from "../../protocol/private-files.js";
import { join } from "node:path";
import type { HostConfig } from "../api.js";
import { parseHostsConfig } from "./parse-config.js";

const synthetic = (scenario: string) => ({ type: "synthetic", settings: { scenario } });

export const EMBEDDED_CALENDAR_HOST = "nora-okafor-tutoring";
/** Relative to the data dir (GATEWAY_DATA_DIR). */
export const EMBEDDED_CALENDAR_DIR = "calendars/nora-okafor-tutoring";

/**
 * SchCP §2.4: Maple Street Auto's two locations, each listing the other. No discovery URLs:
 * both are served here, so each is published at this gateway's URL for it (its public origin).
 */
const EMBEDDED_BRAND = {
  id: "maple-street-group",
  name: "Maple Street Auto",
  locations: [
    { host_id: "maple-street-auto", name: "Queen St" },
    { host_id: "maple-street-auto-east", name: "Danforth Ave" },
  ],
};

export const EMBEDDED_DEFAULT_CONFIG = {
  hosts: [
    {
      id: "maple-street-auto",
      name: "Maple Street Auto",
      kind: "business",
      timezone: "America/Toronto",
      domain: null,
      address: { locality: "Toronto", region: "ON", country: "CA" },
      // §9.2: published so every refusal carries a non-agent way in.
      contact: { phone: "+1-416-555-0177" },
      connector: synthetic("maple-street-auto"),
      // §3.4: also accepts SD-JWT VC mandates (auth.mandates lists "dc+sd-jwt").
      policies: { confirmation: "instant", retention: "P365D", sd_jwt_mandates: true },
      services: [],
      brand: EMBEDDED_BRAND,
    },
    {
      id: "harbourview-dental",
      name: "Harbourview Dental",
      kind: "business",
      timezone: "America/Vancouver",
      domain: null,
      address: { locality: "Vancouver", region: "BC", country: "CA" },
      connector: synthetic("harbourview-dental"),
      policies: { confirmation: "host_approval", closed_mandate: "never", retention: "P365D" },
      services: [],
    },
    {
      id: "fades-on-queen",
      name: "Fades on Queen",
      kind: "business",
      timezone: "America/Toronto",
      domain: null,
      address: { locality: "Toronto", region: "ON", country: "CA" },
      connector: synthetic("fades-on-queen"),
      policies: {
        confirmation: "instant",
        retention: "P365D",
        // SchCP §5.10: participants get up to a day to answer; every booking is reconfirmed a
        // day before, or released.
        tentative: { max_confirm_within: "PT24H" },
        reconfirm: { before: "PT24H", default: "release" },
        // §5.9: a waitlist whose offers last two minutes (npm run demo:waitlist).
        waitlist: { offer_ttl: "PT2M" },
      },
      // §5.2 selectable: the guest may pick a barber.
      services: [
        { service_id: "haircut", selectable: true },
        { service_id: "consultation", selectable: true },
      ],
    },
  ],
} as const;

/**
 * The fourth embedded host, served by `npm start` (and `booking-gateway mcp`) beside the three
 * synthetic ones: a person's own calendar. Kept apart from EMBEDDED_DEFAULT_CONFIG, whose three
 * synthetic hosts are the fixture many tests build on.
 */
export const EMBEDDED_CALENDAR_CONFIG = {
  hosts: [
    {
      id: EMBEDDED_CALENDAR_HOST,
      name: "Nora Okafor — maths tutoring",
      kind: "person",
      // SchCP §7.7: the person's own principal. A stand-in for the demo: nobody holds its key, so
      // no booking or rule here is ever the owner's own until an operator names theirs.
      owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
      timezone: "America/Toronto",
      domain: null,
      connector: { type: "ics-dir", settings: { path: EMBEDDED_CALENDAR_DIR } },
      // Approval is the default for a calendar host; the approver gets a link.
      policies: { retention: "P365D" },
      services: [],
      calendar: {
        capacity: "me",
        hours: [
          { day: 1, open: "15:00", close: "20:00" },
          { day: 2, open: "15:00", close: "20:00" },
          { day: 3, open: "15:00", close: "20:00" },
          { day: 4, open: "15:00", close: "20:00" },
          { day: 6, open: "10:00", close: "14:00" },
        ],
        services: [
          {
            id: "lesson",
            name: "Maths lesson",
            duration: "PT1H",
            buffer_after: "PT15M",
            price: { amount: "60.00", currency: "CAD" },
          },
          { id: "intro-call", name: "Intro call", duration: "PT15M" },
        ],
        granularity: "PT15M",
        approver: { email: "nora@tutoring.example" },
        sync_every: "PT1M",
      },
    },
  ],
} as const;

/** Maple Street Auto's second location (§2.4), served by `npm start` beside the others. */
export const EMBEDDED_BRANCH_CONFIG = {
  hosts: [
    {
      id: "maple-street-auto-east",
      name: "Maple St. Auto Danforth",
      kind: "business",
      timezone: "America/Toronto",
      domain: null,
      address: { locality: "Toronto", region: "ON", country: "CA" },
      contact: { phone: "+1-416-555-0178" },
      connector: synthetic("maple-street-auto-east"),
      policies: { confirmation: "instant", retention: "P365D" },
      services: [],
      brand: EMBEDDED_BRAND,
    },
  ],
};

export function embeddedBranchHost(): HostConfig {
  const parsed = parseHostsConfig(EMBEDDED_BRANCH_CONFIG);
  if (!parsed.ok || parsed.value[0] === undefined) {
    throw new Error(`embedded branch host config: ${parsed.ok ? "empty" : parsed.error.message}`);
  }
  return parsed.value[0];
}

export function embeddedCalendarHost(): HostConfig {
  const parsed = parseHostsConfig(EMBEDDED_CALENDAR_CONFIG);
  if (!parsed.ok || parsed.value[0] === undefined) {
    throw new Error(`embedded calendar host config: ${parsed.ok ? "empty" : parsed.error.message}`);
  }
  return parsed.value[0];
}

export function embeddedDefaultHosts(): HostConfig[] {
  const parsed = parseHostsConfig(EMBEDDED_DEFAULT_CONFIG);
  // The constant above is ours: failing to parse it is a programmer error.
  if (!parsed.ok) throw new Error(`embedded default hosts config: ${parsed.error.message}`);
  return parsed.value;
}

/**
 * The embedded calendar host's calendar, made the first time: a weekly class every Tuesday
 * 16:00–17:30 (one week moved to Wednesday, one week cancelled) and a one-off two days from
 * now, so availability shows recurring busy time with its exceptions. An existing directory
 * is left as it is: it is the host's calendar, edited with any tool that reads .ics files.
 */
export async function seedEmbeddedCalendar(dataDir: string, now: number): Promise<string> {
  const dir = join(dataDir, EMBEDDED_CALENDAR_DIR);
  if (existsSync(dir)) {
    // Its events name guests: owner-only, also when an earlier version left it readable.
    await ensurePrivateDir(dir);
    for (const name of await readdir(dir))
      if (name.endsWith(".ics")) await chmod(join(dir, name), PRIVATE_FILE_MODE);
    return dir;
  }
  await ensurePrivateDir(dir);
  const day = (offset: number) =>
    new Date(now + offset * 86_400_000).toISOString().slice(0, 10).replace(/-/g, "");
  const stamp = `${day(0)}T000000Z`;
  const lines = (...l: string[]) => [...l, ""].join("\r\n");
  const cal = (...events: string[]) =>
    lines(
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "PRODID:-//booking-gateway//embedded default//EN",
      ...events,
      "END:VCALENDAR",
    );
  // The Tuesday on or before now, in local date terms: close enough for a demo series.
  const weekday = new Date(now).getUTCDay(); // 0 Sunday
  const back = (weekday + 7 - 2) % 7;
  const first = day(-back);
  const second = day(7 - back);
  const third = day(14 - back);
  const weekly = cal(
    "BEGIN:VEVENT",
    "UID:weekly-class@nora.example",
    `DTSTAMP:${stamp}`,
    `DTSTART;TZID=America/Toronto:${first}T160000`,
    `DTEND;TZID=America/Toronto:${first}T173000`,
    "RRULE:FREQ=WEEKLY;BYDAY=TU",
    `EXDATE;TZID=America/Toronto:${third}T160000`,
    "SUMMARY:Group class",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "UID:weekly-class@nora.example",
    `DTSTAMP:${stamp}`,
    `RECURRENCE-ID;TZID=America/Toronto:${second}T160000`,
    `DTSTART;TZID=America/Toronto:${day(8 - back)}T170000`,
    `DTEND;TZID=America/Toronto:${day(8 - back)}T183000`,
    "SUMMARY:Group class (moved to Wednesday)",
    "END:VEVENT",
  );
  const oneOff = cal(
    "BEGIN:VEVENT",
    "UID:dentist@nora.example",
    `DTSTAMP:${stamp}`,
    `DTSTART;TZID=America/Toronto:${day(2)}T150000`,
    `DTEND;TZID=America/Toronto:${day(2)}T160000`,
    "SUMMARY:Dentist",
    "END:VEVENT",
  );
  await writePrivateFile(join(dir, "weekly-class.ics"), weekly);
  await writePrivateFile(join(dir, "dentist.ics"), oneOff);
  return dir;
}
