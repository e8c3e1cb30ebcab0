/** The synthetic platform's availability: hours, grid, buffers, appointments (SchCP §4.1, §4.2). */
import { describe, expect, it } from "vitest";
import type { CatalogService } from "../../../src/connectors/port.js";
import {
  fadesOnQueen,
  harbourviewDental,
  mapleStreetAuto,
  type SyntheticScenario,
} from "../../../src/connectors/synthetic/index.js";
import { gridStarts } from "../../../src/connectors/synthetic/availability.js";
import {
  connectorFor,
  DAY,
  failure,
  hhmm,
  HOUR,
  maple,
  MIN,
  oilChange,
  t,
  testClock,
  value,
} from "./support.js";

const TORONTO = "America/Toronto";
const monday = { start: t("2026-10-19T00:00:00-04:00"), end: t("2026-10-20T00:00:00-04:00") };
const ALL_MAPLE = ["bay-1", "bay-2", "tech-alex", "tech-sam", "tech-priya"];

const starts = (slots: ReadonlyArray<{ start: number }>, zone = TORONTO) =>
  slots.map((s) => hhmm(s.start, zone));

/** Every quarter hour from `from` to `to` inclusive, as "HH:MM". */
function quarters(from: string, to: string): string[] {
  const out: string[] = [];
  const m = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3));
  for (let x = m(from); x <= m(to); x += 15)
    out.push(`${String(Math.floor(x / 60)).padStart(2, "0")}:${String(x % 60).padStart(2, "0")}`);
  return out;
}

describe("working hours (§4.1: within hours for the whole interval including the buffer)", () => {
  it("Maple Street Auto, Monday 08:00–18:00: oil changes (PT45M + PT15M buffer) start 08:00–17:00", async () => {
    const { connector } = maple();
    const slots = value(await connector.slots.find({ serviceId: "oil-change", range: monday }));
    expect(starts(slots)).toEqual(quarters("08:00", "17:00"));
    const first = slots[0];
    // The slot's end is the service's own end, without the buffer.
    expect(first).toEqual({
      serviceId: "oil-change",
      start: t("2026-10-19T08:00:00-04:00"),
      end: t("2026-10-19T08:45:00-04:00"),
      resourceIds: ALL_MAPLE,
    });
  });

  it("Saturday 09:00–14:00, and nothing on Sunday", async () => {
    const { connector } = maple();
    const saturday = { start: t("2026-10-24T00:00:00-04:00"), end: t("2026-10-25T00:00:00-04:00") };
    const sunday = { start: saturday.end, end: saturday.end + DAY };
    const sat = value(await connector.slots.find({ serviceId: "brake-inspection", range: saturday }));
    expect(starts(sat)).toEqual(quarters("09:00", "13:00"));
    expect(value(await connector.slots.find({ serviceId: "brake-inspection", range: sunday }))).toEqual([]);
  });

  it("Harbourview Dental works in Vancouver time (PDT, UTC−7)", async () => {
    const { connector } = connectorFor(harbourviewDental);
    const range = { start: t("2026-10-19T00:00:00-07:00"), end: t("2026-10-20T00:00:00-07:00") };
    const slots = value(await connector.slots.find({ serviceId: "cleaning", range }));
    expect(starts(slots, "America/Vancouver")).toEqual(quarters("08:00", "16:00"));
    expect(slots[0]?.start).toBe(t("2026-10-19T15:00:00Z"));
  });

  it("only starts from now on are offered, on the grid", async () => {
    const { connector, clock } = maple();
    clock.set(t("2026-10-19T10:07:00-04:00"));
    const slots = value(await connector.slots.find({ serviceId: "oil-change", range: monday }));
    expect(starts(slots)[0]).toBe("10:15");
  });

  it("a range starting off the grid offers the grid's starts inside it", async () => {
    const { connector } = maple();
    const range = { start: t("2026-10-19T09:05:00-04:00"), end: t("2026-10-19T10:00:00-04:00") };
    const slots = value(await connector.slots.find({ serviceId: "oil-change", range }));
    expect(starts(slots)).toEqual(["09:15", "09:30", "09:45"]);
  });
});

describe("DST days: the grid follows the shop's clock", () => {
  const nightShift: SyntheticScenario = {
    ...mapleStreetAuto,
    services: [
      {
        id: "night",
        name: "Night job",
        duration: HOUR,
        bufferAfterMs: 0,
        requires: [{ resourceType: "bay" }],
      },
    ],
    resources: [
      {
        id: "bay-1",
        type: "bay",
        name: "Bay 1",
        capacity: 1,
        hours: [{ day: 7, open: "00:00", close: "06:00" }],
      },
    ],
    stepMs: 30 * MIN,
  };
  const sunday = (date: string, offset: string) => ({
    start: t(`${date}T00:00:00${offset}`),
    end: t(`${date}T00:00:00${offset}`) + DAY,
  });

  it("an ordinary Sunday 00:00–06:00 has 11 half-hourly starts", async () => {
    const { connector, clock } = connectorFor(nightShift);
    clock.set(t("2026-02-28T00:00:00-05:00"));
    const slots = value(
      await connector.slots.find({ serviceId: "night", range: sunday("2026-03-01", "-05:00") }),
    );
    expect(starts(slots)).toEqual([
      "00:00",
      "00:30",
      "01:00",
      "01:30",
      "02:00",
      "02:30",
      "03:00",
      "03:30",
      "04:00",
      "04:30",
      "05:00",
    ]);
  });

  it("spring forward (8 March 2026): 02:00–03:00 does not exist, five real hours, starts stay on the half hour", async () => {
    const { connector, clock } = connectorFor(nightShift);
    clock.set(t("2026-03-07T00:00:00-05:00"));
    const slots = value(
      await connector.slots.find({ serviceId: "night", range: sunday("2026-03-08", "-05:00") }),
    );
    expect(starts(slots)).toEqual([
      "00:00",
      "00:30",
      "01:00",
      "01:30",
      "03:00",
      "03:30",
      "04:00",
      "04:30",
      "05:00",
    ]);
    // 01:30 EST + 1 h is 03:30 EDT: inside the hours.
    expect(slots[3]?.end).toBe(t("2026-03-08T03:30:00-04:00"));
  });

  it("fall back (1 November 2026): 01:00–02:00 happens twice, both are offered", async () => {
    const { connector, clock } = connectorFor(nightShift);
    clock.set(t("2026-10-31T00:00:00-04:00"));
    const slots = value(
      await connector.slots.find({ serviceId: "night", range: sunday("2026-11-01", "-04:00") }),
    );
    expect(slots).toHaveLength(13);
    expect(starts(slots)).toEqual([
      "00:00",
      "00:30",
      "01:00",
      "01:30",
      "01:00",
      "01:30",
      "02:00",
      "02:30",
      "03:00",
      "03:30",
      "04:00",
      "04:30",
      "05:00",
    ]);
    expect(slots[2]?.start).toBe(t("2026-11-01T01:00:00-04:00"));
    expect(slots[4]?.start).toBe(t("2026-11-01T01:00:00-05:00"));
  });
});

describe("appointments take their resources for duration + buffer (§4.1)", () => {
  it("a booking removes exactly the bay and technician it took", async () => {
    const { connector } = maple();
    value(
      await connector.bookings.create(oilChange("k1", "2026-10-19T10:00:00-04:00", ["bay-1", "tech-alex"])),
    );
    const slots = value(await connector.slots.find({ serviceId: "oil-change", range: monday }));
    const byTime = new Map(slots.map((s) => [hhmm(s.start, TORONTO), s.resourceIds]));
    expect(byTime.get("09:00")).toEqual(ALL_MAPLE);
    // 09:15 + 60 min overlaps 10:00; the buffer keeps them until 11:00.
    for (const at of ["09:15", "10:00", "10:45"])
      expect(byTime.get(at)).toEqual(["bay-2", "tech-sam", "tech-priya"]);
    expect(byTime.get("11:00")).toEqual(ALL_MAPLE);
  });

  it("with both bays taken 10:00–11:00 (buffer included), 09:15–10:45 are gone and 09:00 / 11:00 stay", async () => {
    const { connector } = maple();
    value(
      await connector.bookings.create(oilChange("k1", "2026-10-19T10:00:00-04:00", ["bay-1", "tech-alex"])),
    );
    value(
      await connector.bookings.create(oilChange("k2", "2026-10-19T10:00:00-04:00", ["bay-2", "tech-sam"])),
    );
    const slots = value(await connector.slots.find({ serviceId: "oil-change", range: monday }));
    const expected = quarters("08:00", "17:00").filter((s) => s < "09:15" || s > "10:45");
    expect(starts(slots)).toEqual(expected);
    // A brake inspection has no buffer but is an hour long: the same starts are gone.
    const brakes = value(await connector.slots.find({ serviceId: "brake-inspection", range: monday }));
    expect(starts(brakes)).toEqual(expected);
  });

  it("a cancelled booking frees its time", async () => {
    const { connector } = maple();
    const b = value(
      await connector.bookings.create(oilChange("k1", "2026-10-19T10:00:00-04:00", ["bay-1", "tech-alex"])),
    );
    value(await connector.bookings.cancel(b.upstreamId));
    const slots = value(await connector.slots.find({ serviceId: "oil-change", range: monday }));
    expect(slots.find((s) => hhmm(s.start, TORONTO) === "10:00")?.resourceIds).toEqual(ALL_MAPLE);
  });

  it("resourceIds narrows a type to the named resources (a selectable barber, §5.2)", async () => {
    const { connector } = connectorFor(fadesOnQueen);
    const tuesday = { start: t("2026-10-20T00:00:00-04:00"), end: t("2026-10-21T00:00:00-04:00") };
    const start = t("2026-10-20T11:00:00-04:00");
    value(
      await connector.bookings.create({
        idempotencyKey: "cut-1",
        serviceId: "haircut",
        start,
        end: start + 30 * MIN,
        resourceIds: ["barber-marcus"],
        tentative: false,
      }),
    );
    const marcus = value(
      await connector.slots.find({
        serviceId: "haircut",
        range: tuesday,
        resourceIds: ["barber-marcus"],
      }),
    );
    expect(starts(marcus)).toContain("10:30");
    expect(starts(marcus)).not.toContain("11:00");
    expect(starts(marcus)).toContain("11:30");
    expect(marcus.find((s) => s.start === start - 30 * MIN)?.resourceIds).toEqual(["barber-marcus"]);
    const anyone = value(await connector.slots.find({ serviceId: "haircut", range: tuesday }));
    expect(anyone.find((s) => s.start === start)?.resourceIds).toEqual(["barber-jordan"]);
    // Tue–Sat 10:00–19:00: the last half-hour cut starts 18:30.
    expect(starts(anyone).at(-1)).toBe("18:30");
  });

  it("an unpriced service is offered like any other (§5.2)", async () => {
    const { connector } = connectorFor(fadesOnQueen);
    const tuesday = { start: t("2026-10-20T00:00:00-04:00"), end: t("2026-10-21T00:00:00-04:00") };
    expect(value(await connector.slots.find({ serviceId: "consultation", range: tuesday }))).toHaveLength(35);
  });
});

describe("open-ended services (§4.2): a start only, time set aside", () => {
  const dropOff: CatalogService = {
    id: "diagnosis",
    name: "Drop-off diagnosis",
    duration: "open",
    bufferAfterMs: 0,
    requires: [{ resourceType: "bay" }],
  };
  const withService = (svc: CatalogService): SyntheticScenario => ({ ...mapleStreetAuto, services: [svc] });

  it("until_close (the default): every start while a bay works, with no end", async () => {
    const { connector } = connectorFor(withService(dropOff));
    const slots = value(await connector.slots.find({ serviceId: "diagnosis", range: monday }));
    expect(starts(slots)).toEqual(quarters("08:00", "17:45"));
    expect(slots.every((s) => s.end === undefined)).toBe(true);
    expect(slots[0]?.resourceIds).toEqual(["bay-1", "bay-2"]);
  });

  it("a drop-off holds its bay until the shop closes; nothing else is booked on top", async () => {
    const { connector } = connectorFor(withService(dropOff));
    const start = t("2026-10-19T10:00:00-04:00");
    const booked = value(
      await connector.bookings.create({
        idempotencyKey: "d1",
        serviceId: "diagnosis",
        start,
        resourceIds: [],
        tentative: false,
      }),
    );
    expect(booked.end).toBeUndefined();
    expect(booked.resourceIds).toEqual(["bay-1"]);
    const busy = value(await connector.readBusy(monday, ["bay-1", "bay-2"]));
    expect(busy.busy).toEqual([
      { resourceId: "bay-1", interval: { start, end: t("2026-10-19T18:00:00-04:00") } },
    ]);
    const slots = value(await connector.slots.find({ serviceId: "diagnosis", range: monday }));
    // Earlier starts would run into the 10:00 drop-off on bay 1: only bay 2 is free all day.
    expect(slots.every((s) => s.resourceIds.join() === "bay-2")).toBe(true);
    expect(slots).toHaveLength(40);
  });

  it("a set_aside duration must fit in the hours: PT2H starts until 16:00", async () => {
    const { connector } = connectorFor(withService({ ...dropOff, setAside: 2 * HOUR }));
    const slots = value(await connector.slots.find({ serviceId: "diagnosis", range: monday }));
    expect(starts(slots).at(-1)).toBe("16:00");
  });
});

describe("capacity and parties (§4.1)", () => {
  const hours = mapleStreetAuto.resources[0]?.hours ?? [];
  const studio: SyntheticScenario = {
    ...mapleStreetAuto,
    services: [
      {
        id: "spin",
        name: "Spin class",
        duration: HOUR,
        bufferAfterMs: 0,
        requires: [{ resourceType: "studio" }],
      },
      {
        id: "dinner",
        name: "Dinner",
        duration: HOUR,
        bufferAfterMs: 0,
        requires: [{ resourceType: "table", combine: true }],
      },
    ],
    resources: [
      { id: "studio-a", type: "studio", name: "Studio A", capacity: 3, hours },
      { id: "table-1", type: "table", name: "Table 1", capacity: 4, hours },
      { id: "table-2", type: "table", name: "Table 2", capacity: 4, hours },
    ],
  };
  const nine = t("2026-10-19T09:00:00-04:00");
  const nineOnly = { start: nine, end: nine + 1 };

  it("a shared resource is free while the party fits", async () => {
    const { connector } = connectorFor(studio);
    const book = (key: string, partySize: number) =>
      connector.bookings.create({
        idempotencyKey: key,
        serviceId: "spin",
        start: nine,
        resourceIds: [],
        partySize,
        tentative: false,
      });
    value(await book("p2", 2));
    expect(
      value(await connector.slots.find({ serviceId: "spin", range: nineOnly, partySize: 1 })),
    ).toHaveLength(1);
    expect(
      value(await connector.slots.find({ serviceId: "spin", range: nineOnly, partySize: 2 })),
    ).toHaveLength(0);
    expect(failure(await book("p2b", 2)).code).toBe("slot_taken");
    value(await book("p1", 1));
  });

  it("combine: two 4-tops pushed together seat six, each taken whole", async () => {
    const { connector } = connectorFor(studio);
    const six = value(await connector.slots.find({ serviceId: "dinner", range: nineOnly, partySize: 6 }));
    expect(six[0]?.resourceIds).toEqual(["table-1", "table-2"]);
    const booked = value(
      await connector.bookings.create({
        idempotencyKey: "d6",
        serviceId: "dinner",
        start: nine,
        resourceIds: [],
        partySize: 6,
        tentative: false,
      }),
    );
    expect(booked.resourceIds).toEqual(["table-1", "table-2"]);
    expect(value(await connector.slots.find({ serviceId: "dinner", range: nineOnly, partySize: 2 }))).toEqual(
      [],
    );
  });
});

describe("bounded work (§7.2): the platform refuses searches it will not do", () => {
  it("more than 31 days is invalid_request; exactly 31 days of the 15-minute grid (2,976 starts) is served", async () => {
    const { connector } = maple();
    const start = monday.start;
    const over = failure(
      await connector.slots.find({
        serviceId: "oil-change",
        range: { start, end: start + 31 * DAY + 1 },
      }),
    );
    expect(over.code).toBe("invalid_request");
    expect(over.upstream?.status).toBe(400);
    const month = value(
      await connector.slots.find({ serviceId: "oil-change", range: { start, end: start + 31 * DAY } }),
    );
    expect(month.length).toBeGreaterThan(500);
  });

  it("more than 3,000 grid starts is invalid_request (a 1-minute grid over 3 days)", async () => {
    const { connector } = connectorFor({ ...mapleStreetAuto, stepMs: MIN });
    const e = failure(
      await connector.slots.find({
        serviceId: "oil-change",
        range: { start: monday.start, end: monday.start + 3 * DAY },
      }),
    );
    expect(e.code).toBe("invalid_request");
    expect(e.message).toMatch(/3000/);
  });

  it.each([
    ["an unknown service", { serviceId: "tyre-swap", range: monday }, "not_found"],
    [
      "an empty range",
      { serviceId: "oil-change", range: { start: monday.end, end: monday.start } },
      "invalid_request",
    ],
    ["a non-integer instant", { serviceId: "oil-change", range: { start: 0.5, end: 10 } }, "invalid_request"],
    [
      "an unknown resource",
      { serviceId: "oil-change", range: monday, resourceIds: ["bay-9"] },
      "invalid_request",
    ],
    ["party size 0", { serviceId: "oil-change", range: monday, partySize: 0 }, "invalid_request"],
  ])("%s is refused (%s)", async (_name, query, code) => {
    const { connector } = maple();
    expect(failure(await connector.slots.find(query)).code).toBe(code);
  });

  it("a 31-day search of a busy month answers well within a second", async () => {
    const { connector } = maple({ clock: testClock(monday.start - DAY) });
    for (let i = 0; i < 20; i++) {
      const day = monday.start + i * DAY + 9 * HOUR;
      await connector.bookings.create(
        oilChange(`busy-${i}`, new Date(day).toISOString(), ["bay-1", "tech-alex"]),
      );
    }
    const began = performance.now();
    value(
      await connector.slots.find({
        serviceId: "oil-change",
        range: { start: monday.start, end: monday.start + 31 * DAY },
      }),
    );
    expect(performance.now() - began).toBeLessThan(1000);
  });
});

describe("gridStarts keeps each UTC day's offset only until the day's transition", () => {
  // 45 minutes: a one-hour offset change moves the grid, so a stale offset would show.
  const step = 45 * MIN;

  it("after the spring-forward transition of a day already asked about, starts use the new offset", () => {
    // 8 March 2026, America/Toronto: 07:00Z is 02:00 EST → 03:00 EDT; the UTC day starts at 00:00Z.
    const before = gridStarts(t("2026-03-07T19:00:00-05:00"), t("2026-03-07T21:00:00-05:00"), step, TORONTO);
    expect(before.map((s) => hhmm(s, TORONTO))).toEqual(["19:30", "20:15"]);
    const after = gridStarts(t("2026-03-08T03:00:00-04:00"), t("2026-03-08T06:00:00-04:00"), step, TORONTO);
    expect(after.map((s) => hhmm(s, TORONTO))).toEqual(["03:00", "03:45", "04:30", "05:15"]);
  });
});
