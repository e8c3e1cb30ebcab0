/** src/holds/working-hours.ts: working hours applied to the store's resources (SchCP §4.1). */
import { describe, expect, it } from "vitest";
import type { WeeklyHours } from "../../src/calendar/index.js";
import { candidatesFor, requirementFor, type WorkingResource } from "../../src/holds/working-hours.js";

const TO = "America/Toronto";
const z = (iso: string) => Date.parse(iso);
const iv = (from: string, to: string) => ({ start: z(from), end: z(to) });
const weekdays = (open: string, close: string): WeeklyHours =>
  ([1, 2, 3, 4, 5] as const).map((day) => ({ day, open, close }));

describe("candidatesFor / requirementFor (§4.1)", () => {
  const resources: WorkingResource[] = [
    { id: "bay-1", type: "bay", capacity: 1, zone: TO, hours: weekdays("09:00", "17:00") },
    { id: "tech-1", type: "technician", capacity: 1, zone: TO, hours: weekdays("09:00", "17:00") },
    { id: "bay-2", type: "bay", capacity: 1, zone: TO, hours: weekdays("12:00", "20:00") },
    { id: "bay-3", type: "bay", capacity: 2, zone: "America/Vancouver", hours: weekdays("09:00", "17:00") },
  ];

  it("keeps the type's resources working for the whole interval, in order", () => {
    // Monday 12:00–13:00 Toronto = 09:00–10:00 Vancouver.
    const noon = iv("2030-01-07T17:00Z", "2030-01-07T18:00Z");
    expect(candidatesFor(resources, "bay", noon)).toEqual([
      { id: "bay-1", capacity: 1 },
      { id: "bay-2", capacity: 1 },
      { id: "bay-3", capacity: 2 },
    ]);
    const morning = iv("2030-01-07T14:00Z", "2030-01-07T15:00Z");
    expect(candidatesFor(resources, "bay", morning).map((c) => c.id)).toEqual(["bay-1"]);
    expect(candidatesFor(resources, "chair", noon)).toEqual([]);
  });

  it("builds a store requirement", () => {
    const noon = iv("2030-01-07T17:00Z", "2030-01-07T18:00Z");
    expect(requirementFor(resources, "technician", noon)).toEqual({
      type: "technician",
      candidates: [{ id: "tech-1", capacity: 1 }],
      units: 1,
    });
    expect(requirementFor(resources, "bay", noon, 3, true)).toMatchObject({ units: 3, combine: true });
  });
});
