/**
 * What the scrape-time gauges read (prometheus.ts ScrapeSources), from the runtime's own parts:
 * the queues' job counts (src/jobs/job-counts.ts), the bookings waiting for their host's
 * approval (the booking index's status part), and each calendar host's sync lag (the sync
 * reports every process shares).
 */
import type { BookingIndex, HostDirectory } from "../../booking/api.js";
import type { CalendarHostHandle } from "../../booking/calendar/host-setup.js";
import type { CalendarStateStore } from "../../booking/calendar/state.js";
import { MAX_BOOKING_PAGE } from "../../holds/port.js";
import type { CountsJobs } from "../../jobs/job-counts.js";
import type { Clock } from "../../protocol/clock.js";
import type { CalendarLag, QueueDepth, ScrapeSources } from "./prometheus.js";

/** A queue by its name, when the runtime has it (and it counts its jobs). */
export interface NamedQueue {
  readonly name: string;
  readonly queue: () => Partial<CountsJobs> | undefined;
}

/**
 * Pages of one host's pending bookings read per scrape at most: the count stops there (a
 * thousand times more than a host should ever have waiting), so a scrape stays cheap.
 */
const MAX_PENDING_PAGES = 20;

export function scrapeSources(d: {
  readonly queues: readonly NamedQueue[];
  readonly hosts: HostDirectory;
  readonly bookingIndex: BookingIndex;
  readonly calendarHosts: () => readonly CalendarHostHandle[];
  readonly calendarState: CalendarStateStore;
  readonly clock: Clock;
}): ScrapeSources {
  return {
    queues: async () => {
      const depths: QueueDepth[] = [];
      for (const { name, queue } of d.queues) {
        const q = queue();
        if (q?.jobCounts !== undefined) depths.push({ queue: name, jobs: await q.jobCounts() });
      }
      return depths;
    },
    pendingApprovals: async () => {
      const counts = await Promise.all(d.hosts.list().map((h) => pendingAt(d.bookingIndex, h.config.id)));
      return counts.reduce((a, b) => a + b, 0);
    },
    calendarLag: async () => {
      const now = d.clock.now();
      const lags = await Promise.all(
        d.calendarHosts().map(async (h): Promise<CalendarLag | undefined> => {
          const since = readThrough(h, await d.calendarState.reports(h.hostId));
          return since === undefined
            ? undefined
            : { hostId: h.hostId, seconds: Math.max(0, now - since) / 1000 };
        }),
      );
      return lags.filter((l) => l !== undefined);
    },
  };
}

async function pendingAt(index: BookingIndex, hostId: string): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PENDING_PAGES; page++) {
    const read = await index.page(hostId, {
      limit: MAX_BOOKING_PAGE,
      status: "pending_host",
      ...(cursor !== undefined && { cursor }),
    });
    count += read.bookings.length;
    cursor = read.nextCursor;
    if (cursor === undefined) break;
  }
  return count;
}

/**
 * Since when every calendar of the host has been read through: the oldest of its calendars'
 * last complete syncs; undefined while one of them has none (the sync's outcome counter says why).
 */
function readThrough(
  handle: CalendarHostHandle,
  reports: readonly { calendarId: string; at: number; outcome: string; lastCompleteAt?: number }[],
): number | undefined {
  let oldest: number | undefined;
  for (const { calendarId } of handle.plan.calendars) {
    const r = reports.find((x) => x.calendarId === calendarId);
    const at = r?.lastCompleteAt ?? (r?.outcome === "complete" ? r.at : undefined);
    if (at === undefined) return undefined;
    oldest = oldest === undefined ? at : Math.min(oldest, at);
  }
  return oldest;
}
