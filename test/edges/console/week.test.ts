/**
 * A host's week (week-view.ts, week-page.ts): Monday to Sunday in the host's zone, bookings by
 * their status, the calendar's busy time, opening hours, an item past midnight on both days, a
 * DST change read by the wall clock; the page names the zone, says each item's kind in words,
 * and carries its own stylesheet, allowed by its hash.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { HostRuntime } from "../../../src/booking/api.js";
import type { BookingView } from "../../../src/booking/view.js";
import { pageCsp } from "../../../src/edges/http/layout.js";
import { WEEK_STYLE, weekPage } from "../../../src/edges/console/week-page.js";
import { mondayOf, weekView } from "../../../src/edges/console/week-view.js";
import { ok } from "../../../src/protocol/result.js";

const ZONE = "America/Toronto";
/** Wednesday 28 October 2026, 12:00 in Toronto (EDT, UTC-4). */
const NOW = Date.parse("2026-10-28T16:00:00Z");

const host = {
  config: { id: "maple", name: "Maple <Physio>", timezone: ZONE },
  catalog: {
    resources: [
      {
        hours: [
          { day: 1, open: "09:00", close: "12:00" },
          { day: 1, open: "11:00", close: "17:00" },
          { day: 6, open: "20:00", close: "02:00" },
        ],
      },
    ],
  },
} as unknown as HostRuntime;

const booking = (id: string, status: string, start: string, minutes: number): BookingView =>
  ({
    bookingId: id,
    status,
    start: Date.parse(start),
    end: Date.parse(start) + minutes * 60_000,
    contract: { service: { name: "Session" }, resource: { name: "Ruth" } },
  }) as unknown as BookingView;

const asked: Array<{ from?: number; to?: number }> = [];
const deps = {
  clock: { now: () => NOW },
  api: {
    pageBookings: (_: string, q: { from?: number; to?: number }) => {
      asked.push(q);
      return Promise.resolve(
        ok({
          bookings: [
            booking("b1", "confirmed", "2026-10-26T13:00:00Z", 60), // Mon 09:00-10:00 EDT
            booking("b2", "pending_host", "2026-10-28T18:30:00Z", 45), // Wed 14:30-15:15
            booking("b3", "cancelled", "2026-10-29T14:00:00Z", 60), // not shown
            booking("b4", "tentative", "2026-10-31T03:30:00Z", 60), // Fri 23:30 - Sat 00:30
          ],
        }),
      );
    },
  },
} as never;

describe("a host's week", () => {
  it("runs Monday to Sunday in the host's zone, whatever day is asked", () => {
    expect(mondayOf(undefined, NOW, ZONE)).toEqual({ year: 2026, month: 10, day: 26 });
    expect(mondayOf("2026-11-01", NOW, ZONE)).toEqual({ year: 2026, month: 10, day: 26 });
    expect(mondayOf("2026-11-02", NOW, ZONE)).toEqual({ year: 2026, month: 11, day: 2 });
    expect(mondayOf("not a date", NOW, ZONE)).toEqual({ year: 2026, month: 10, day: 26 });
  });

  it("shows bookings by status, busy time, opening hours; an item past midnight on both days", async () => {
    asked.length = 0;
    const busy = (hostId: string, from: number, to: number) => {
      expect(hostId).toBe("maple");
      expect([from, to]).toEqual([Date.parse("2026-10-26T04:00:00Z"), Date.parse("2026-11-02T05:00:00Z")]);
      return Promise.resolve([
        { start: Date.parse("2026-10-27T14:00:00Z"), end: Date.parse("2026-10-27T15:30:00Z") },
      ]);
    };
    const v = await weekView(deps, host, undefined, busy);
    // Bookings that start in the week, or the day before it.
    expect(asked[0]).toMatchObject({
      from: Date.parse("2026-10-25T04:00:00Z"),
      to: Date.parse("2026-11-02T05:00:00Z"),
    });
    expect(v.days.map((d) => d.label)).toEqual([
      "Mon 26 Oct",
      "Tue 27 Oct",
      "Wed 28 Oct",
      "Thu 29 Oct",
      "Fri 30 Oct",
      "Sat 31 Oct",
      "Sun 1 Nov",
    ]);
    expect(v.zoneName).toBe("Eastern Daylight Time");
    const [mon, tue, wed, thu, fri, sat] = v.days;
    expect(mon?.open).toEqual([[540, 1020]]);
    expect(sat?.open).toEqual([[1200, 1440]]);
    expect(mon?.items).toEqual([
      {
        kind: "booking",
        from: 540,
        to: 600,
        time: "09:00–10:00",
        title: "Session with Ruth",
        bookingId: "b1",
      },
    ]);
    expect(tue?.items).toEqual([
      { kind: "busy", from: 600, to: 690, time: "10:00–11:30", title: "Busy in the calendar" },
    ]);
    expect(wed?.items.map((i) => [i.kind, i.time])).toEqual([["pending", "14:30–15:15"]]);
    expect(thu?.items).toEqual([]);
    expect(fri?.items.map((i) => [i.kind, i.time, i.to])).toEqual([["tentative", "23:30–24:00…", 1440]]);
    expect(sat?.items.map((i) => [i.kind, i.time, i.from])).toEqual([["tentative", "…00:00–00:30", 0]]);
    expect(v.range).toEqual([0, 1440]);
    expect(v).toMatchObject({
      busyShown: true,
      unlisted: false,
      more: false,
      previous: "2026-10-19",
      next: "2026-11-02",
    });
  });

  it("across the end of daylight time, times read as the wall clock does", async () => {
    const dstDeps = {
      clock: { now: () => NOW },
      api: {
        pageBookings: () =>
          Promise.resolve(
            ok({ bookings: [booking("b5", "confirmed", "2026-11-01T15:00:00Z", 30)] }), // Sun 10:00 EST
          ),
      },
    } as never;
    const v = await weekView(dstDeps, host, "2026-11-01");
    expect(v.days[6]?.items.map((i) => i.time)).toEqual(["10:00–10:30"]);
    expect(v.busyShown).toBe(false);
  });

  it("the page names the zone, says each item's kind in words, and its stylesheet is allowed by hash", async () => {
    const v = await weekView(deps, host, undefined, () => Promise.resolve([]));
    const html = weekPage({ view: v, header: "", path: "/console/hosts/maple" });
    expect(html).toContain("<h1>Maple &lt;Physio&gt;: week of 26 Oct 2026</h1>");
    expect(html).toContain("Times in <strong>America/Toronto</strong> (Eastern Daylight Time)");
    expect(html).toContain('href="/console/hosts/maple?week=2026-11-02">Next week →</a>');
    // 14:30 is row 59 of a day drawn from midnight in 15-minute rows; 45 minutes span 3.
    expect(html).toMatch(
      /<li class="item k-pending t59 h3 c1"[^>]*><b>14:30–15:15<\/b> Session with Ruth · waiting for your approval<\/li>/,
    );
    expect(html).toContain("1 booking(s) this week wait for your approval");
    expect(html).toContain(`<style>${WEEK_STYLE}</style>`);
    const hash = createHash("sha256").update(WEEK_STYLE, "utf8").digest("base64");
    expect(pageCsp([WEEK_STYLE])).toContain(`'sha256-${hash}'`);
    expect(pageCsp([WEEK_STYLE])).not.toContain("unsafe-inline");
  });
});
