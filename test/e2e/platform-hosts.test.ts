/**
 * A Square host and a Servicialo host end to end through both edges,
 * against stateful fakes of each platform's HTTP API served on loopback
 * (support/fake-square.ts, support/fake-servicialo.ts; shaped from fixtures/square and
 * fixtures/servicialo):
 *
 * - SchCP, through the real gateway over HTTP: hold → confirm → receipt → cancel, with exactly
 *   one upstream create when the confirm is retried with its idempotency key (§9.1), and when
 *   the platform commits the create and its answer is lost;
 * - OSBP, through `booking-gateway mcp --config FILE --host ID` as a child process driven by the
 *   official MCP client over stdio: availability.find → booking.create (with the approval
 *   challenge) → booking.status, the booking landing on the fake platform.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt, verifyHoldOffer } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import {
  extractApprovalToken,
  type BookingMandate,
  type Problem,
  type Slot as OsbpSlot,
  type ToolResult,
} from "../../src/protocol/osbp/index.js";
import { instantToWallClock } from "../../src/protocol/time/index.js";
import { startMcpServer, type McpSession } from "../support/mcp.js";
import { DAY_MS, discover, freeSlots, must, newAgent, openMandate, refusalOf } from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import {
  FakeServicialoServer,
  SERVICIALO_API_KEY,
  SERVICIALO_ORG,
  SERVICIALO_PROVIDERS,
  SERVICIALO_SERVICE,
  SERVICIALO_TZ,
} from "./support/fake-servicialo.js";
import { FakeSquareServer, SQUARE_HAIRCUT, SQUARE_LOCATION_ID } from "./support/fake-square.js";

const SQUARE_HOST = "maple-square";
const SERVICIALO_HOST = "clinica-servicialo";
const SQUARE_TOKEN = "EAAAl-e2e-secret-token-0123456789";

const square = new FakeSquareServer(SQUARE_TOKEN);
const servicialo = new FakeServicialoServer();
let servicialoOrigin = "";
let gw: E2eGateway;
let dir: string;
let configFile: string;
const sessions: McpSession[] = [];

function hostsConfig(): unknown {
  return {
    hosts: [
      {
        id: SQUARE_HOST,
        name: "Maple Street Studio",
        kind: "business",
        timezone: "America/Toronto",
        connector: {
          type: "square",
          settings: {
            environment: "sandbox",
            locationId: SQUARE_LOCATION_ID,
            version: "2026-08-20",
            accessToken: SQUARE_TOKEN,
            baseUrl: square.origin,
            timeoutMs: 5_000,
            // The operator's statement: no card or deposit up front (Square's API does not say).
            paymentRequirement: "none",
          },
        },
        policies: { confirmation: "instant", retention: "P365D" },
        services: [],
      },
      {
        id: SERVICIALO_HOST,
        name: "Clinica Demo",
        kind: "business",
        timezone: SERVICIALO_TZ,
        connector: {
          type: "servicialo",
          settings: {
            baseUrl: servicialoOrigin,
            orgSlug: SERVICIALO_ORG,
            apiKey: SERVICIALO_API_KEY,
            timezone: SERVICIALO_TZ,
            providers: SERVICIALO_PROVIDERS,
            fallbackClientEmail: "reservas@clinica-demo.example",
            // The operator's statement: this business takes no prepayment (the API does not say).
            paymentRequirement: "none",
            timeoutMs: 5_000,
          },
        },
        policies: { confirmation: "instant", retention: "P365D" },
        services: [],
      },
    ],
  };
}

beforeAll(async () => {
  await square.start();
  servicialoOrigin = await servicialo.start();
  dir = mkdtempSync(join(tmpdir(), "e2e-platforms-"));
  configFile = join(dir, "hosts.json");
  writeFileSync(configFile, JSON.stringify(hostsConfig()));
  gw = await startGateway({ config: hostsConfig() });
}, 60_000);

afterAll(async () => {
  for (const s of sessions) await s.close();
  await gw?.close();
  await square.close();
  await servicialo.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 60_000);

interface Platform {
  readonly hostId: string;
  readonly serviceId: string;
  /** Upstream creates so far. */
  creates(): number;
  /** Live (not cancelled) upstream bookings. */
  live(): number;
  /** Whether the upstream booking with this id is cancelled. */
  cancelled(upstreamId: string): boolean;
  /** The id of the platform's newest booking. */
  lastId(): string | undefined;
  /** The next upstream create commits, then its answer is lost. */
  loseNextCreateAnswer(): void;
  readonly currency: string;
  readonly maxMinor: number;
}

const PLATFORMS: readonly Platform[] = [
  {
    hostId: SQUARE_HOST,
    serviceId: SQUARE_HAIRCUT,
    creates: () => square.creates().length,
    live: () => square.live().length,
    cancelled: (id) => String(square.bookings.get(id)?.["status"]).startsWith("CANCELLED"),
    lastId: () => [...square.bookings.keys()].at(-1),
    loseNextCreateAnswer: () => square.inject("create", { kind: "lost_response" }),
    currency: "CAD",
    maxMinor: 10_000,
  },
  {
    hostId: SERVICIALO_HOST,
    serviceId: SERVICIALO_SERVICE,
    creates: () => servicialo.books().length,
    live: () => servicialo.live().length,
    cancelled: (id) => servicialo.sessions.get(id)?.status === "cancelled",
    lastId: () => [...servicialo.sessions.keys()].at(-1),
    loseNextCreateAnswer: () => servicialo.inject("book", { kind: "lost_response" }),
    currency: "CLP",
    maxMinor: 100_000,
  },
];

async function holdOf(agent: E2eAgent, host: DiscoveredHost, serviceId: string, start: string) {
  const m = await openMandate(agent, host.hostId);
  const hold = must(
    await agent.client.hold(host, { service_id: serviceId, start }, { mandate: m.compact }),
    "hold",
  );
  const held = must(await verifyHoldOffer(hold.body, host), "verify offer");
  return { m, hold, held };
}

for (const p of PLATFORMS) {
  describe(`${p.hostId}: SchCP end to end`, { timeout: 120_000 }, () => {
    it("hold → confirm → receipt → cancel, one upstream create when the confirm is retried", async () => {
      const agent = newAgent(gw);
      const host = await discover(agent, gw, p.hostId);
      const slots = await freeSlots(agent, gw, host, p.serviceId, { fromDays: 2, toDays: 9 });
      expect(slots.length).toBeGreaterThan(0);
      const { m, hold, held } = await holdOf(agent, host, p.serviceId, slots[0]!.start);
      const createsBefore = p.creates();
      const liveBefore = p.live();

      const key = `confirm-${p.hostId}-1`;
      const body = { offer_sha256: held.offer.sha256, idempotency_key: key };
      const first = must(
        await agent.client.confirm(host, hold.body.hold_id, body, { mandate: m.compact }),
        "confirm",
      );
      expect(first.status).toBe(201);
      // §9.1: the same key again (the agent did not see the answer) replays it; nothing new upstream.
      const again = must(
        await agent.client.confirm(host, hold.body.hold_id, body, { mandate: m.compact }),
        "retry",
      );
      expect(again.status).toBe(201);
      expect(again.body.booking.booking_id).toBe(first.body.booking.booking_id);
      expect(p.creates()).toBe(createsBefore + 1);
      expect(p.live()).toBe(liveBefore + 1);

      const receipt = must(
        await verifyBookingReceipt(first.body, host, {
          offerSha256: held.offer.sha256,
          mandateJti: m.jti,
          retention: held.offer.claims.retention,
        }),
        "verify receipt",
      );
      expect(receipt.booking.status).toBe("confirmed");
      const bookingId = first.body.booking.booking_id;
      const read = must(
        await agent.client.getBooking(host, bookingId, { mandate: m.compact }),
        "get booking",
      );
      expect(read.body.booking.status).toBe("confirmed");

      // The platform's booking is the one this confirm made.
      const upstreamId = p.lastId();
      expect(upstreamId).toBeDefined();
      expect(p.cancelled(upstreamId!)).toBe(false);

      const cancelled = must(
        await agent.client.cancel(host, bookingId, {}, { mandate: m.compact }),
        "cancel",
      );
      expect(cancelled.body.booking.status).toBe("cancelled");
      expect(p.cancelled(upstreamId!)).toBe(true);
      expect(p.live()).toBe(liveBefore);
      expect(p.creates()).toBe(createsBefore + 1);
    });
  });
}

describe("a create committed upstream whose answer is lost", { timeout: 120_000 }, () => {
  it("Square: the confirm finds the booking by its key: one booking upstream, one confirmed here", async () => {
    const p = PLATFORMS[0]!;
    const agent = newAgent(gw);
    const host = await discover(agent, gw, p.hostId);
    const slots = await freeSlots(agent, gw, host, p.serviceId, { fromDays: 3, toDays: 10 });
    const { m, hold, held } = await holdOf(agent, host, p.serviceId, slots[0]!.start);
    const before = p.creates();
    const liveBefore = p.live();
    p.loseNextCreateAnswer();
    const lookupsBefore = square.requests.filter(
      (r) => r.method === "GET" && r.path === "/v2/bookings",
    ).length;
    const body = { offer_sha256: held.offer.sha256, idempotency_key: "lost-square-1" };
    const first = must(
      await agent.client.confirm(host, hold.body.hold_id, body, { mandate: m.compact }),
      "confirm",
    );
    expect(first.status).toBe(201);
    // The answer really was lost, and the booking was found by its key (ListBookings).
    expect(square.faultsLeft("create")).toBe(0);
    expect(
      square.requests.filter((r) => r.method === "GET" && r.path === "/v2/bookings").length,
    ).toBeGreaterThan(lookupsBefore + 1);
    // The agent lost this answer too and retries, with the same key and with a fresh one.
    const same = must(
      await agent.client.confirm(host, hold.body.hold_id, body, { mandate: m.compact }),
      "retry",
    );
    expect(same.body.booking.booking_id).toBe(first.body.booking.booking_id);
    const fresh = await agent.client.confirm(
      host,
      hold.body.hold_id,
      { offer_sha256: held.offer.sha256, idempotency_key: "lost-square-2" },
      { mandate: m.compact },
    );
    if (fresh.ok) expect(fresh.value.body.booking.booking_id).toBe(first.body.booking.booking_id);
    expect(p.creates()).toBe(before + 1);
    expect(p.live()).toBe(liveBefore + 1);
    const atThatTime = square
      .live()
      .filter((b) => Date.parse(String(b["start_at"])) === Date.parse(slots[0]!.start));
    expect(atThatTime).toHaveLength(1);
  });

  it("Servicialo (no readback): a typed UPSTREAM_UNAVAILABLE, the hold kept, and never a second session", async () => {
    const p = PLATFORMS[1]!;
    const agent = newAgent(gw);
    const host = await discover(agent, gw, p.hostId);
    const slots = await freeSlots(agent, gw, host, p.serviceId, { fromDays: 3, toDays: 10 });
    const { m, hold, held } = await holdOf(agent, host, p.serviceId, slots[0]!.start);
    const before = p.creates();
    const liveBefore = p.live();
    p.loseNextCreateAnswer();
    const body = { offer_sha256: held.offer.sha256, idempotency_key: "lost-servicialo-1" };
    const first = refusalOf(
      await agent.client.confirm(host, hold.body.hold_id, body, { mandate: m.compact }),
    );
    expect(first.code).toBe("UPSTREAM_UNAVAILABLE");
    expect(servicialo.faultsLeft("book")).toBe(0);
    const same = await agent.client.confirm(host, hold.body.hold_id, body, { mandate: m.compact });
    const fresh = await agent.client.confirm(
      host,
      hold.body.hold_id,
      { offer_sha256: held.offer.sha256, idempotency_key: "lost-servicialo-2" },
      { mandate: m.compact },
    );
    for (const r of [same, fresh]) expect(r.ok).toBe(false);
    expect(p.creates()).toBe(before + 1);
    expect(p.live()).toBe(liveBefore + 1);
    // The hold is not given back (it may be booked upstream): it still reads as held, and an
    // expired or released hold would let the time go to another guest.
    const kept = must(
      await agent.client.getHold(host, hold.body.hold_id, { mandate: m.compact }),
      "get hold",
    );
    expect(kept.body.status).toBe("held");
  });
});

// ---- OSBP over stdio --------------------------------------------------------------------

async function mcp(hostId: string): Promise<McpSession> {
  const session = await startMcpServer({
    host: hostId,
    args: ["--config", configFile],
    env: { GATEWAY_DATA_DIR: join(dir, `mcp-${hostId}`), PUBLIC_ORIGIN: "http://127.0.0.1:8787" },
  });
  sessions.push(session);
  return session;
}

async function call<T>(session: McpSession, tool: string, args: unknown): Promise<ToolResult<T>> {
  return (await session.call(tool, args)).envelope as ToolResult<T>;
}
function valueOf<T>(r: ToolResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.problem)}`);
  return r.value;
}
function problemOf(r: ToolResult<unknown>): Problem {
  if (r.ok) throw new Error(`expected a problem, got ${JSON.stringify(r.value)}`);
  return r.problem;
}
const pad = (n: number) => String(n).padStart(2, "0");
function localDate(ms: number, zone: string): string {
  const w = instantToWallClock(ms, zone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}`;
}

function mandateFor(orgId: string, date: string, maxMinor: number, currency: string): BookingMandate {
  return {
    id: `mnd_${Math.random().toString(36).slice(2)}`,
    expires_at: new Date(Date.now() + 2 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
    allowed_actions: ["booking.create"],
    organization_id: orgId,
    earliest_start: `${date}T00:00:00`,
    latest_end: `${date}T23:59:00`,
    max_price: { amount_minor: maxMinor, currency },
  };
}

/** The first OSBP slot of a service from 4 days ahead, over stdio. */
async function firstOsbpSlot(session: McpSession, p: Platform, zone: string): Promise<OsbpSlot> {
  for (let d = 4; d < 14; d++) {
    const date = localDate(Date.now() + d * DAY_MS, zone);
    const found = valueOf(
      await call<OsbpSlot[]>(session, "osbp_availability_find", { service_id: p.serviceId, date }),
    );
    if (found[0] !== undefined) return found[0];
  }
  throw new Error(`no ${p.hostId} slot in 10 days:\n${session.stderr()}`);
}

function createInput(p: Platform, slot: OsbpSlot) {
  const [date, time] = slot.starts_at_local.split("T") as [string, string];
  return {
    idempotency_key: `osbp-${p.hostId}-1`,
    service_id: p.serviceId,
    schedule_id: slot.schedule_id,
    ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
    date,
    time: time.slice(0, 5),
    customer: { display_name: "Ana Rojas", email: "ana@example.org", phone: "+56912345678" },
    mandate: mandateFor(slot.organization_id, date, p.maxMinor, p.currency),
  };
}

describe(`${SERVICIALO_HOST}: OSBP over stdio`, { timeout: 120_000 }, () => {
  it("availability.find → booking.create (approval challenge) → booking.status, booked on the platform", async () => {
    const p = PLATFORMS[1]!;
    const session = await mcp(p.hostId);
    const slot = await firstOsbpSlot(session, p, SERVICIALO_TZ);
    const before = p.creates();
    const liveBefore = p.live();
    const input = createInput(p, slot);
    const challenge = problemOf(await call(session, "osbp_booking_create", input));
    expect(challenge.code, JSON.stringify(challenge)).toBe("requires_user_confirmation");
    expect(p.creates()).toBe(before);
    const approved = {
      ...input,
      approval: { confirmed: true, token: extractApprovalToken(challenge.message) },
    };
    const receipt = valueOf(await call<{ booking_id: string }>(session, "osbp_booking_create", approved));
    expect(p.creates()).toBe(before + 1);
    expect(p.live()).toBe(liveBefore + 1);
    const session_ = servicialo.sessions.get(p.lastId()!);
    expect(session_?.start).toBe(Date.parse(slot.starts_at!));
    expect(session_?.email).toBe("ana@example.org");
    // OSBP idempotency: the same call again answers the same booking, nothing new upstream.
    const replay = valueOf(await call<{ booking_id: string }>(session, "osbp_booking_create", approved));
    expect(replay.booking_id).toBe(receipt.booking_id);
    expect(p.creates()).toBe(before + 1);
    const status = valueOf(
      await call<{ status: string }>(session, "osbp_booking_status", { booking_id: receipt.booking_id }),
    );
    expect(status.status).toBe("booked");
  });
});

describe(`${SQUARE_HOST}: OSBP over stdio`, { timeout: 120_000 }, () => {
  it("availability.find answers Square's slots; booking.create (approval challenge) books once on Square", async () => {
    const p = PLATFORMS[0]!;
    const session = await mcp(p.hostId);
    const slot = await firstOsbpSlot(session, p, "America/Toronto");
    expect(slot.organization_id).toBe(SQUARE_LOCATION_ID);
    const offered = square.requests.filter((r) => r.path === "/v2/bookings/availability/search");
    expect(offered.length).toBeGreaterThan(0);
    const before = p.creates();
    const input = createInput(p, slot);
    const challenge = problemOf(await call(session, "osbp_booking_create", input));
    expect(challenge.code, JSON.stringify(challenge)).toBe("requires_user_confirmation");
    expect(p.creates()).toBe(before);
    const approved = {
      ...input,
      approval: { confirmed: true, token: extractApprovalToken(challenge.message) },
    };
    const receipt = valueOf(await call<{ booking_id: string }>(session, "osbp_booking_create", approved));
    expect(p.creates()).toBe(before + 1);
    const replay = valueOf(await call<{ booking_id: string }>(session, "osbp_booking_create", approved));
    expect(replay.booking_id).toBe(receipt.booking_id);
    expect(p.creates()).toBe(before + 1);
    const status = valueOf(
      await call<{ status: string }>(session, "osbp_booking_status", { booking_id: receipt.booking_id }),
    );
    expect(status.status).toBe("booked");
  });
});
