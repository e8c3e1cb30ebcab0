/**
 * SchCP §7.9 `answer` seen from outside, on every edge, by the clients agents use: a person's
 * calendar (fades-on-queen as kind "person", host_approval, its owner named) whose owner
 * signed a rule for haircuts with anyone, kept through the operator API, on Redis.
 *
 * - A2A: the SDK's default client (`new ClientFactory()`, the A2A 1.0 card) books through
 *   SendMessage; the session is confirmed and says answer.by "rule" with the rule's label.
 * - OSBP: `booking-gateway mcp --host fades-on-queen` as a real child process on the same Redis
 *   and data dir, driven by the official MCP client over stdio: booking.create's receipt says
 *   the rule accepted it, by its label, and booking.status answers "booked".
 * - SchCP: the agent SDK's booking says answer.by "rule" (test/e2e/people-and-rules.test.ts
 *   holds the rest of §7.9 there).
 *
 * With the rule removed, each edge tells the truth the other way: A2A pendiente_confirmacion,
 * OSBP "Requested …, pending". And a meeting's booking there (§5.12), pending the person's own
 * acceptance, holds its barber's time against A2A (409) and OSBP (not offered) until called off.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClientFactory } from "@a2a-js/sdk/client";
import type { Message } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAgentKey,
  verifyHoldOffer,
  type AgentKey,
  type DiscoveredHost,
} from "../../src/agent/index.js";
import { jwkThumbprint, principalUrn } from "../../src/protocol/jose/index.js";
import { signCompactJws } from "../../src/protocol/jose/jws.js";
import {
  extractApprovalToken,
  type Slot as OsbpSlot,
  type ToolResult,
} from "../../src/protocol/osbp/index.js";
import { formatInstant, instantToWallClock } from "../../src/protocol/time/index.js";
import { openRedis, type RedisClient } from "../../src/redis/client.js";
import { dataPart, userMessage } from "../support/a2a-sdk.js";
import { startMcpServer, type McpSession } from "../support/mcp.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import { DAY_MS, discover, freeSlots, holdAndBook, must, newAgent, openMandate } from "./support/agents.js";
import { defaultConfig, startGateway, type E2eGateway } from "./support/gateway.js";

const PERSON = "fades-on-queen";
const TZ = "America/Toronto";
const LABEL = "Haircuts with anyone";
const owner: AgentKey = createAgentKey();

let redis: TestRedis;
let raw: RedisClient;
let gw: E2eGateway;
let mcp: McpSession;
let person: DiscoveredHost;
const P = uniquePrefix("people-edges");

beforeAll(async () => {
  redis = await startTestRedis();
  raw = openRedis(redis.url);
  const config = defaultConfig();
  const fades = config.hosts.find((h) => h.id === PERSON);
  if (fades === undefined) throw new Error("no fades");
  fades["kind"] = "person";
  fades["owner"] = principalUrn(owner.thumbprint);
  fades.policies = { confirmation: "host_approval", retention: "P365D" };
  gw = await startGateway({ config, redisUrl: redis.url, redisKeyPrefix: P, runtime: { workers: false } });
  // The mcp process serves the same host from the same config, Redis and data dir (its keys).
  const configFile = join(gw.dataDir, "hosts.json");
  writeFileSync(configFile, JSON.stringify(config));
  mcp = await startMcpServer({
    host: PERSON,
    args: ["--config", configFile],
    env: {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: P,
      GATEWAY_DATA_DIR: gw.dataDir,
      PUBLIC_ORIGIN: gw.origin,
    },
  });
  person = await discover(newAgent(gw), gw, PERSON);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await gw?.close();
  if (raw !== undefined) {
    await dropPrefix(raw, P);
    raw.disconnect();
  }
  await redis?.stop();
});

/** The owner's rule: haircuts with anyone, answered by the calendar's own signing key (cnf.jkt). */
async function keepRule(): Promise<void> {
  const key = person.document.keys[0];
  if (key === undefined) throw new Error("no host key");
  const iat = Math.floor(gw.clock.now() / 1000);
  const rule = await signCompactJws(
    { typ: "schcp-rule+jwt" },
    {
      iss: principalUrn(owner.thumbprint),
      principal_jwk: owner.publicJwk,
      iat,
      exp: iat + 30 * 86_400,
      jti: "r-haircuts",
      label: LABEL,
      services: ["haircut"],
      cnf: { jkt: jwkThumbprint(key) },
    },
    owner.privateKey,
  );
  const res = await fetch(`${gw.origin}/operator/v0/${PERSON}/rules`, {
    method: "POST",
    headers: { ...gw.operatorAuth, "content-type": "application/json" },
    body: JSON.stringify({ rule }),
  });
  expect(res.status).toBeLessThan(300);
}

async function dropRule(): Promise<void> {
  const res = await fetch(`${gw.origin}/operator/v0/${PERSON}/rules/r-haircuts`, {
    method: "DELETE",
    headers: gw.operatorAuth,
  });
  expect(res.status).toBe(200);
}

/** The `{intent, status, http_status, result}` of the agent's Message, as far as these tests read it. */
interface A2aOutcome {
  readonly status?: string;
  readonly http_status?: number;
  readonly result?: {
    readonly session?: {
      readonly id: string;
      readonly status: string;
      readonly answer?: { readonly by: string; readonly rule?: string };
    };
  };
}

function outcomeOf(result: unknown): A2aOutcome {
  const data = (result as Message).parts[1]?.content;
  return data?.$case === "data" ? (data.value as A2aOutcome) : {};
}

async function a2aBook(start: string, email: string): Promise<A2aOutcome> {
  const client = await new ClientFactory().createFromUrl(`${gw.origin}/api/servicialo/${PERSON}/`);
  return outcomeOf(
    await client.sendMessage({
      tenant: "",
      message: userMessage([
        dataPart({
          intent: "book_session",
          params: { serviceId: "haircut", scheduledAt: start },
          client: { name: "Ana", lastName: "Ruiz", email, phone: "+14165550101" },
        }),
      ]),
      configuration: undefined,
      metadata: undefined,
    }),
  );
}

const pad = (n: number) => String(n).padStart(2, "0");

/** OSBP booking.create over stdio, `daysAhead` days out: the approval challenge, then the approved retry. */
async function osbpBook(
  daysAhead: number,
  key: string,
): Promise<ToolResult<{ booking_id: string; text: string }>> {
  // The first day from `daysAhead` the shop is open (it closes some weekdays).
  let date = "";
  let slot: OsbpSlot | undefined;
  for (let d = daysAhead; slot === undefined && d < daysAhead + 7; d++) {
    const w = instantToWallClock(gw.clock.now() + d * DAY_MS, TZ);
    date = `${w.year}-${pad(w.month)}-${pad(w.day)}`;
    const found = (await mcp.call("osbp_availability_find", { service_id: "haircut", date }))
      .envelope as ToolResult<OsbpSlot[]>;
    if (!found.ok) throw new Error(`availability.find: ${found.problem.code}`);
    slot = found.value.at(-1);
  }
  if (slot === undefined) throw new Error(`no OSBP slot in the week from day ${daysAhead}`);
  const input = {
    idempotency_key: key,
    service_id: "haircut",
    schedule_id: slot.schedule_id,
    ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
    date,
    time: (slot.starts_at_local.split("T")[1] ?? "").slice(0, 5),
    customer: { display_name: "Ada Lovelace", email: `${key}@mail.example`, phone: "+14165550100" },
    mandate: {
      id: `mnd_${key}`,
      expires_at: new Date(Date.now() + 20 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
      allowed_actions: ["booking.create"],
      organization_id: slot.organization_id,
      earliest_start: `${date}T00:00:00`,
      latest_end: `${date}T23:59:00`,
      max_price: { amount_minor: 1_000_000, currency: "CAD" },
    },
  };
  const challenge = (await mcp.call("osbp_booking_create", input)).envelope;
  if (challenge.ok || challenge.problem.code !== "requires_user_confirmation")
    throw new Error(`booking.create: expected requires_user_confirmation, got ${JSON.stringify(challenge)}`);
  const token = extractApprovalToken(challenge.problem.message);
  return (await mcp.call("osbp_booking_create", { ...input, approval: { confirmed: true, token } }))
    .envelope as ToolResult<{ booking_id: string; text: string }>;
}

describe("§7.9 who said yes, on every edge, seen by each edge's own client", { timeout: 120_000 }, () => {
  let slots: string[];
  beforeAll(async () => {
    slots = (await freeSlots(newAgent(gw), gw, person, "haircut", { fromDays: 2, toDays: 6, limit: 40 })).map(
      (s) => s.start,
    );
  });

  it("a covering rule: A2A's session, OSBP's receipt and SchCP's booking each say the rule said yes", async () => {
    await keepRule();
    try {
      const booked = await a2aBook(slots[0]!, "ana.ruiz@mail.example");
      expect(booked, JSON.stringify(booked)).toMatchObject({ status: "completed", http_status: 201 });
      expect(booked.result?.session).toMatchObject({ answer: { by: "rule", rule: LABEL } });
      const listed = await gw.runtime.service.listBookings(PERSON);
      if (!listed.ok) throw new Error("listBookings");
      expect(listed.value.find((b) => b.bookingId === booked.result?.session?.id)).toMatchObject({
        status: "confirmed",
        answer: { by: "rule", rule: LABEL },
      });

      const receipt = await osbpBook(8, "osbp-rule");
      if (!receipt.ok) throw new Error(JSON.stringify(receipt.problem));
      expect(receipt.value.text).toContain(`Accepted by a rule the host set in advance ("${LABEL}")`);
      const status = (await mcp.call("osbp_booking_status", { booking_id: receipt.value.booking_id }))
        .envelope as ToolResult<{ status: string }>;
      expect(status.ok && status.value.status).toBe("booked");

      const schcp = await holdAndBook(newAgent(gw), person, "haircut", slots[1]!);
      expect(schcp.booking.booking).toMatchObject({
        status: "confirmed",
        answer: { by: "rule", rule: LABEL },
      });
    } finally {
      await dropRule();
    }
  });

  it("without the rule, each edge says the booking waits for the person", async () => {
    const booked = await a2aBook(slots[2]!, "luis.diaz@mail.example");
    expect(booked, JSON.stringify(booked)).toMatchObject({ status: "completed" });
    expect(booked.result?.session?.status).toBe("pendiente_confirmacion");
    expect(booked.result?.session?.answer).toBeUndefined();

    const receipt = await osbpBook(16, "osbp-person");
    if (!receipt.ok) throw new Error(JSON.stringify(receipt.problem));
    expect(receipt.value.text).toMatch(/^Requested .* it is pending until they answer/);
    // A person's calendar: the person approves, not "the business" (§7.7).
    expect(receipt.value.text).toContain("Fades on Queen approves each booking in person");
    expect(receipt.value.text).not.toContain("Accepted");
  });
  it("§5.12 across edges: a meeting's booking at the person's calendar holds its barber's time against A2A and OSBP", async () => {
    const MARCUS = "barber-marcus";
    const organizer = newAgent(gw);
    const mandate = await openMandate(organizer, PERSON);
    // Marcus's free starts ten to twelve days out: A2A books him by default.
    const from = gw.clock.now() + 10 * DAY_MS;
    const free = must(
      await organizer.client.availability(
        person,
        {
          service_id: "haircut",
          window: { start: formatInstant(from, TZ), end: formatInstant(from + 2 * DAY_MS, TZ) },
          constraints: { resource: MARCUS },
          limit: 5,
        },
        { mandate: mandate.compact },
      ),
      "availability",
    ).body.slots;
    const start = free[0]!.start;
    const w = instantToWallClock(Date.parse(start), TZ);
    const local = `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:00`;
    const marcusAt = async (): Promise<number> => {
      const found = (
        await mcp.call("osbp_availability_find", {
          service_id: "haircut",
          date: `${w.year}-${pad(w.month)}-${pad(w.day)}`,
        })
      ).envelope as ToolResult<OsbpSlot[]>;
      if (!found.ok) throw new Error(`availability.find: ${found.problem.code}`);
      return found.value.filter((x) => x.provider_id === MARCUS && x.starts_at_local === local).length;
    };
    // OSBP offers Marcus at that time before the meeting takes it.
    expect(await marcusAt()).toBe(1);
    const hold = must(
      await organizer.client.hold(
        person,
        { service_id: "haircut", start, resource: MARCUS },
        { mandate: mandate.compact },
      ),
      "hold",
    );
    const offer = must(await verifyHoldOffer(hold.body, person), "verify hold").offer;
    const contract = must(
      await organizer.keyApp.signMeetingContract({
        exp: Math.floor(gw.clock.now() / 1000) + 6 * 3600,
        meeting_id: "mtg_edges",
        revision: 1,
        title: "Haircuts together",
        tz: TZ,
        start: hold.body.start,
        end: hold.body.end!,
        place: { name: "Fades on Queen", locality: "Toronto" },
        members: [
          {
            principal: organizer.keyApp.principal,
            name: "Sam",
            host: "sam-elsewhere",
            domain: null,
            service_id: "haircut",
            offer_sha256: "S".repeat(42) + "A",
          },
          {
            principal: principalUrn(owner.thumbprint),
            name: "Fades on Queen",
            host: PERSON,
            domain: null,
            service_id: "haircut",
            offer_sha256: offer.sha256,
          },
        ],
      }),
      "sign contract",
    );
    const confirmed = must(
      await organizer.client.confirmMeeting(person, hold.body.hold_id, contract.compact, offer.sha256, {
        mandate: mandate.compact,
      }),
      "confirm",
    );
    // Pending the person's own acceptance: nothing final, and the time held all the same.
    expect(confirmed.body.booking.status).toBe("pending_host");

    const a2a = await a2aBook(start, "kai.lee@mail.example");
    expect(a2a, JSON.stringify(a2a)).toMatchObject({ http_status: 409 });
    expect(await marcusAt()).toBe(0);

    // Calling it off frees the time on every edge again.
    must(
      await organizer.client.cancel(
        person,
        confirmed.body.booking.booking_id,
        {},
        { mandate: mandate.compact },
      ),
      "cancel",
    );
  });
});
