/**
 * "Suggest another time or place" (SchCP §5.11) from the console, through app.request() on the
 * real runtime with the embedded default hosts: harbourview-dental approves each booking, so a
 * booking made over SchCP by the agent SDK waits (pending_host), and the operator counters it
 * from Operate's "Waiting for approval". The guest then sees the counter as the booking's
 * proposal (by "host").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { counterPage } from "../../../src/edges/console/counter-page.js";
import { instantToWallClock, parseInstant } from "../../../src/protocol/time/index.js";
import { discover, freeSlots, holdAndBook, must, newAgent } from "../../e2e/support/agents.js";
import { startGateway, type E2eGateway } from "../../e2e/support/gateway.js";

let gw: E2eGateway;
let app: Hono;
const COOKIE = "gw_session";
const DENTAL = "harbourview-dental";
const TZ = "America/Vancouver";

beforeAll(async () => {
  gw = await startGateway({ runtime: { workers: false, trustForwardedFor: true } });
  app = createHttpApp(gw.runtime);
});
afterAll(async () => {
  await gw?.close();
});

const url = (path: string) => `${gw.origin}${path}`;
const counterUrl = (id: string) => `/console/hosts/${DENTAL}/bookings/${id}/counter`;

function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return app.request(url(path), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
}

async function signIn(ip = "198.51.100.31"): Promise<string> {
  const res = await post(
    "/console/sign-in",
    { credential: gw.runtime.operatorToken },
    { "x-forwarded-for": ip },
  );
  expect(res.status).toBe(303);
  const m = new RegExp(`${COOKIE}=([^;]*)`).exec(res.headers.get("set-cookie") ?? "");
  if (m === null) throw new Error("no session cookie");
  return `${COOKIE}=${m[1]}`;
}

async function get(path: string, cookie: string): Promise<{ status: number; html: string; csrf: string }> {
  const res = await app.request(url(path), { headers: { cookie } });
  const html = await res.text();
  return { status: res.status, html, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "" };
}

/** A pending booking, the agent that made it and the free starts it saw. */
async function pendingBooking(fromDays: number) {
  const agent = newAgent(gw);
  const dental = await discover(agent, gw, DENTAL);
  const slots = await freeSlots(agent, gw, dental, "cleaning", { fromDays, toDays: fromDays + 3 });
  const booked = await holdAndBook(agent, dental, "cleaning", slots[0]!.start);
  expect(booked.booking.booking.status).toBe("pending_host");
  return { agent, dental, booked, slots, id: booked.booking.booking.booking_id };
}

/** The datetime-local value of an instant on the dentist's clock ("YYYY-MM-DDTHH:MM"). */
function localInput(rfc3339: string): string {
  const at = parseInstant(rfc3339, "");
  if (!at.ok) throw new Error(rfc3339);
  const w = instantToWallClock(at.value.epochMs, TZ);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${w.year}-${p(w.month)}-${p(w.day)}T${p(w.hour)}:${p(w.minute)}`;
}

describe("§5.11 the console's counter form", () => {
  it("§5.11 console: Operate links each waiting booking to a script-free form with the booking, a date and time on the host's clock, and CSRF", async () => {
    const { id } = await pendingBooking(3);
    const cookie = await signIn();
    const home = await get("/", cookie);
    expect(home.html).toContain(`href="${counterUrl(id)}"`);
    expect(home.html).toContain(">Suggest another time or place</a>");

    const page = await get(counterUrl(id), cookie);
    expect(page.status).toBe(200);
    expect(page.html).toContain("<h1>Suggest another time</h1>");
    expect(page.html).toContain('<label for="start">New date and time</label>');
    expect(page.html).toContain('type="datetime-local"');
    expect(page.html).toContain(`(${TZ})`);
    expect(page.html).toContain(`action="${counterUrl(id)}"`);
    expect(page.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The cleaning happens at the dentist's: no place to suggest.
    expect(page.html).not.toContain("Another place");
    expect(page.html).not.toMatch(/<script/i);
  });

  it("§5.11 console: posting a new time sends the counter; Operate says so, and the guest reads it as the booking's proposal by the host", async () => {
    const { agent, dental, booked, slots, id } = await pendingBooking(4);
    const later = slots[slots.length - 1]!;
    const cookie = await signIn();
    const { csrf } = await get(counterUrl(id), cookie);
    const sent = await post(counterUrl(id), { csrf, start: localInput(later.start) }, { cookie });
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toBe("/");

    const home = await get("/", cookie);
    expect(home.html).toMatch(
      /role="status">Suggested to the guest: Cleaning and check-up at Harbourview Dental/,
    );
    expect(home.html).toMatch(/You suggested [^<]*; waiting for the guest\./);

    const read = must(await agent.client.getBooking(dental, id, { mandate: booked.mandate.compact }), "read");
    expect(read.body.booking.status).toBe("pending_host");
    expect(read.body.booking.proposal).toMatchObject({ by: "host" });
    const proposed = parseInstant(read.body.booking.proposal?.start ?? "", "");
    const wanted = parseInstant(later.start, "");
    expect(proposed.ok && wanted.ok && proposed.value.epochMs === wanted.value.epochMs).toBe(true);

    // The page now says a counter is open, and sending again replaces it.
    expect((await get(counterUrl(id), cookie)).html).toContain("You already suggested");
  });

  it("§5.11 console: a refused suggestion comes back on the form in plain words, with what was typed", async () => {
    const { id } = await pendingBooking(5);
    const cookie = await signIn();
    const { csrf } = await get(counterUrl(id), cookie);

    const empty = await post(counterUrl(id), { csrf, start: "" }, { cookie });
    expect(empty.status).toBe(422);
    const emptyHtml = await empty.text();
    expect(emptyHtml).toContain('role="alert">Give a new date and time, or another place (or both).');

    const past = await post(counterUrl(id), { csrf, start: "2020-01-01T10:00" }, { cookie });
    expect(past.status).toBe(422);
    const pastHtml = await past.text();
    expect(pastHtml).toContain("That time has already passed. Pick a later one.");
    expect(pastHtml).toContain('value="2020-01-01T10:00"');

    // 03:00 on a weekday: the dentist is closed, so no hygienist is free.
    const day = localInput(new Date(gw.clock.now() + 6 * 86_400_000).toISOString()).slice(0, 10);
    const closed = await post(counterUrl(id), { csrf, start: `${day}T03:00` }, { cookie });
    expect(closed.status).toBe(422);
    expect(await closed.text()).toContain("That time is not free at Harbourview Dental. Pick another time.");

    const garbled = await post(counterUrl(id), { csrf, start: "next tuesday" }, { cookie });
    expect(await garbled.text()).toContain("The date and time could not be read.");
  });

  it("§5.11 console: without the CSRF token nothing is sent; a booking no longer waiting says so", async () => {
    const { id } = await pendingBooking(6);
    const cookie = await signIn();
    const forged = await post(counterUrl(id), { start: "2030-01-01T10:00" }, { cookie });
    expect(forged.status).toBe(403);
    const listed = await gw.runtime.api.listBookings(DENTAL);
    expect(listed.ok && listed.value.find((b) => b.bookingId === id)?.proposal).toBeUndefined();

    expect((await gw.runtime.api.approve(DENTAL, id)).ok).toBe(true);
    const gone = await get(counterUrl(id), cookie);
    expect(gone.status).toBe(404);
    expect(gone.html).toContain("is not waiting for an answer");
  });
});

describe("§5.11 the counter page for a service held elsewhere", () => {
  it("§5.11 console: a service at the guest's or elsewhere gets an 'Another place' fieldset, every input labelled, what was typed kept", () => {
    const html = counterPage(
      {
        hostId: "fades-on-queen",
        hostName: "Fades on Queen",
        bookingId: "b_1",
        service: "Consultation",
        when: "Tue, 8 Jan 2030, 10:00–10:30 (America/Toronto)",
        place: "Café Pamenar, Toronto, CA",
        timeZone: "America/Toronto",
        location: "elsewhere",
      },
      "csrf-token",
      "",
      { place: { name: "Trinity Bellwoods Park" } },
      "That time is not free at Fades on Queen. Pick another time.",
    );
    expect(html).toContain("<h1>Suggest another time or place</h1>");
    expect(html).toContain("<legend>Another place</legend>");
    for (const id of [
      "place-name",
      "place-street",
      "place-locality",
      "place-region",
      "place-postal-code",
      "place-country",
    ])
      expect(html).toContain(`<label for="${id}">`);
    expect(html).toContain('value="Trinity Bellwoods Park"');
    expect(html).toContain('role="alert">That time is not free at Fades on Queen. Pick another time.');
    expect(html).not.toContain(" required");
  });
});
