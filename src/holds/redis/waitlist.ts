/**
 * RedisHoldStore's waitlist (SchCP §5.9): lua/wl-join.lua, lua/wl-status.lua and
 * lua/offer-freed.lua, every key under the host's hash tag, so the release and the offer are
 * one script (one transaction) on a server or a Cluster.
 */
import { err, ok, type Result } from "../../protocol/result.js";
import type { HoldRecord, HoldRefusalReason, MandateCount } from "../port.js";
import type {
  FreedOffer,
  FreedOutcome,
  WaitlistJoin,
  WaitlistJoinRefusal,
  WaitlistRecord,
  WaitlistStatus,
} from "../waitlist-port.js";
import {
  allocationsOf,
  bookingFromFields,
  type Fields,
  fieldsOf,
  holdFromFields,
  int,
  storedOwner,
  text,
} from "./codec.js";
import { decode, type StoreContext } from "./context.js";
import { unavailable } from "./unavailable.js";

function entryFromFields(hostId: string, entryId: string, f: Fields): WaitlistRecord {
  const need = (k: string): string => {
    const v = f[k];
    if (v === undefined) throw new Error(`waitlist entry ${entryId} has no ${k}`);
    return v;
  };
  return {
    hostId,
    entryId,
    serviceId: need("svc"),
    agentKey: need("ag"),
    principal: need("pr"),
    window: { start: Number(need("ws")), end: Number(need("we")) },
    createdAt: Number(need("ca")),
    seq: Number(need("sq")),
    status: need("s") as WaitlistStatus,
    until: Number(need("un")),
    mandates: JSON.parse(need("md")) as MandateCount[],
    ...(f["hd"] !== undefined && { holdId: f["hd"] }),
    payload: need("pl"),
  };
}

export async function joinWaitlist(
  ctx: StoreContext,
  join: WaitlistJoin,
): Promise<Result<WaitlistRecord, WaitlistJoinRefusal>> {
  const k = ctx.keys;
  const h = join.hostId;
  const keys = [
    k.waitlistEntry(h, join.entryId),
    k.waitlistPart(h, "wlq"),
    k.waitlistAgent(h, join.agentKey),
    k.waitlistPart(h, "wlseq"),
    ...join.mandates.map((m) => k.mandate(h, m.rootIss, m.jti)),
  ];
  const q = {
    id: join.entryId,
    svc: join.serviceId,
    ag: join.agentKey,
    pr: join.principal,
    ws: join.window.start,
    we: join.window.end,
    un: join.until,
    now: join.now,
    max: join.maxPerAgent,
    md: join.mandates.map((m) => m.maxBookings),
  };
  const mandates = join.mandates.map((m) => ({ rootIss: m.rootIss, jti: m.jti, maxBookings: m.maxBookings }));
  const reply = await ctx.list("wl-join", keys, [
    k.host(h),
    JSON.stringify(q),
    JSON.stringify(mandates),
    join.payload,
  ]);
  return decode("joinWaitlist", () => {
    if (text(reply[0]) !== "ok") {
      const reason = text(reply[1]) as WaitlistJoinRefusal["reason"];
      const limit = int(reply[2]);
      return err({ reason, ...(reason !== "entry_id_in_use" && { limit }) });
    }
    return ok({
      hostId: h,
      entryId: join.entryId,
      serviceId: join.serviceId,
      agentKey: join.agentKey,
      principal: join.principal,
      window: { start: join.window.start, end: join.window.end },
      createdAt: join.now,
      seq: int(reply[1]),
      status: "waiting",
      until: join.until,
      mandates,
      payload: join.payload,
    });
  });
}

export async function getWaitlistEntry(
  ctx: StoreContext,
  hostId: string,
  entryId: string,
): Promise<WaitlistRecord | undefined> {
  const f = await ctx.call("getWaitlistEntry", () =>
    ctx.redis.hgetall(ctx.keys.waitlistEntry(hostId, entryId)),
  );
  if (Object.keys(f).length === 0) return undefined;
  return decode("getWaitlistEntry", () => entryFromFields(hostId, entryId, f));
}

/** Entries of one line (waiting or offered), first first; entries gone meanwhile are skipped. */
export async function lineEntries(
  ctx: StoreContext,
  hostId: string,
  part: "wlq" | "wlo",
  limit: number,
): Promise<readonly WaitlistRecord[]> {
  if (limit <= 0) return [];
  const ids = await ctx.call("waitlist", () =>
    ctx.redis.zrange(ctx.keys.waitlistPart(hostId, part), "0", String(limit - 1)),
  );
  const entries = await Promise.all(ids.map((id) => getWaitlistEntry(ctx, hostId, id)));
  const want: WaitlistStatus = part === "wlq" ? "waiting" : "offered";
  return entries.filter((e): e is WaitlistRecord => e?.status === want);
}

export async function setWaitlistStatus(
  ctx: StoreContext,
  hostId: string,
  entryId: string,
  from: readonly WaitlistStatus[],
  to: WaitlistStatus,
): Promise<WaitlistRecord | undefined> {
  const reply = await ctx.list(
    "wl-status",
    [ctx.keys.waitlistEntry(hostId, entryId)],
    [ctx.keys.host(hostId), entryId, to, from.join(",")],
  );
  if (text(reply[0]) !== "ok") return undefined;
  return decode("setWaitlistStatus", () => entryFromFields(hostId, entryId, fieldsOf(reply[1])));
}

const list = <T>(json: string): T[] => {
  const v = JSON.parse(json) as unknown;
  return Array.isArray(v) ? (v as T[]) : []; // cjson writes an empty table as {}
};

export async function offerFreed(ctx: StoreContext, offer: FreedOffer): Promise<FreedOutcome> {
  const k = ctx.keys;
  const h = offer.hostId;
  const r = offer.release;
  const keys =
    r.kind === "offer"
      ? [k.hold(h, r.holdId), k.waitlistEntry(h, r.entryId)]
      : r.kind === "move"
        ? [k.booking(h, r.bookingId), k.hold(h, r.holdId)]
        : [k.booking(h, r.bookingId)];
  const args: string[] = [];
  const segments: Array<[number, number, string, 0 | 1]> = [];
  for (const c of offer.candidates) {
    const built = ctx.placeArgs.build(c.hold, ctx.settings.retentionMs);
    keys.push(k.waitlistEntry(h, c.entryId));
    segments.push([keys.length, built.keys.length, c.entryId, c.line === true ? 1 : 0]);
    keys.push(...built.keys);
    args.push(...built.args);
  }
  const header = {
    k: r.kind,
    bid: r.kind === "offer" ? "" : r.bookingId,
    hid: r.kind === "booking" ? "" : r.holdId,
    eid: r.kind === "offer" ? r.entryId : "",
    es: r.kind === "offer" ? r.entryStatus : "",
    now: offer.now,
    rt: ctx.settings.retentionMs,
    c: segments,
  };
  let reply: unknown[];
  try {
    reply = await ctx.list("offer-freed", keys, [JSON.stringify(header), k.host(h), ...args]);
  } catch (error) {
    throw unavailable("offerFreed", error);
  }
  return decode("offerFreed", () => {
    if (text(reply[0]) !== "ok") return { released: err({ reason: text(reply[1]) }), freed: [], passed: [] };
    const fields = fieldsOf(reply[2]);
    const released =
      r.kind === "offer"
        ? ok({ hold: holdFromFields(h, r.holdId, fields, offer.now) })
        : ok({ booking: bookingFromFields(h, r.bookingId, fields) });
    const freed = list<{ resourceId: string }>(text(reply[3])).map((a) => a.resourceId);
    const index = int(reply[5]);
    const passed = list<[string, string]>(text(reply[7])).map(([entryId, reason]) => ({
      entryId,
      reason: reason as HoldRefusalReason | "not_freed" | "not_waiting",
    }));
    const candidate = index > 0 ? offer.candidates[index - 1] : undefined;
    if (candidate === undefined) return { released, freed, passed };
    const q = candidate.hold;
    const hold: HoldRecord = {
      hostId: h,
      holdId: q.holdId,
      serviceId: q.serviceId,
      interval: { start: q.interval.start, end: q.interval.end },
      state: "held",
      createdAt: q.now,
      expiresAt: q.now + q.ttlMs,
      ttlMs: q.ttlMs,
      owner: storedOwner(q.owner),
      allocations: allocationsOf(text(reply[6])),
      payload: q.payload,
    };
    return { released, freed, offered: { entryId: candidate.entryId, hold }, passed };
  });
}
