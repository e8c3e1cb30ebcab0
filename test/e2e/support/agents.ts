/**
 * Agents for the end-to-end suite, built only from the agent SDK (src/agent/): each has its
 * own agent key, its own principal in a key app, and a client on the gateway's clock.
 */
import {
  KeyApp,
  SchcpClient,
  createAgentKey,
  describeAgentError,
  verifyBookingReceipt,
  verifyHoldOffer,
} from "../../../src/agent/index.js";
import type {
  AgentError,
  AgentKey,
  DiscoveredHost,
  IssuedMandate,
  MandateRequest,
  Reply,
  VerifiedBooking,
  VerifiedHold,
} from "../../../src/agent/index.js";
import type { Result } from "../../../src/protocol/result.js";
import type { BookingResponse, Slot } from "../../../src/protocol/schcp/types.js";
import { formatInstant } from "../../../src/protocol/time/index.js";
import type { E2eGateway } from "./gateway.js";

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export interface E2eAgent {
  readonly key: AgentKey;
  readonly client: SchcpClient;
  readonly keyApp: KeyApp;
}

export function newAgent(gw: Pick<E2eGateway, "clock">): E2eAgent {
  const key = createAgentKey();
  return {
    key,
    client: new SchcpClient({ agentKey: key, clock: gw.clock }),
    keyApp: new KeyApp({ principalKey: createAgentKey(), clock: gw.clock }),
  };
}

/** The value of a Result, or a failed test that says what the SDK reported. */
export function must<T>(r: Result<T, AgentError>, what: string): T {
  if (!r.ok) throw new Error(`${what}: ${describeAgentError(r.error)}`);
  return r.value;
}

/** The refusal a call ended in (fails the test if it succeeded or broke otherwise). */
export function refusalOf(
  r: Result<unknown, AgentError>,
): NonNullable<AgentError["refusal"]> & { status: number } {
  if (r.ok) throw new Error("expected a refusal, the call succeeded");
  if (r.error.code !== "refusal" || r.error.refusal === undefined) {
    throw new Error(`expected a refusal, got ${describeAgentError(r.error)}`);
  }
  return { ...r.error.refusal, status: r.error.status ?? 0 };
}

export async function discover(agent: E2eAgent, gw: E2eGateway, hostId: string): Promise<DiscoveredHost> {
  return must(
    await agent.client.discoverHost(`${gw.origin}/hosts/${hostId}/scheduling.json`),
    `discover ${hostId}`,
  );
}

/** An open mandate for one host: every scope an agent needs, unless the test narrows it. */
export function openMandate(
  agent: E2eAgent,
  hostId: string,
  over: Partial<MandateRequest> = {},
): Promise<IssuedMandate> {
  return agent.keyApp.issueMandate({
    agent: agent.key,
    audience: hostId,
    scope: ["hold", "book", "cancel", "reschedule"],
    ...over,
  });
}

/** Free slots of a service, from `fromDays` to `toDays` ahead (in the host's zone). */
export async function freeSlots(
  agent: E2eAgent,
  gw: E2eGateway,
  host: DiscoveredHost,
  serviceId: string,
  opts: { fromDays?: number; toDays?: number; limit?: number; mandate?: string } = {},
): Promise<Slot[]> {
  const now = gw.clock.now();
  const tz = host.document.host.timezone;
  const r = await agent.client.availability(
    host,
    {
      service_id: serviceId,
      window: {
        start: formatInstant(now + (opts.fromDays ?? 2) * DAY_MS, tz),
        end: formatInstant(now + (opts.toDays ?? (opts.fromDays ?? 2) + 7) * DAY_MS, tz),
      },
      limit: opts.limit ?? 50,
    },
    opts.mandate === undefined ? {} : { mandate: opts.mandate },
  );
  return must(r, `availability ${serviceId}`).body.slots;
}

export interface Booked {
  readonly mandate: IssuedMandate;
  readonly held: VerifiedHold;
  readonly reply: Reply<BookingResponse>;
  readonly booking: VerifiedBooking;
}

/** Hold a slot and confirm it under an open mandate, verifying the offer and the receipt. */
export async function holdAndBook(
  agent: E2eAgent,
  host: DiscoveredHost,
  serviceId: string,
  start: string,
  mandate?: IssuedMandate,
): Promise<Booked> {
  const m = mandate ?? (await openMandate(agent, host.hostId));
  const hold = must(
    await agent.client.hold(host, { service_id: serviceId, start }, { mandate: m.compact }),
    "hold",
  );
  const held = must(await verifyHoldOffer(hold.body, host), "verify hold offer");
  const reply = must(
    await agent.client.confirm(
      host,
      hold.body.hold_id,
      { offer_sha256: held.offer.sha256 },
      { mandate: m.compact },
    ),
    "confirm",
  );
  const booking = must(
    await verifyBookingReceipt(reply.body, host, {
      offerSha256: held.offer.sha256,
      mandateJti: m.jti,
      retention: held.offer.claims.retention,
    }),
    "verify receipt",
  );
  return { mandate: m, held, reply, booking };
}

/** The operator API (the host's side), with the operator credential. */
export async function operator(
  gw: E2eGateway,
  hostId: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${gw.origin}/operator/v0/${hostId}${path}`, {
    method: body === undefined && path === "/bookings" ? "GET" : "POST",
    headers: { ...gw.operatorAuth, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

export interface HeldBy {
  readonly agent: E2eAgent;
  readonly host: DiscoveredHost;
  readonly holdId: string;
  readonly mandate: string;
}

/**
 * Holds `start` with fresh agents until the host says SLOT_UNAVAILABLE, so the test knows the
 * time is full. Returns the holds made (release them with releaseAll: the new-guest pool is
 * finite, §7.2).
 */
export async function fillUntilRefused(
  gw: E2eGateway,
  host: DiscoveredHost,
  serviceId: string,
  start: string,
  max = 6,
): Promise<HeldBy[]> {
  const held: HeldBy[] = [];
  for (let i = 0; i < max; i++) {
    const agent = newAgent(gw);
    const m = await openMandate(agent, host.hostId);
    const r = await agent.client.hold(host, { service_id: serviceId, start }, { mandate: m.compact });
    if (!r.ok) {
      const refusal = refusalOf(r);
      if (refusal.code !== "SLOT_UNAVAILABLE")
        throw new Error(`filling ${start}: ${refusal.code}/${refusal.reason}`);
      return held;
    }
    held.push({ agent, host, holdId: r.value.body.hold_id, mandate: m.compact });
  }
  throw new Error(`${start} still had room after ${max} holds`);
}

export async function releaseAll(holds: readonly HeldBy[]): Promise<void> {
  for (const h of holds)
    must(await h.agent.client.releaseHold(h.host, h.holdId, { mandate: h.mandate }), "release");
}
