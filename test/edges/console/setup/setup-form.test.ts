/** The setup form → a config file's host entry, checked by the gateway's own parsers. */
import { describe, expect, it } from "vitest";
import { parseCalendarSection } from "../../../../src/booking/calendar/config.js";
import { parseHostsConfig } from "../../../../src/booking/hosts/index.js";
import { draftConfig, parseNewHost, suggestHostId } from "../../../../src/edges/console/setup/new-host.js";
import {
  buildHostEntry,
  checkHostEntry,
  DEFAULT_VALUES,
  inputForField,
  readSetupForm,
  serviceRows,
  valuesFromEntry,
  withChoiceDefaults,
} from "../../../../src/edges/console/setup/setup-form.js";
import type { HostChoices } from "../../../../src/edges/console/setup/choices.js";

const newHost = (source: string) =>
  parseNewHost(new URLSearchParams({ name: "Salón Lumen", timezone: "Europe/Madrid", source }), [
    "google",
    "caldav",
    "square",
  ]);

const setupForm = (extra: Record<string, string> = {}) => {
  const f = new URLSearchParams({
    write: "cal-1",
    capacity: "me",
    svc0_name: "Haircut",
    svc0_duration: "45",
    svc0_buffer: "15",
    svc0_price: "25.00",
    svc0_currency: "eur",
    svc1_name: "",
    d1_open: "09:00",
    d1_close: "17:00",
    d3_open: "10:00",
    d3_close: "14:00",
    approver_email: "ana@example.com",
    confirmation: "host_approval",
    retention: "365",
    access: "public",
    hold_ttl: "10",
    holds_per_agent: "3",
    ...extra,
  });
  f.append("read", "cal-1");
  f.append("read", "cal-2");
  return f;
};

describe("Add a business", () => {
  it("suggests a host id from the name and makes a vault draft for an OAuth source", () => {
    expect(suggestHostId("Salón Lumen & Co.")).toBe("salon-lumen-co");
    const { values, errors } = newHost("google");
    expect(errors).toEqual({});
    expect(draftConfig(values)).toEqual({
      id: "salon-lumen",
      name: "Salón Lumen",
      timezone: "Europe/Madrid",
      kind: "business",
      connector: {
        type: "google",
        settings: {
          credentials: "vault",
          clientIdEnv: "GOOGLE_CLIENT_ID",
          clientSecretEnv: "GOOGLE_CLIENT_SECRET",
        },
      },
    });
  });

  it("refuses a bad time zone, a bad id and a source not offered, per input", () => {
    const { errors } = parseNewHost(
      new URLSearchParams({ name: "X", host_id: "Bad Id", timezone: "Mars/Olympus", source: "microsoft" }),
      ["google", "caldav"],
    );
    expect(Object.keys(errors).sort()).toEqual(["host_id", "source", "timezone"]);
  });
});

describe("the setup form builds a config file entry", () => {
  const record = {
    id: "salon-lumen",
    source: "google" as const,
    config: draftConfig(newHost("google").values),
  };

  it("that parseHostsConfig and parseCalendarSection accept", () => {
    const { entry, errors } = buildHostEntry(record, readSetupForm(setupForm()));
    expect(errors).toEqual({});
    const parsed = parseHostsConfig({ hosts: [entry.config] });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value[0]?.policies.confirmation).toBe("host_approval");
    expect(parsed.value[0]?.policies.holds.maxTtlMs).toBe(600_000);
    expect(parsed.value[0]?.connector.settings).toMatchObject({ credentials: "vault" });
    const section = parseCalendarSection(entry.config.calendar, "/calendar");
    expect(section.ok).toBe(true);
    expect(entry.config.calendar).toEqual({
      capacity: "me",
      hours: [
        { day: 1, open: "09:00", close: "17:00" },
        { day: 3, open: "10:00", close: "14:00" },
      ],
      services: [
        {
          id: "haircut",
          name: "Haircut",
          duration: "PT45M",
          buffer_after: "PT15M",
          price: { amount: "25.00", currency: "EUR" },
        },
      ],
      calendars: [{ id: "cal-1" }, { id: "cal-2" }],
      write_calendar: "cal-1",
      approver: { email: "ana@example.com" },
    });
    expect(checkHostEntry(entry.config)).toBeUndefined();
  });

  it("names the input of each bad value", () => {
    const { errors } = buildHostEntry(
      record,
      readSetupForm(
        setupForm({ d3_close: "25:00", svc0_duration: "", approver_email: "nope", write: "cal-9" }),
      ),
    );
    expect(Object.keys(errors).sort()).toEqual(["approver_email", "d3_close", "svc0_duration", "write"]);
  });

  it("maps a parser's JSON pointer back to the input it came from", () => {
    // Three decimals pass the form's own check; the core's money parser refuses them for EUR.
    const { entry, errors } = buildHostEntry(record, readSetupForm(setupForm({ svc0_price: "25.125" })));
    expect(errors).toEqual({});
    const problem = checkHostEntry(entry.config);
    expect(problem?.field).toMatch(/^\/calendar\/services\/0\/price/);
    expect(inputForField(problem!.field, entry.inputs)).toMatch(/^svc0_(price|currency)$/);
    expect(inputForField("/calendar/hours/1/close", entry.inputs)).toBe("d3_close");
    expect(inputForField("/calendar/services/0/price/currency", entry.inputs)).toBe("svc0_currency");
    expect(inputForField("/policies/holds/max_ttl", entry.inputs)).toBe("hold_ttl");
  });

  it("reads an entry back into the same form (the settings page)", () => {
    const { entry } = buildHostEntry(record, readSetupForm(setupForm()));
    const again = buildHostEntry(record, valuesFromEntry(entry.config));
    expect(again.errors).toEqual({});
    expect(again.entry.config).toEqual(entry.config);
  });

  it("a Square entry: location, pinned version, payment, services not offered unselectable", () => {
    const sq = {
      id: "salon-lumen",
      source: "square" as const,
      config: draftConfig(newHost("square").values),
    };
    const f = setupForm({ location: "L1", payment: "none", version: "2026-09-16" });
    f.append("offer", "V1");
    const { entry, errors } = buildHostEntry(sq, readSetupForm(f), {
      kind: "square",
      locations: [{ id: "L1", name: "Main", timezone: "Europe/Lisbon" }],
      team: [],
      services: [
        { id: "V1", name: "Cut" },
        { id: "V2", name: "Colour" },
      ],
    });
    expect(errors).toEqual({});
    expect(entry.config).toMatchObject({
      timezone: "Europe/Lisbon",
      connector: {
        type: "square",
        settings: {
          credentials: "vault",
          locationId: "L1",
          version: "2026-09-16",
          paymentRequirement: "none",
        },
      },
      services: [{ service_id: "V2", selectable: false }],
    });
    expect(parseHostsConfig({ hosts: [entry.config] }).ok).toBe(true);
  });
});

/** A Google draft, as "Add a business" makes it. */
const draftRecord = () => ({
  id: "salon-lumen",
  source: "google" as const,
  config: draftConfig(newHost("google").values),
});

describe("setup form defaults", () => {
  const calendars = (...c: Array<{ id: string; primary?: boolean; writable?: boolean }>): HostChoices => ({
    kind: "calendar",
    calendars: c.map((x) => ({
      id: x.id,
      name: x.id,
      primary: x.primary ?? false,
      writable: x.writable ?? true,
    })),
  });

  it("the account's only calendar is ticked to read and to write, so the first save works", () => {
    const v = withChoiceDefaults(DEFAULT_VALUES, calendars({ id: "/user/calendars/calendar/" }));
    expect(v.read).toEqual(["/user/calendars/calendar/"]);
    expect(v.write).toBe("/user/calendars/calendar/");
  });

  it("among several, the main calendar; one that cannot be written is read, and the writable one written", () => {
    expect(
      withChoiceDefaults(DEFAULT_VALUES, calendars({ id: "a" }, { id: "main", primary: true }, { id: "b" })),
    ).toMatchObject({ read: ["main"], write: "main" });
    expect(
      withChoiceDefaults(
        DEFAULT_VALUES,
        calendars({ id: "holidays", primary: true, writable: false }, { id: "work" }),
      ),
    ).toMatchObject({ read: ["holidays", "work"], write: "work" });
    // No main one and several: nothing is guessed.
    expect(withChoiceDefaults(DEFAULT_VALUES, calendars({ id: "a" }, { id: "b" }))).toMatchObject({
      read: [],
      write: "",
    });
  });

  it("what the owner chose is kept, and Square's choices are left alone", () => {
    const chosen = { ...DEFAULT_VALUES, read: ["b"], write: "b" };
    expect(withChoiceDefaults(chosen, calendars({ id: "a", primary: true }))).toBe(chosen);
    const square: HostChoices = { kind: "square", locations: [], team: [], services: [] };
    expect(withChoiceDefaults(DEFAULT_VALUES, square)).toBe(DEFAULT_VALUES);
  });

  it("blank service rows carry the business's currency, and a row with only that is no service", () => {
    const rows = serviceRows(DEFAULT_VALUES, "CAD");
    expect(rows.map((r) => r.currency)).toEqual(["CAD", "CAD"]);
    const form = setupForm({ svc1_name: "", svc1_currency: "CAD" });
    const built = buildHostEntry(draftRecord(), readSetupForm(form));
    expect(built.errors).toEqual({});
    expect((built.entry.config.calendar as { services: unknown[] }).services).toHaveLength(1);
  });

  it("a phone typed with spaces and brackets is kept as the config takes it; a wrong one names the zone's example", () => {
    const v = readSetupForm(setupForm({ approver_phone: "+1 (416) 555-0142" }));
    expect(v.approverPhone).toBe("+14165550142");
    const toronto = { ...draftRecord(), config: { ...draftRecord().config, timezone: "America/Toronto" } };
    const bad = buildHostEntry(toronto, readSetupForm(setupForm({ approver_phone: "416 555" })));
    expect(bad.errors.approver_phone).toBe("Give the number with its country code, such as +1 416 555 0142.");
    const price = buildHostEntry(toronto, readSetupForm(setupForm({ svc0_currency: "" })));
    expect(price.errors.svc0_currency).toBe("Give the currency's three-letter code, such as CAD.");
  });
});

describe("a refused setup form comes back as the owner left it", () => {
  it("blank service rows are not kept as services: the form shows the filled ones, then fresh blanks", () => {
    const v = readSetupForm(
      setupForm({
        svc0_name: "",
        svc0_duration: "",
        svc0_buffer: "",
        svc0_price: "",
        svc1_name: "Massage",
        svc1_duration: "30",
      }),
    );
    expect(v.services.map((s) => s.name)).toEqual(["Massage"]);
    expect(serviceRows(v, "EUR").map((s) => s.name)).toEqual(["Massage", "", ""]);
  });
});
