/**
 * The embedded default's meeting (SchCP §5.12): the spec's playdate, ready to try with nothing
 * configured (`npm run demo:meeting`, docs/meetings.md).
 *
 * - noor-haddad, ellis-moreau, priya-shah: three people's own calendars (§7.7 kind "person",
 *   host_approval), each taking requests from the other two only (§7.8 access "contacts"), each
 *   a local calendar directory in the data dir seeded with an event or two the first time
 *   (seedEmbeddedMeetingCalendars), offering a two-hour playdate and a 45-minute coffee that
 *   happen at a place the organizer names (location "elsewhere").
 * - bellwoods-cafe: a café that takes part in meetings (policies.meetings) and confirms at
 *   once: its signed offer is its yes.
 *
 * Each person's owner principal is not written here: it is the try-it key the data dir holds
 * for them (src/gateway/runtime/people-key-files.ts), so whoever tries the gateway holds every
 * person's key and can play each of them. Ellis answers weekend playdates by a rule
 * (ELLIS_RULE, §7.9), put in the rule store when the gateway starts.
 */
import { existsSync } from "node:fs";
import { chmod, readdir } from "node:fs/promises";
import { join } from "node:path";
import { ensurePrivateDir, PRIVATE_FILE_MODE, writePrivateFile } from "../../protocol/private-files.js";
import type { HostConfig } from "../api.js";
import { parseHostsConfig } from "./parse-config.js";

const TZ = "America/Toronto";

/** The three people of the playdate, in the order the demo lists them (Noor organizes). */
export const EMBEDDED_PEOPLE = [
  { id: "noor-haddad", name: "Noor Haddad" },
  { id: "ellis-moreau", name: "Ellis Moreau" },
  { id: "priya-shah", name: "Priya Shah" },
] as const;

export type EmbeddedPersonId = (typeof EMBEDDED_PEOPLE)[number]["id"];

export const EMBEDDED_CAFE = "bellwoods-cafe";

/** Relative to the data dir (GATEWAY_DATA_DIR). */
export const embeddedMeetingCalendarDir = (hostId: string): string => `calendars/${hostId}`;

/**
 * The rule Ellis signed for their calendar (SchCP §7.9, the spec's own example): weekend
 * playdates with anyone on Ellis's contact list (the calendar is contacts-only, so every
 * organizer who gets this far is one). Its cnf.jkt is the thumbprint of ellis-moreau's signing
 * key, the key this gateway answers with for the calendar (src/booking/answers/decide.ts).
 */
export const ELLIS_RULE = {
  hostId: "ellis-moreau",
  jti: "r-weekend-playdates",
  label: "Weekend playdates with my contacts",
  services: ["playdate"],
  weekdays: ["sat", "sun"],
  tz: TZ,
} as const;

const personHours = [
  // Weekday evenings, and the weekend from 9 to 6 (ISO weekdays: 1 Monday … 7 Sunday).
  ...[1, 2, 3, 4, 5].map((day) => ({ day, open: "17:00", close: "20:00" })),
  { day: 6, open: "09:00", close: "18:00" },
  { day: 7, open: "09:00", close: "18:00" },
];

/** The hosts config (the file format) of the three people and the café. */
export function embeddedMeetingConfig(owners: Readonly<Record<EmbeddedPersonId, string>>): {
  hosts: Record<string, unknown>[];
} {
  const person = (p: (typeof EMBEDDED_PEOPLE)[number]) => ({
    id: p.id,
    name: p.name,
    kind: "person",
    // SchCP §7.7: the person's own principal, whose key the data dir holds for trying it.
    owner: owners[p.id],
    timezone: TZ,
    domain: null,
    connector: { type: "ics-dir", settings: { path: embeddedMeetingCalendarDir(p.id) } },
    policies: {
      confirmation: "host_approval",
      retention: "P365D",
      // §7.8: the other two may ask; the owner always may (§7.7).
      access: "contacts",
      contacts: EMBEDDED_PEOPLE.filter((o) => o.id !== p.id).map((o) => owners[o.id]),
    },
    // §5.2 location "elsewhere": the organizer names the park or the café.
    services: [
      { service_id: "playdate", location: "elsewhere" },
      { service_id: "coffee", location: "elsewhere" },
    ],
    calendar: {
      capacity: "me",
      hours: personHours,
      services: [
        { id: "playdate", name: "Playdate", duration: "PT2H" },
        { id: "coffee", name: "Coffee", duration: "PT45M" },
      ],
      granularity: "PT30M",
      approver: { email: `${p.id}@people.example` },
      sync_every: "PT1M",
    },
  });
  const cafe = {
    id: EMBEDDED_CAFE,
    name: "Bellwoods Café",
    kind: "business",
    timezone: TZ,
    domain: null,
    address: { street: "790 Queen St W", locality: "Toronto", region: "ON", country: "CA" },
    connector: { type: "ics-dir", settings: { path: embeddedMeetingCalendarDir(EMBEDDED_CAFE) } },
    // §2.1, §5.12: a business takes part in meetings only when it says so; its table is held at once.
    policies: { confirmation: "instant", retention: "P365D", meetings: true },
    services: [],
    calendar: {
      capacity: "me",
      hours: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: "08:00", close: "19:00" })),
      services: [{ id: "table", name: "Family table", duration: "PT2H" }],
      granularity: "PT30M",
      approver: { email: "hello@bellwoods-cafe.example" },
      sync_every: "PT1M",
    },
  };
  return { hosts: [...EMBEDDED_PEOPLE.map(person), cafe] };
}

export function embeddedMeetingHosts(owners: Readonly<Record<EmbeddedPersonId, string>>): HostConfig[] {
  const parsed = parseHostsConfig(embeddedMeetingConfig(owners));
  // The config above is ours: failing to parse it is a programmer error.
  if (!parsed.ok) throw new Error(`embedded meeting hosts config: ${parsed.error.message}`);
  return parsed.value;
}

/**
 * The four calendars, each made the first time with an event or two on the coming weekend, so
 * the common starts skip someone's busy time: Noor swims Saturday mornings 10:30–12:00 (weekly),
 * Ellis has football Sunday mornings (weekly), Priya shops on Saturday 15:00–16:00 (once), the
 * café has a private party Saturday 09:00–11:00 (once). An existing directory is left as it
 * is: it is that calendar, edited with any tool that reads .ics files.
 */
export async function seedEmbeddedMeetingCalendars(dataDir: string, now: number): Promise<void> {
  const weekday = new Date(now).getUTCDay(); // 0 Sunday … 6 Saturday
  const saturday = ymd(now + ((6 - weekday + 7) % 7 || 7) * 86_400_000);
  const sunday = ymd(now + (((6 - weekday + 7) % 7 || 7) + 1) * 86_400_000);
  const stamp = `${ymd(now)}T000000Z`;
  const event = (uid: string, day: string, from: string, to: string, summary: string, rrule?: string) => [
    "BEGIN:VEVENT",
    `UID:${uid}`,
    `DTSTAMP:${stamp}`,
    `DTSTART;TZID=${TZ}:${day}T${from}`,
    `DTEND;TZID=${TZ}:${day}T${to}`,
    ...(rrule === undefined ? [] : [rrule]),
    `SUMMARY:${summary}`,
    "END:VEVENT",
  ];
  const seeds: Record<string, Record<string, string[]>> = {
    "noor-haddad": {
      "swimming.ics": event(
        "swimming@noor.example",
        saturday,
        "103000",
        "120000",
        "Swimming lessons",
        "RRULE:FREQ=WEEKLY;BYDAY=SA",
      ),
    },
    "ellis-moreau": {
      "football.ics": event(
        "football@ellis.example",
        sunday,
        "100000",
        "120000",
        "Football practice",
        "RRULE:FREQ=WEEKLY;BYDAY=SU",
      ),
    },
    "priya-shah": {
      "groceries.ics": event("groceries@priya.example", saturday, "150000", "160000", "Groceries"),
    },
    [EMBEDDED_CAFE]: {
      "private-party.ics": event(
        "party@bellwoods-cafe.example",
        saturday,
        "090000",
        "110000",
        "Private party",
      ),
    },
  };
  for (const [hostId, files] of Object.entries(seeds)) {
    const dir = join(dataDir, embeddedMeetingCalendarDir(hostId));
    if (existsSync(dir)) {
      // Its events may name guests: owner-only, as the embedded calendar's are.
      await ensurePrivateDir(dir);
      for (const name of await readdir(dir))
        if (name.endsWith(".ics")) await chmod(join(dir, name), PRIVATE_FILE_MODE);
      continue;
    }
    await ensurePrivateDir(dir);
    for (const [name, lines] of Object.entries(files)) {
      const text = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//booking-gateway//embedded default//EN",
        ...lines,
        "END:VCALENDAR",
        "",
      ].join("\r\n");
      await writePrivateFile(join(dir, name), text);
    }
  }
}

/** YYYYMMDD of an instant's UTC date: close enough to the Toronto date for a demo's seed. */
function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replace(/-/g, "");
}
