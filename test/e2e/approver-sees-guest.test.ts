/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access -- JSON bodies read loosely in assertions */
/**
 * Who asked, and when, as the approver meets it: a guest books a calendar host in Madrid over
 * A2A (name, e-mail, phone), and the approver's message, the approval page its link opens
 * (server-rendered HTML) and the console's Operate page show the guest's name and contact and
 * every time on the host's clock with its zone named. The contract's retention (SchCP §2.1,
 * here P30D) bounds how long the record shows the guest: past the booking's end plus 30 days,
 * the core's view no longer does. The operator API carries no personal data, and names the
 * booking's grant once ("a2a:…").
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type E2eGateway } from "./support/gateway.js";

const HOST = "lucia-fisio";
const ZONE = "(Europe/Madrid)";
/** Monday 7 December 2026, 08:00 in Madrid (UTC+1). */
const NOW = Date.parse("2026-12-07T07:00:00Z");
const GUEST = { name: "Sam", lastName: "Rivera", email: "sam.rivera@mail.com", phone: "+34 600 111 222" };

let gw: E2eGateway;
let calendarDir: string;

beforeAll(async () => {
  calendarDir = mkdtempSync(join(tmpdir(), "approver-guest-cal-"));
  gw = await startGateway({
    config: {
      hosts: [
        {
          id: HOST,
          name: "Lucía — fisioterapia",
          kind: "person",
          owner: "urn:schcp:principal:jwk-thumbprint:VQC1VOuKVPYBpq87x1MkJ_ax4se-_xzBCTK19U9uOx0",
          timezone: "Europe/Madrid",
          connector: { type: "ics-dir", settings: { path: calendarDir } },
          policies: { retention: "P30D" },
          calendar: {
            capacity: "me",
            hours: [1, 2, 3, 4, 5].map((day) => ({ day, open: "09:00", close: "17:00" })),
            services: [{ id: "consult", name: "Consulta", duration: "PT30M" }],
            granularity: "PT30M",
            approver: { email: "lucia@fisio.example" },
          },
        },
      ],
    },
  });
  gw.clock.offsetMs = NOW - Date.now();
  expect(await gw.runtime.syncCalendarNow(HOST)).toBe(true);
}, 60_000);
afterAll(async () => {
  await gw?.close();
  rmSync(calendarDir, { recursive: true, force: true });
});

async function operatorBooking(): Promise<Record<string, any>> {
  const r = await fetch(`${gw.origin}/operator/v0/${HOST}/bookings`, { headers: gw.operatorAuth });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { bookings: Array<{ booking: Record<string, any> }> };
  expect(body.bookings).toHaveLength(1);
  return body.bookings[0]!.booking;
}

async function operatePage(): Promise<string> {
  const signIn = await fetch(`${gw.origin}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
    },
    body: new URLSearchParams({ credential: gw.runtime.operatorToken }).toString(),
  });
  expect(signIn.status).toBe(303);
  const cookie = /(gw_session=[^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")?.[1] ?? "";
  const home = await fetch(`${gw.origin}/`, { headers: { cookie } });
  expect(home.status).toBe(200);
  return home.text();
}

describe("the approver sees who booked, in the host's zone", () => {
  let link = "";

  it("the approver's message names the guest and their contact, every time with its zone", async () => {
    const r = await fetch(`${gw.origin}/api/servicialo/${HOST}/book`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        serviceId: "consult",
        scheduledAt: "2026-12-07T10:00:00+01:00",
        clientName: GUEST.name,
        clientLastName: GUEST.lastName,
        clientEmail: GUEST.email,
        clientPhone: GUEST.phone,
      }),
    });
    expect(r.status, await r.clone().text()).toBe(201);
    await gw.runtime.messenger.idle();
    const lines = readFileSync(join(gw.dataDir, "host-messages.jsonl"), "utf8").trim().split("\n");
    const message = JSON.parse(lines.at(-1) ?? "{}") as { to: unknown; subject: string; text: string };
    expect(message.to).toEqual({ email: "lucia@fisio.example" });
    expect(message.subject).toBe(
      `Booking request from Sam Rivera: Consulta, Mon, 7 Dec 2026, 10:00–10:30 ${ZONE}`,
    );
    expect(message.text).toContain("Guest: Sam Rivera (sam.rivera@mail.com, +34 600 111 222).");
    expect(message.text).toContain(`Consulta, Mon, 7 Dec 2026, 10:00–10:30 ${ZONE}.`);
    expect(message.text).toMatch(/Answer by Mon, 7 Dec 2026, \d\d:\d\d \(Europe\/Madrid\);/);
    link = /https?:\/\/\S+\/approve\/\S+/.exec(message.text)?.[0] ?? "";
    expect(link).not.toBe("");
  });

  it("the approval page shows the guest's name and contact, the time and the deadline with the zone", async () => {
    const r = await fetch(link);
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain("<h1>Sam Rivera asks for a booking</h1>");
    expect(html).toContain("<dt>Guest</dt><dd>Sam Rivera</dd>");
    expect(html).toContain("<dt>Contact</dt><dd>sam.rivera@mail.com, +34 600 111 222</dd>");
    expect(html).toContain(`<dt>When</dt><dd>Mon, 7 Dec 2026, 10:00–10:30 ${ZONE}</dd>`);
    expect(html).toContain("<dt>Party</dt><dd>1 person</dd>");
    expect(html).toMatch(/<dt>Booking<\/dt><dd>b_[^<]+<\/dd>/);
    expect(html).toMatch(/If you do not answer by Mon, 7 Dec 2026, \d\d:\d\d \(Europe\/Madrid\)/);
  });

  it("Operate lists the waiting booking with its guest and its zone", async () => {
    const html = await operatePage();
    const pending = html.slice(
      html.indexOf('id="pending-h"'),
      html.indexOf("</section>", html.indexOf('id="pending-h"')),
    );
    expect(pending).toContain(
      '<td data-label="Guest">Sam Rivera (sam.rivera@mail.com, +34 600 111 222)</td>',
    );
    expect(pending).toContain(`<td data-label="When">Mon, 7 Dec 2026, 10:00–10:30 ${ZONE}</td>`);
    expect(pending).toMatch(/<td data-label="Answer by">Mon, 7 Dec 2026, \d\d:\d\d \(Europe\/Madrid\)<\/td>/);
  });

  it("the operator API names the grant once and carries no contact; past the retention, no guest", async () => {
    const booking = await operatorBooking();
    expect(booking.status).toBe("pending_host");
    expect(booking.retention).toBe("P30D");
    expect(booking.consent.mandate).toBe(booking.principal);
    expect(booking.consent.mandate).toMatch(/^a2a:[A-Za-z0-9_-]+$/);
    expect(JSON.stringify(booking)).not.toContain(GUEST.email);
    expect(JSON.stringify(booking)).not.toContain("Rivera");

    // Approved from the link, the booking keeps its guest until its end plus the 30 days.
    const approved = await fetch(link, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "action=approve",
    });
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain("<dt>Guest</dt><dd>Sam Rivera</dd>");
    const guestNow = async () => {
      const listed = await gw.runtime.api.listBookings(HOST);
      if (!listed.ok) throw new Error(listed.error.message);
      expect(listed.value.map((b) => b.status)).toEqual(["confirmed"]);
      return listed.value[0]?.guest;
    };
    expect(await guestNow()).toEqual({ name: "Sam Rivera", email: GUEST.email, phone: GUEST.phone });
    const END = Date.parse("2026-12-07T09:30:00Z");
    gw.clock.offsetMs = END + 29 * 86_400_000 - Date.now();
    expect(await guestNow()).toMatchObject({ name: "Sam Rivera" });
    gw.clock.offsetMs = END + 31 * 86_400_000 - Date.now();
    expect(await guestNow()).toBeUndefined();
  });
});
