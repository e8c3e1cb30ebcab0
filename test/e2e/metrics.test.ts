/**
 * GET /metrics on a real gateway over loopback (docs/ARCHITECTURE.md, Metrics), with every
 * agent edge in play: a booking over SchCP (signed HTTP, the agent SDK), over OSBP (the MCP
 * server in process, src/edges/osbp/mcp) and over A2A (REST), each moving its own
 * `booking_gateway_bookings_total{edge}` by one, and the upstream create it made counted under
 * the vendor and a fixed operation name; a refused hold counted by its reason; a host's pending
 * approval, the webhook queue and a calendar host's sync lag read at scrape time; a refused
 * availability request counted under its rate limit. The scrape needs the operator credential.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  embeddedCalendarHost,
  embeddedDefaultHosts,
  seedEmbeddedCalendar,
} from "../../src/booking/hosts/index.js";
import { EMBEDDED_CALENDAR_HOST } from "../../src/booking/hosts/embedded-default.js";
import { formatInstant } from "../../src/protocol/time/index.js";
import { matching, value } from "../support/prometheus-text.js";
import { DAY_MS, discover, freeSlots, holdAndBook, newAgent, refusalOf } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import { osbpBook, osbpSession, type OsbpSession } from "./support/osbp-in-process.js";

const MAPLE = "maple-street-auto";
const DENTAL = "harbourview-dental";
const FADES = "fades-on-queen";
const M = "booking_gateway_";

let gw: E2eGateway;
let dataDir: string;
let osbp: OsbpSession;

async function scrape(headers: Record<string, string> = gw.operatorAuth): Promise<Response> {
  return fetch(`${gw.origin}/metrics`, { headers });
}
async function metrics(): Promise<string> {
  const res = await scrape();
  expect(res.status).toBe(200);
  return res.text();
}
const bookings = (text: string, edge: string, status = "confirmed") =>
  value(text, `${M}bookings_total`, { edge, status });
const creates = (text: string) =>
  value(text, `${M}upstream_calls_total`, {
    vendor: "synthetic",
    endpoint: "bookings.create",
    outcome: "ok",
  });

beforeAll(async () => {
  // The embedded calendar host too (its calendar a directory in the data dir), for the sync lag.
  dataDir = mkdtempSync(join(tmpdir(), "e2e-metrics-"));
  await seedEmbeddedCalendar(dataDir, Date.now());
  gw = await startGateway({
    runtime: {
      dataDir,
      hosts: [...embeddedDefaultHosts(), embeddedCalendarHost()],
      // Two availability answers per agent key, then §7.2's refusal (counted as rate limited).
      availabilityRate: { capacity: 2, refillPerSec: 0.001 },
    },
  });
  osbp = await osbpSession(gw, MAPLE);
}, 60_000);
afterAll(async () => {
  await osbp?.close();
  await gw?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("GET /metrics", { timeout: 60_000 }, () => {
  it("answers only the operator credential, in Prometheus' text format", async () => {
    const anonymous = await scrape({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await anonymous.text()).not.toContain(M);
    expect((await scrape({ authorization: "Bearer not-the-operator-credential" })).status).toBe(401);

    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain(`# TYPE ${M}bookings_total counter`);
    expect(text).toContain(`# TYPE ${M}upstream_call_duration_seconds histogram`);
  });

  it("a booking over SchCP moves bookings_total{edge=schcp} and the upstream create's counters", async () => {
    const before = await metrics();
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, MAPLE);
    const [slot] = await freeSlots(agent, gw, maple, "oil-change", { fromDays: 2 });
    await holdAndBook(agent, maple, "oil-change", slot!.start);

    const after = await metrics();
    expect(bookings(after, "schcp") - bookings(before, "schcp")).toBe(1);
    expect(creates(after) - creates(before)).toBe(1);
    expect(value(after, `${M}holds_granted_total`) - value(before, `${M}holds_granted_total`)).toBe(1);
    const seconds = { vendor: "synthetic", endpoint: "bookings.create" };
    expect(
      value(after, `${M}upstream_call_duration_seconds_count`, seconds) -
        value(before, `${M}upstream_call_duration_seconds_count`, seconds),
    ).toBe(1);
    // The other edges did not move.
    expect(bookings(after, "osbp")).toBe(bookings(before, "osbp"));
    expect(bookings(after, "a2a")).toBe(bookings(before, "a2a"));
  });

  it("a booking over OSBP, through the MCP server, moves bookings_total{edge=osbp}", async () => {
    const before = await metrics();
    await osbpBook(osbp, gw, {
      serviceId: "oil-change",
      timezone: "America/Toronto",
      daysAhead: 4,
      key: "osbp-1",
    });

    const after = await metrics();
    expect(bookings(after, "osbp") - bookings(before, "osbp")).toBe(1);
    expect(creates(after) - creates(before)).toBe(1);
    expect(bookings(after, "schcp")).toBe(bookings(before, "schcp"));
  });

  it("a booking over A2A moves bookings_total{edge=a2a}; the same time again is a hold refused as slot_taken", async () => {
    const before = await metrics();
    const date = new Date(gw.clock.now() + 3 * DAY_MS).toISOString().slice(0, 10);
    const api = `${gw.origin}/api/servicialo/${FADES}`;
    const listed = await fetch(`${api}/availability?serviceId=haircut&date=${date}`);
    expect(listed.status).toBe(200);
    const start = ((await listed.json()) as { available_slots: Array<{ start: string }> }).available_slots[0]!
      .start;
    const book = (email: string) =>
      fetch(`${api}/book`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ clientEmail: email, serviceId: "haircut", scheduledAt: start }),
      });
    expect((await book("ana@mail.example")).status).toBe(201);
    expect((await book("luis@mail.example")).status).toBe(409);

    const after = await metrics();
    expect(bookings(after, "a2a") - bookings(before, "a2a")).toBe(1);
    expect(creates(after) - creates(before)).toBe(1);
    const taken = { code: "slot_unavailable", reason: "slot_taken" };
    expect(
      value(after, `${M}holds_refused_total`, taken) - value(before, `${M}holds_refused_total`, taken),
    ).toBe(1);
  });

  it("a booking waiting for its host's approval is counted at scrape time, and its status is pending_host", async () => {
    const before = await metrics();
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, DENTAL);
    const [slot] = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 3 });
    const booked = await holdAndBook(agent, dental, "cleaning", slot!.start);
    expect(booked.reply.status).toBe(202);

    const after = await metrics();
    expect(bookings(after, "schcp", "pending_host") - bookings(before, "schcp", "pending_host")).toBe(1);
    expect(value(after, `${M}pending_approvals`) - value(before, `${M}pending_approvals`)).toBe(1);
  });

  it("counts a request the availability rate limit refused", async () => {
    const before = await metrics();
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, MAPLE);
    const now = gw.clock.now();
    const ask = () =>
      agent.client.availability(maple, {
        service_id: "oil-change",
        window: {
          start: formatInstant(now + 2 * DAY_MS, "America/Toronto"),
          end: formatInstant(now + 3 * DAY_MS, "America/Toronto"),
        },
        limit: 5,
      });
    expect((await ask()).ok).toBe(true);
    expect((await ask()).ok).toBe(true);
    expect(refusalOf(await ask()).status).toBe(429);

    const after = await metrics();
    const limit = { limit: "availability" };
    expect(
      value(after, `${M}rate_limited_total`, limit) - value(before, `${M}rate_limited_total`, limit),
    ).toBe(1);
  });

  it("reads the queues and a calendar host's sync lag at scrape time", async () => {
    expect(await gw.runtime.syncCalendarNow(EMBEDDED_CALENDAR_HOST)).toBe(true);
    const text = await metrics();
    const host = { host: EMBEDDED_CALENDAR_HOST };
    expect(value(text, `${M}calendar_syncs_total`, { ...host, outcome: "complete" })).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      value(text, `${M}upstream_calls_total`, {
        vendor: "ics-dir",
        endpoint: "calendar.sync",
        outcome: "ok",
      }),
    ).toBeGreaterThanOrEqual(1);
    const [lag] = matching(text, `${M}calendar_sync_lag_seconds`, host);
    expect(lag?.value).toBeGreaterThanOrEqual(0);
    // The lag is the business clock's distance from the last complete sync.
    gw.clock.advance(3_600_000);
    const later = matching(await metrics(), `${M}calendar_sync_lag_seconds`, host)[0];
    expect(later!.value - lag!.value).toBeGreaterThanOrEqual(3_600);
    gw.clock.advance(-3_600_000);
    // The webhook outbox (in process here) counts its deliveries by state.
    expect(
      matching(text, `${M}queue_jobs`, { queue: "webhooks" })
        .map((s) => s.labels["state"])
        .sort(),
    ).toEqual(["active", "delayed", "waiting"]);
  });

  it("carries no booking id, address or URL in any label", async () => {
    const text = await metrics();
    const listed = await gw.runtime.service.listBookings(MAPLE);
    if (!listed.ok) throw new Error("listBookings");
    expect(listed.value.length).toBeGreaterThan(0);
    for (const b of listed.value) expect(text).not.toContain(b.bookingId);
    expect(text).not.toMatch(/https?:\/\//);
    expect(text).not.toContain("@mail.example");
    // Every source the scrape read answered (one that throws leaves its gauge empty, logged).
    expect(gw.logs.filter((l) => l.message.includes("metrics source"))).toEqual([]);
  });
});
