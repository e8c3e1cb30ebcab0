/**
 * Sends a calendar host the link to answer a pending booking: a signed, expiring,
 * single-use link (links.ts) by mail or SMS through the host-message outbox. One message per
 * booking: the message key is the booking's, so a repeated notice is not sent twice.
 *
 * A flood of booking requests must not become a flood of messages to a person: at most
 * `limit.max` links go to one host's approver in a window (default 5 an hour, counted across
 * processes through the NoticeBudget); the next request of the window sends one digest instead,
 * saying that further requests until the window ends are waiting in the console unmessaged,
 * and the rest of the window sends nothing. A request nobody answers lapses at its deadline
 * and frees its time, as every pending booking does.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript } from "../../redis/script.js";
import { issueApprovalToken } from "./links.js";
import { describeGuest, type Guest } from "../bookings/guest.js";
import { readableSpan, readableTime } from "../../protocol/time/index.js";
import { type Clock, systemClock } from "../../protocol/clock.js";

export interface ApprovalNotice {
  readonly hostId: string;
  readonly hostName: string;
  readonly approver: { readonly email?: string; readonly phone?: string };
  /** What the link names: the booking's upstream id (its calendar event), see lookup.ts. */
  readonly bookingId: string;
  readonly serviceName: string;
  /** The booking's time, epoch ms (no end: open-ended). */
  readonly start: number;
  readonly end?: number;
  /** The host's IANA zone: every time in the message is on its clock, and named. */
  readonly timeZone: string;
  /** Who the booking is for, as the guest gave it (bookings/guest.ts); absent when not given. */
  readonly guest?: Guest;
  readonly partySize?: number;
  /** The approval deadline (epoch ms); the link expires with it. */
  readonly answerBy: number;
  /** SchCP §5.12: a meeting the host's person accepts as a member (the link's page asks them to sign). */
  readonly member?: true;
}

/** A message to a host, as the core hands it to the host-message outbox (src/jobs/outbox). */
export interface OutgoingMessage {
  /** Who the message is for: the host's address and/or number from its configuration. */
  readonly to: { readonly email?: string; readonly phone?: string };
  readonly subject: string;
  /** Plain text, complete on its own (an SMS gets this). */
  readonly text: string;
  /** For logs and de-duplication: the same key is delivered once. */
  readonly key: string;
  readonly hostId: string;
}

export interface ApprovalNotifierDeps {
  readonly secret: Uint8Array;
  /** The gateway's public origin (PUBLIC_ORIGIN), e.g. "https://gw.example". */
  readonly origin: string;
  readonly send: (message: OutgoingMessage) => void;
  /** Counts the messages per host and window; none: every notice is sent. */
  readonly budget?: NoticeBudget;
  /** Default DEFAULT_NOTICE_LIMIT. */
  readonly limit?: NoticeLimit;
  /** The windows are the clock's (default the system clock). */
  readonly clock?: Clock;
}

interface NoticeLimit {
  /** Links sent one by one per host and window. */
  readonly max: number;
  readonly windowMs: number;
}

const DEFAULT_NOTICE_LIMIT: NoticeLimit = { max: 5, windowMs: 3_600_000 };

/** Counts one notice of a host in the window starting at `windowStart`; answers the count so far. Atomic. */
export interface NoticeBudget {
  count(hostId: string, windowStart: number, windowMs: number): Promise<number>;
}

export class MemoryNoticeBudget implements NoticeBudget {
  readonly #counts = new Map<string, { readonly windowStart: number; n: number }>();
  count(hostId: string, windowStart: number): Promise<number> {
    const c = this.#counts.get(hostId);
    if (c === undefined || c.windowStart !== windowStart) {
      this.#counts.set(hostId, { windowStart, n: 1 });
      return Promise.resolve(1);
    }
    return Promise.resolve(++c.n);
  }
}

// KEYS[1] the window's counter. ARGV: window length (ms). Returns the count.
const COUNT = redisScript(
  "approval-notice-count",
  `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`,
);

/** The budget in Redis, shared by every process; one key per host and window, in the host's slot. */
export class RedisNoticeBudget implements NoticeBudget {
  readonly #keys: RedisKeyspace;
  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }
  async count(hostId: string, windowStart: number, windowMs: number): Promise<number> {
    const key = this.#keys.hostKey(hostId, "approval-notices", String(windowStart));
    return Number(await evalScript(this.redis, COUNT, [key], [windowMs + 60_000]));
  }
}

function approvalLink(deps: Pick<ApprovalNotifierDeps, "secret" | "origin">, n: ApprovalNotice): string {
  const token = issueApprovalToken(deps.secret, {
    hostId: n.hostId,
    bookingId: n.bookingId,
    expiresAt: n.answerBy,
  });
  return `${deps.origin.replace(/\/+$/, "")}/approve/${token}`;
}

export type NoticeOutcome = "sent" | "digest" | "folded";

/**
 * The link's message: who booked what and when, and until when the link works, every time on
 * the host's clock with its zone named (a message is read wherever the approver is).
 */
export function approvalMessage(n: ApprovalNotice, link: string): OutgoingMessage {
  const when = readableSpan(n.start, n.end, n.timeZone);
  const who = n.guest === undefined ? undefined : describeGuest(n.guest);
  if (n.member === true)
    return {
      to: n.approver,
      subject: `Meeting invitation: ${n.serviceName}, ${when}`,
      text:
        `${n.hostName}: you are invited to a meeting, waiting for your answer.\n` +
        `${n.serviceName}, ${when}.\n` +
        `Read who arranged it and who comes along, then accept (your key signs it) or decline: ${link}\n` +
        `Answer by ${readableTime(n.answerBy, n.timeZone)}; after that the booking lapses and the time is freed.`,
      key: `approval:${n.hostId}:${n.bookingId}`,
      hostId: n.hostId,
    };
  return {
    to: n.approver,
    subject: `Booking request${n.guest?.name !== undefined ? ` from ${n.guest.name}` : ""}: ${n.serviceName}, ${when}`,
    text:
      `${n.hostName}: a booking is waiting for your answer.\n` +
      `${n.serviceName}, ${when}.\n` +
      `Guest: ${who ?? "no name or contact was given"}.\n` +
      (n.partySize !== undefined && n.partySize > 1 ? `Party of ${n.partySize}.\n` : "") +
      `Approve or decline: ${link}\n` +
      `Answer by ${readableTime(n.answerBy, n.timeZone)}; after that the booking lapses and the time is freed.`,
    key: `approval:${n.hostId}:${n.bookingId}`,
    hostId: n.hostId,
  };
}

/**
 * Sends the link, or the window's digest, or nothing (see the top of this file); answers the
 * link and what was sent (tests, logs).
 */
export async function notifyApprover(
  deps: ApprovalNotifierDeps,
  n: ApprovalNotice,
): Promise<{ readonly link: string; readonly outcome: NoticeOutcome }> {
  const link = approvalLink(deps, n);
  const limit = deps.limit ?? DEFAULT_NOTICE_LIMIT;
  const now = (deps.clock ?? systemClock).now();
  const windowStart = now - (now % limit.windowMs);
  // A budget that cannot count (Redis down) lets the link through: a real request's approver
  // must hear of it, and a store that is down takes no bookings to flood with.
  const count =
    deps.budget === undefined
      ? 1
      : await deps.budget.count(n.hostId, windowStart, limit.windowMs).catch(() => 1);
  if (count <= limit.max) {
    deps.send(approvalMessage(n, link));
    return { link, outcome: "sent" };
  }
  if (count > limit.max + 1) return { link, outcome: "folded" };
  const minutes = Math.round(limit.windowMs / 60_000);
  deps.send({
    to: n.approver,
    subject: `More booking requests are waiting: ${n.hostName}`,
    text:
      `${n.hostName}: more booking requests arrived than are sent to you one by one ` +
      `(${limit.max} every ${minutes} minutes).\n` +
      `Requests arriving in the next ${Math.max(1, Math.round((windowStart + limit.windowMs - now) / 60_000))} minutes ` +
      `are not messaged separately: the console lists every booking waiting for your answer: ` +
      `${deps.origin.replace(/\/+$/, "")}/console\n` +
      `A request you do not answer lapses at its deadline and frees its time.`,
    key: `approval-digest:${n.hostId}:${windowStart}`,
    hostId: n.hostId,
  });
  return { link, outcome: "digest" };
}
