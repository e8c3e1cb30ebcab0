/**
 * What each host's upstream says about itself, for operators, behind the
 * operator credential:
 *
 *   GET  /operator/v0/{hostId}/upstream-notices  Deprecation/Sunset notices the platform sent
 *                                                 ({notices: [{vendor, call, deprecation?,
 *                                                 sunset?, first_seen, last_seen}]})
 *   GET  /operator/v0/{hostId}/calendar           a calendar host's last sync per calendar and
 *                                                 its booking events still to be rewritten
 *   POST /operator/v0/{hostId}/calendar/sync      sync it now (202; the result lands in the
 *                                                 logs and the GET above)
 */
import type { Hono } from "hono";
import { formatInstant } from "../../protocol/time/index.js";
import { guarded } from "./operator-routes.js";
import { operatorRefusal } from "./operator-refusals.js";
import { jsonResponse, refusalResponse, toHttp } from "../http/respond.js";
import type { OperatorHttpDeps, UpstreamsView } from "./types.js";

export function mountOperatorUpstreamRoutes(app: Hono, deps: OperatorHttpDeps, view: UpstreamsView): void {
  app.get("/operator/v0/:hostId/upstream-notices", async (c) =>
    toHttp(
      await guarded(c, deps, async (host) =>
        jsonResponse(200, { notices: await view.notices(host.config.id) }),
      ),
    ),
  );
  app.get("/operator/v0/:hostId/calendar", async (c) =>
    toHttp(
      await guarded(c, deps, async (host) => {
        const cal = await view.calendar(host.config.id);
        if (cal === undefined) return notCalendar(host.config.id);
        return jsonResponse(200, {
          host_id: host.config.id,
          calendars: cal.reports.map((r) => ({
            calendar_id: r.calendarId,
            last_sync: {
              at: formatInstant(r.at),
              kind: r.kind,
              outcome: r.outcome,
              pages: r.pages,
              events: r.events,
              duration_ms: r.durationMs,
              ...(r.busy !== undefined && { busy: r.busy }),
              ...(r.readUntil !== undefined && { read_until: formatInstant(r.readUntil) }),
              ...(r.restarted === true && { restarted: true }),
              // Laid but not whole: unreadable events skipped, or an expansion bound met.
              ...(r.complete !== undefined && { complete: r.complete }),
              ...(r.skipped !== undefined && r.skipped > 0 && { skipped: r.skipped }),
              ...(r.degraded !== undefined && { degraded: r.degraded }),
              ...(r.error !== undefined && { error: r.error }),
              ...(r.conflicts !== undefined && {
                // §5.8: what became of each booking the calendar's time now overlaps.
                conflicts: r.conflicts.map((c) => ({
                  resource_id: c.resourceId,
                  start: formatInstant(c.start),
                  end: formatInstant(c.end),
                  ...(c.bookingId !== undefined && { booking_id: c.bookingId }),
                  outcome: c.outcome ?? "unresolved",
                  ...(c.movedTo !== undefined && { moved_to: c.movedTo }),
                  ...(c.proposal !== undefined && {
                    proposal: {
                      proposal_id: c.proposal.proposalId,
                      start: formatInstant(c.proposal.start),
                      expires_at: formatInstant(c.proposal.expiresAt),
                    },
                  }),
                  ...(c.reason !== undefined && { reason: c.reason }),
                  ...(c.since !== undefined && { since: formatInstant(c.since) }),
                })),
              }),
            },
          })),
          pending_event_writes: cal.pendingEvents.map((e) => ({
            event_id: e.eventId,
            status: e.status,
            attempts: e.attempts,
            ...(e.written !== undefined && { written: e.written }),
            ...(e.retryAt !== undefined && { retry_at: formatInstant(e.retryAt) }),
            ...(e.lastError !== undefined && { last_error: e.lastError }),
          })),
        });
      }),
    ),
  );
  app.post("/operator/v0/:hostId/calendar/sync", async (c) =>
    toHttp(
      await guarded(c, deps, async (host) =>
        (await view.syncNow(host.config.id))
          ? jsonResponse(202, { host_id: host.config.id, sync: "requested" })
          : notCalendar(host.config.id),
      ),
    ),
  );
}

function notCalendar(hostId: string) {
  return refusalResponse(
    operatorRefusal({ code: "NOT_FOUND", message: `host ${hostId} is not a calendar host` }),
  );
}
