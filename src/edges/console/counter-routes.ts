/**
 * The host's counter from the console (SchCP §5.11; the use case is the operator API's,
 * OperatorApi.counter):
 *
 *   GET  /console/hosts/{hostId}/bookings/{id}/counter   the booking and the form (counter-page.ts)
 *   POST /console/hosts/{hostId}/bookings/{id}/counter   sends it; back to Operate with a note,
 *                                                        or the form again saying why not
 *
 * Linked from each row of Operate's "Waiting for approval". Access as for approve and decline
 * (routes.ts): signed in, an owner only for their own hosts (another's answers 404 as unknown),
 * and a POST from this origin with the session's CSRF token. The date and time are read on the
 * host's clock, as the console writes every time.
 */
import type { Context, Hono } from "hono";
import type { BookingRefusal, HostRuntime } from "../../booking/api.js";
import type { BookingView } from "../../booking/view.js";
import { describeGuest } from "../../booking/bookings/guest.js";
import type { Place } from "../../protocol/place.js";
import {
  formatInstant,
  parseWallClock,
  readableSpan,
  readableTime,
  wallClockToInstant,
} from "../../protocol/time/index.js";
import { requireHostAccess } from "./accounts-access.js";
import type { ConsoleAppDeps } from "./app-deps.js";
import { counterPage, type CounterForm, type CounterPageView } from "./counter-page.js";
import type { ConsoleDeps, ConsoleKit } from "./kit.js";
import type { ConsoleViewer } from "./managed-hosts.js";
import { placeLine, walkBookings } from "./operate-view.js";
import { consoleHeader, refusedPage } from "./pages.js";

const COUNTER_PATH = "/console/hosts/:hostId/bookings/:bookingId/counter";

export function mountCounterRoutes(app: Hono, deps: ConsoleAppDeps, con: ConsoleDeps, kit: ConsoleKit): void {
  /** The host and its pending booking, or the page that says why there is nothing to counter. */
  async function pendingBooking(
    c: Context,
    viewer: ConsoleViewer,
    header: string,
  ): Promise<{ host: HostRuntime; booking: BookingView } | Response> {
    const hostId = c.req.param("hostId") ?? "";
    const bookingId = c.req.param("bookingId") ?? "";
    const host = deps.hosts.get(hostId);
    if (host === undefined || !(await requireHostAccess(deps.managedHosts, viewer, hostId)))
      return kit.html(404, refusedPage("Not found", `No host "${hostId}" is served here.`, header));
    const waiting = await walkBookings(deps, hostId, { status: "pending_host" });
    const booking = waiting?.bookings.find((b) => b.bookingId === bookingId);
    if (booking === undefined)
      return kit.html(
        404,
        refusedPage(
          "Nothing to answer",
          `Booking ${bookingId} at ${host.config.name} is not waiting for an answer: it was answered, cancelled or has lapsed.`,
          header,
        ),
      );
    return { host, booking };
  }

  app.get(COUNTER_PATH, async (c) => {
    const s = await kit.signedIn(c);
    if (s === undefined) return kit.redirect("/");
    const header = consoleHeader(s.session.csrf, s.viewer);
    const found = await pendingBooking(c, s.viewer, header);
    if (found instanceof Response) return found;
    return kit.html(200, counterPage(pageView(found.host, found.booking), s.session.csrf, header));
  });

  app.post(COUNTER_PATH, async (c) => {
    const a = await kit.authorized(c);
    if (!a.ok) return a.error;
    const { session, viewer, form } = a.value;
    const header = consoleHeader(session.csrf, viewer);
    const found = await pendingBooking(c, viewer, header);
    if (found instanceof Response) return found;
    const { host, booking } = found;
    const view = pageView(host, booking);
    const typed = typedForm(form, view.location);
    const again = (status: number, error: string) =>
      kit.html(status, counterPage(view, session.csrf, header, typed, error));

    const input = counterInput(typed, host, deps.clock.now());
    if (!input.ok) return again(422, input.error);
    const done = await deps.api.counter(host.config.id, booking.bookingId, input.value);
    deps.logger.info("console booking counter", {
      host_id: host.config.id,
      booking_id: booking.bookingId,
      ok: done.ok,
      ...(viewer.kind === "owner" && { owner_id: viewer.ownerId }),
    });
    if (!done.ok) return again(done.error.code === "invalid_state" ? 409 : 422, plainWords(done.error, host));
    const p = done.value.proposal;
    const what =
      p === undefined
        ? "other terms"
        : `${readableSpan(p.start, p.end, host.config.timezone)}${p.place !== undefined ? ` at ${placeLine(p.place)}` : ""}`;
    await con.sessions.flash(a.value.id, session, {
      text: `Suggested to the guest: ${booking.contract.service.name} at ${host.config.name} (booking ${booking.bookingId}), ${what}. The booking waits for the guest's answer, or yours.`,
    });
    return kit.redirect("/");
  });
}

function pageView(host: HostRuntime, b: BookingView): CounterPageView {
  const tz = host.config.timezone;
  const location = host.config.services.find((s) => s.serviceId === b.serviceId)?.location ?? "host";
  const open = b.proposal?.by === "host" ? b.proposal : undefined;
  return {
    hostId: host.config.id,
    hostName: host.config.name,
    bookingId: b.bookingId,
    service: b.contract.service.name,
    when: readableSpan(b.start, b.end, tz),
    ...(b.guest !== undefined && { guest: describeGuest(b.guest) }),
    ...(b.place !== undefined && { place: placeLine(b.place) }),
    ...(b.approvalBy !== undefined && { answerBy: readableTime(b.approvalBy, tz) }),
    timeZone: tz,
    location,
    ...(open !== undefined && {
      openCounter: `${readableSpan(open.start, open.end, tz)}${open.place !== undefined ? ` at ${placeLine(open.place)}` : ""}`,
    }),
  };
}

const PLACE_KEYS = ["name", "street", "locality", "region", "postal_code", "country"] as const;

/** The form as typed (trimmed); a place only where the service may be elsewhere, and only if any of it was given. */
function typedForm(form: URLSearchParams, location: CounterPageView["location"]): CounterForm {
  const start = form.get("start")?.trim() ?? "";
  const place: Record<string, string> = {};
  if (location !== "host") {
    for (const k of PLACE_KEYS) {
      const v = form.get(`place_${k}`)?.trim().slice(0, 200) ?? "";
      if (v !== "") place[k] = k === "country" ? v.toUpperCase() : v;
    }
  }
  return {
    ...(start !== "" && { start: start.slice(0, 40) }),
    ...(Object.keys(place).length > 0 && { place }),
  };
}

/** The use case's input, or what is wrong with the form, in plain words. */
function counterInput(
  typed: CounterForm,
  host: HostRuntime,
  now: number,
): { ok: true; value: { start?: string; place?: Place } } | { ok: false; error: string } {
  const tz = host.config.timezone;
  if (typed.start === undefined && typed.place === undefined)
    return { ok: false, error: "Give a new date and time, or another place (or both)." };
  let start: string | undefined;
  if (typed.start !== undefined) {
    const wall = parseWallClock(typed.start, "start");
    if (!wall.ok) return { ok: false, error: "The date and time could not be read. Pick them again." };
    const at = wallClockToInstant(wall.value, tz, "reject");
    if (!at.ok)
      return {
        ok: false,
        error: `That time does not exist or happens twice on ${host.config.name}'s clock (${tz}), as the clocks change. Pick another time.`,
      };
    if (at.value <= now) return { ok: false, error: "That time has already passed. Pick a later one." };
    start = formatInstant(at.value, tz);
  }
  if (typed.place?.country !== undefined && !/^[A-Z]{2}$/.test(typed.place.country))
    return { ok: false, error: "Write the country as its two-letter code, such as CA or US." };
  return {
    ok: true,
    value: {
      ...(start !== undefined && { start }),
      ...(typed.place !== undefined && { place: typed.place }),
    },
  };
}

/** The core's refusal as the person at the console should read it. */
function plainWords(r: BookingRefusal, host: HostRuntime): string {
  const sentence = (m: string) => `${m.charAt(0).toUpperCase()}${m.slice(1)}${/[.!?]$/.test(m) ? "" : "."}`;
  if (r.code === "slot_unavailable")
    return `That time is not free at ${host.config.name}. Pick another time.`;
  if (r.code === "invalid_state") return `${sentence(r.message)} Nothing was sent to the guest.`;
  if (r.code === "upstream_unavailable")
    return `${host.config.name}'s booking system did not answer. Try again in a moment.`;
  return sentence(r.message);
}
