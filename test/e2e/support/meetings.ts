/**
 * A gateway of people's calendars for the SchCP §5.12 end-to-end tests (test/e2e/meetings.test.ts,
 * meeting-revisions.test.ts), over real HTTP with the store on Redis: each person a host of kind
 * "person" on a local calendar directory, with an agent and a key app of their own; a café that
 * takes part in meetings and a shop that does not (calendar businesses); any platform hosts the
 * test adds. Noor's agent (the first person's) organizes: `arrange` holds the same hour at every
 * calendar, signs the contract with the organizer's key app and confirms each hold with it.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { KeyApp, SchcpClient, createAgentKey, verifyHoldOffer } from "../../../src/agent/index.js";
import type { DiscoveredHost, IssuedMandate } from "../../../src/agent/index.js";
import type { BookingResponse } from "../../../src/protocol/schcp/types.js";
import { openRedis } from "../../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";
import { HOUR_MS, must, operator, type E2eAgent } from "./agents.js";
import { startGateway, type E2eGateway } from "./gateway.js";
import { CALLBACK_ORIGIN, startWebhookSink, type WebhookSink } from "./webhooks.js";

export const TZ = "America/Toronto";
export const PLACE = { name: "Trinity Bellwoods Park", locality: "Toronto" };

export interface Held {
  readonly hostId: string;
  readonly holdId: string;
  readonly offerSha256: string;
}

export interface Meeting {
  readonly held: readonly Held[];
  readonly contract: string;
  readonly sha256: string;
  readonly mandate: IssuedMandate;
  readonly bookings: Record<string, BookingResponse>;
  readonly statuses: Record<string, number>;
}

export interface MeetingWorldOptions<P extends string> {
  /** The uniquePrefix and temp-dir name. */
  readonly name: string;
  /** The people, the organizer first. */
  readonly people: readonly P[];
  /** Extra policies of each person's calendar (e.g. §7.8 contacts-only). */
  readonly personPolicies?: (p: P, agents: Readonly<Record<P, E2eAgent>>) => Record<string, unknown>;
  /** Platform hosts (their config as a config file holds it) and the service each is booked for. */
  readonly platforms?: Readonly<
    Record<string, { readonly config: Record<string, unknown>; readonly service: string }>
  >;
}

export class MeetingWorld<P extends string> {
  readonly agents = {} as Record<P, E2eAgent>;
  readonly hosts = {} as Record<string, DiscoveredHost>;
  readonly clock = { now: (): number => (this.#gw === undefined ? Date.now() : this.#gw.clock.now()) };
  #gw: E2eGateway | undefined;
  #sink: WebhookSink | undefined;
  #redis: TestRedis | undefined;
  #prefix = "";
  #dir = "";

  private constructor(private readonly opts: MeetingWorldOptions<P>) {}

  get gw(): E2eGateway {
    if (this.#gw === undefined) throw new Error("the meeting gateway has not started");
    return this.#gw;
  }

  get sink(): WebhookSink {
    if (this.#sink === undefined) throw new Error("the meeting gateway has not started");
    return this.#sink;
  }

  get organizer(): E2eAgent {
    return this.agents[this.opts.people[0]!];
  }

  static async start<P extends string>(opts: MeetingWorldOptions<P>): Promise<MeetingWorld<P>> {
    const w = new MeetingWorld(opts);
    w.#redis = await startTestRedis();
    w.#prefix = uniquePrefix(opts.name);
    w.#sink = await startWebhookSink();
    w.#dir = mkdtempSync(join(tmpdir(), `e2e-${opts.name}-`));
    for (const p of opts.people) {
      const key = createAgentKey();
      w.agents[p] = {
        key,
        client: new SchcpClient({ agentKey: key, clock: w.clock }),
        keyApp: new KeyApp({ principalKey: createAgentKey(), clock: w.clock }),
      };
    }
    const person = (p: P) =>
      w.#calendarHost(p, {
        kind: "person",
        owner: w.agents[p].keyApp.principal,
        services: [{ service_id: "coffee", location: "elsewhere" }],
        ...(opts.personPolicies !== undefined && { policies: opts.personPolicies(p, w.agents) }),
      });
    const business = (id: string, meetings: boolean) =>
      w.#calendarHost(id, {
        kind: "business",
        policies: { confirmation: "instant", ...(meetings && { meetings: true }) },
      });
    const platforms = Object.values(opts.platforms ?? {}).map((x) => x.config);
    w.#gw = await startGateway({
      config: {
        hosts: [...opts.people.map(person), business("cafe", true), business("shop", false), ...platforms],
      },
      redisUrl: w.#redis.url,
      redisKeyPrefix: w.#prefix,
      runtime: { webhookFetch: w.#sink.transport, workers: { approvalsMs: 3_600_000 } },
    });
    for (const id of [...opts.people, "cafe", "shop", ...Object.keys(opts.platforms ?? {})]) {
      if (!w.isPlatform(id)) expect(await w.gw.runtime.syncCalendarNow(id)).toBe(true);
      w.hosts[id] = must(
        await w.organizer.client.discoverHost(`${w.gw.origin}/hosts/${id}/scheduling.json`),
        `discover ${id}`,
      );
    }
    return w;
  }

  async close(): Promise<void> {
    await this.#gw?.close();
    await this.#sink?.close();
    if (this.#redis !== undefined) {
      const admin = openRedis(this.#redis.url);
      await dropPrefix(admin, this.#prefix);
      await dropPrefix(admin, `{${this.#prefix}`);
      await admin.quit();
      await this.#redis.stop();
    }
    if (this.#dir !== "") rmSync(this.#dir, { recursive: true, force: true });
  }

  #calendarHost(id: string, extra: Record<string, unknown>): Record<string, unknown> {
    const path = join(this.#dir, id);
    mkdirSync(path);
    return {
      id,
      name: id,
      timezone: TZ,
      connector: { type: "ics-dir", settings: { path } },
      calendar: {
        capacity: "me",
        hours: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: "08:00", close: "20:00" })),
        services: [{ id: "coffee", name: "Coffee", duration: "PT1H" }],
        granularity: "PT1H",
        approver: { email: `${id}@example.com` },
      },
      ...extra,
    };
  }

  isPlatform(cal: string): boolean {
    return this.opts.platforms?.[cal] !== undefined;
  }

  isBusiness(cal: string): boolean {
    return cal === "cafe" || cal === "shop" || this.isPlatform(cal);
  }

  serviceOf(cal: string): string {
    return this.opts.platforms?.[cal]?.service ?? "coffee";
  }

  /** A start `days` ahead at `hour`:00 in Toronto (each test its own day, so holds never collide). */
  startIn(days: number, hour = 10): { start: string; end: string } {
    const d = new Date(this.clock.now() + days * 24 * HOUR_MS);
    const ymd = d.toISOString().slice(0, 10);
    const offset = new Intl.DateTimeFormat("en-CA", { timeZone: TZ, timeZoneName: "longOffset" })
      .formatToParts(new Date(`${ymd}T15:00:00Z`))
      .find((p) => p.type === "timeZoneName")!
      .value.replace("GMT", "");
    const hh = (h: number) => String(h).padStart(2, "0");
    return { start: `${ymd}T${hh(hour)}:00:00${offset}`, end: `${ymd}T${hh(hour + 1)}:00:00${offset}` };
  }

  /** The organizer's hold at one calendar, its offer verified. */
  async holdAt(cal: string, start: string, mandate: IssuedMandate): Promise<Held> {
    const host = this.hosts[cal]!;
    const hold = must(
      await this.organizer.client.hold(
        host,
        {
          service_id: this.serviceOf(cal),
          start,
          ...(!this.isBusiness(cal) && { place: PLACE }),
          callback_url: `${CALLBACK_ORIGIN}/hooks/noor`,
        },
        { mandate: mandate.compact },
      ),
      `hold at ${cal}`,
    );
    const held = must(await verifyHoldOffer(hold.body, host), "verify hold");
    return { hostId: cal, holdId: hold.body.hold_id, offerSha256: held.offer.sha256 };
  }

  /** Holds `day`'s hour at every calendar, signs the contract, confirms each hold with it. */
  async arrange(
    day: number,
    calendars: readonly string[],
    opts: { expInSec?: number } = {},
  ): Promise<Meeting> {
    const { start, end } = this.startIn(day);
    const organizer = this.organizer;
    const mandate = await organizer.keyApp.issueMandate({
      agent: organizer.key,
      audience: [...calendars],
      scope: ["hold", "book", "cancel", "reschedule"],
    });
    const held: Held[] = [];
    for (const cal of calendars) held.push(await this.holdAt(cal, start, mandate));
    const signed = must(
      await organizer.keyApp.signMeetingContract({
        exp: Math.floor(this.clock.now() / 1000) + (opts.expInSec ?? 6 * 3600),
        meeting_id: `mtg_${day}`,
        revision: 1,
        title: "Coffee",
        tz: TZ,
        start,
        end,
        place: PLACE,
        members: held.map((h) => {
          const business = this.isBusiness(h.hostId);
          return {
            principal: business ? `urn:schcp:host:${h.hostId}` : this.agents[h.hostId as P].keyApp.principal,
            name: h.hostId,
            host: h.hostId,
            domain: null,
            service_id: this.serviceOf(h.hostId),
            offer_sha256: h.offerSha256,
            ...(business && { business: true as const }),
          };
        }),
      }),
      "sign contract",
    );
    const bookings: Record<string, BookingResponse> = {};
    const statuses: Record<string, number> = {};
    for (const h of held) {
      const reply = must(
        await organizer.client.confirmMeeting(
          this.hosts[h.hostId]!,
          h.holdId,
          signed.compact,
          h.offerSha256,
          {
            mandate: mandate.compact,
          },
        ),
        `confirm at ${h.hostId}`,
      );
      bookings[h.hostId] = reply.body;
      statuses[h.hostId] = reply.status;
    }
    return { held, contract: signed.compact, sha256: signed.sha256, mandate, bookings, statuses };
  }

  /** The member's yes on their own calendar (the operator API, as their calendar's app would). */
  async accept(m: Meeting, who: P): Promise<{ status: number; json: unknown }> {
    const id = m.bookings[who]!.booking.booking_id;
    return operator(this.gw, who, `/bookings/${id}/meeting-accept`, {
      acceptance: await this.acceptanceOf(m, who),
    });
  }

  async acceptanceOf(m: Meeting, who: P): Promise<string> {
    return must(await this.agents[who].keyApp.signAcceptance(m.contract), `${who} signs`).compact;
  }

  commit(m: Meeting, cal: string, acceptances: string[], sha = m.sha256) {
    return this.organizer.client.commitMeeting(
      this.hosts[cal]!,
      m.bookings[cal]!.booking.booking_id,
      { contract_sha256: sha, acceptances },
      { mandate: m.mandate.compact },
    );
  }
}
