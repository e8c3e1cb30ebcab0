/** moveBooking, setStatus, cancelBooking, readBusy on the synthetic platform (SchCP §5.6, §5.7, §10). */
import { describe, expect, it } from "vitest";
import type { UpstreamStatus } from "../../../src/connectors/port.js";
import { failure, meta, HOUR, maple, MIN, oilChange, t, value } from "./support.js";

const TEN = "2026-10-19T10:00:00-04:00";
const ten = t(TEN);
const day = { start: t("2026-10-19T00:00:00-04:00"), end: t("2026-10-20T00:00:00-04:00") };

async function booked(tentative = false) {
  const { connector, clock } = maple();
  const b = value(
    await connector.bookings.create({ ...oilChange("k", TEN, ["bay-1", "tech-alex"]), tentative }),
  );
  return { connector, clock, id: b.upstreamId };
}

describe("moveBooking (§5.7: the upstream may refuse with slot_taken)", () => {
  it("moves to a free time, frees the old one, keeps the status", async () => {
    const { connector, id } = await booked(true);
    const answer = await connector.bookings.move(id, {
      start: ten + 2 * HOUR,
      resourceIds: ["bay-2", "tech-sam"],
    });
    const moved = value(answer);
    expect(moved).toMatchObject({
      start: ten + 2 * HOUR,
      end: ten + 2 * HOUR + 45 * MIN,
      resourceIds: ["bay-2", "tech-sam"],
      status: "tentative",
    });
    expect(meta(answer)).toMatchObject({ call: `POST /v2/bookings/${id}/reschedule`, status: 200 });
    const busy = value(await connector.readBusy(day, []));
    expect(busy.busy.map((b) => [b.resourceId, b.interval.start])).toEqual([
      ["bay-2", ten + 2 * HOUR],
      ["tech-sam", ten + 2 * HOUR],
    ]);
  });

  it("its own time does not block it: 15 minutes later on the same resources", async () => {
    const { connector, id } = await booked();
    const moved = value(
      await connector.bookings.move(id, { start: ten + 15 * MIN, resourceIds: ["bay-1", "tech-alex"] }),
    );
    expect(moved.start).toBe(ten + 15 * MIN);
  });

  it("slot_taken when the new time is not free, and the booking is left as it was", async () => {
    const { connector, id } = await booked();
    value(
      await connector.bookings.create(oilChange("other", "2026-10-19T12:00:00-04:00", ["bay-1", "tech-sam"])),
    );
    const e = failure(
      await connector.bookings.move(id, { start: ten + 2 * HOUR, resourceIds: ["bay-1", "tech-alex"] }),
    );
    expect(e.code).toBe("slot_taken");
    expect(e.upstream?.status).toBe(409);
    expect(value(await connector.bookings.get(id)).start).toBe(ten);
  });

  it("an extension keeps the start and moves the end (§5.8 extensions)", async () => {
    const { connector, id } = await booked();
    const longer = value(
      await connector.bookings.move(id, {
        start: ten,
        end: ten + 75 * MIN,
        resourceIds: ["bay-1", "tech-alex"],
      }),
    );
    expect(longer.end).toBe(ten + 75 * MIN);
  });

  it("a cancelled booking cannot be moved; an unknown one is not_found", async () => {
    const { connector, id } = await booked();
    value(await connector.bookings.cancel(id));
    expect(failure(await connector.bookings.move(id, { start: ten + HOUR, resourceIds: [] })).code).toBe(
      "invalid_request",
    );
    expect(failure(await connector.bookings.move("syn_x", { start: ten + HOUR, resourceIds: [] })).code).toBe(
      "not_found",
    );
  });
});

describe("setStatus: approval, decline, attendance", () => {
  it.each<[boolean, UpstreamStatus, UpstreamStatus]>([
    [true, "confirmed", "confirmed"],
    [true, "cancelled", "cancelled"],
    [false, "completed", "completed"],
    [false, "no_show", "no_show"],
    [false, "confirmed", "confirmed"],
  ])("tentative=%s → %s", async (tentative, to, expected) => {
    const { connector, id } = await booked(tentative);
    const answer = await connector.bookings.setStatus(id, to);
    expect(value(answer).status).toBe(expected);
    expect(meta(answer)).toMatchObject({ call: `PATCH /v2/bookings/${id}`, status: 200 });
    expect(value(await connector.bookings.get(id)).status).toBe(expected);
  });

  it.each<[boolean, UpstreamStatus]>([
    [true, "completed"],
    [false, "tentative"],
    [false, "unknown"],
  ])("tentative=%s → %s is refused", async (tentative, to) => {
    const { connector, id } = await booked(tentative);
    expect(failure(await connector.bookings.setStatus(id, to)).code).toBe("invalid_request");
  });

  it("cancelled is final; attendance can be corrected", async () => {
    const { connector, id } = await booked();
    value(await connector.bookings.setStatus(id, "no_show"));
    value(await connector.bookings.setStatus(id, "completed"));
    value(await connector.bookings.setStatus(id, "completed"));
    const other = value(await connector.bookings.create(oilChange("k2", "2026-10-19T13:00:00-04:00")));
    value(await connector.bookings.setStatus(other.upstreamId, "cancelled"));
    expect(failure(await connector.bookings.setStatus(other.upstreamId, "confirmed")).code).toBe(
      "invalid_request",
    );
  });
});

describe("cancelBooking", () => {
  it("cancels, frees the time, and is idempotent", async () => {
    const { connector, id } = await booked();
    const answer = await connector.bookings.cancel(id, "guest asked");
    expect(value(answer).status).toBe("cancelled");
    expect(meta(answer)).toMatchObject({ call: `POST /v2/bookings/${id}/cancel`, status: 200 });
    expect(value(await connector.bookings.cancel(id)).status).toBe("cancelled");
    expect(value(await connector.readBusy(day, [])).busy).toEqual([]);
    value(await connector.bookings.create(oilChange("again", TEN, ["bay-1", "tech-alex"])));
  });

  it("a completed booking cannot be cancelled; an unknown one is not_found", async () => {
    const { connector, id } = await booked();
    value(await connector.bookings.setStatus(id, "completed"));
    expect(failure(await connector.bookings.cancel(id)).code).toBe("invalid_request");
    expect(failure(await connector.bookings.cancel("syn_x")).code).toBe("not_found");
  });
});

describe("readBusy: the platform's appointments as busy time", () => {
  it("per resource, buffer included, complete up to the range's end", async () => {
    const { connector, id } = await booked(true);
    const read = value(await connector.readBusy(day, ["bay-1", "tech-alex", "tech-sam"]));
    expect(read).toEqual({
      busy: [
        { resourceId: "bay-1", interval: { start: ten, end: ten + HOUR } },
        { resourceId: "tech-alex", interval: { start: ten, end: ten + HOUR } },
      ],
      readUntil: day.end,
      complete: true,
    });
    expect(value(await connector.readBusy(day, ["tech-sam"])).busy).toEqual([]);
    // Kept time stays busy after attendance is marked.
    value(await connector.bookings.setStatus(id, "confirmed"));
    value(await connector.bookings.setStatus(id, "completed"));
    expect(value(await connector.readBusy(day, ["bay-1"])).busy).toHaveLength(1);
  });

  it("refuses unknown resources and bad ranges", async () => {
    const { connector } = maple();
    expect(failure(await connector.readBusy(day, ["bay-9"])).code).toBe("invalid_request");
    expect(failure(await connector.readBusy({ start: day.end, end: day.start }, [])).code).toBe(
      "invalid_request",
    );
  });
});
