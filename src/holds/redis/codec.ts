/**
 * Turns what the Lua scripts return (a hold or booking HASH as a flat [field, value, …]
 * list, see lua/lib.lua) into the port's records. Anything malformed is a store fault,
 * reported as HoldStoreUnavailableError by the caller, never a half-read record.
 */
import type { Allocation, BookingRecord, HoldOwner, HoldRecord, HoldState } from "../port.js";

export type Fields = Readonly<Record<string, string>>;

export class MalformedReplyError extends Error {
  override readonly name = "MalformedReplyError";
}

export function fieldsOf(reply: unknown): Fields {
  if (!Array.isArray(reply)) throw new MalformedReplyError("expected a field list");
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) {
    fields[text(reply[i])] = text(reply[i + 1]);
  }
  return fields;
}

export function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (typeof value === "number") return String(value);
  throw new MalformedReplyError(`expected a string, got ${typeof value}`);
}

export function int(value: unknown): number {
  const n = typeof value === "number" ? value : Number(text(value));
  if (!Number.isSafeInteger(n)) throw new MalformedReplyError(`expected an integer, got ${String(value)}`);
  return n;
}

const HOLD_STATES: ReadonlySet<string> = new Set(["held", "confirming", "booked", "released", "expired"]);

/** The hold as it stands at `now`: a held hold past its expiry reads as expired. */
export function holdFromFields(hostId: string, holdId: string, f: Fields, now: number): HoldRecord {
  const stored = need(f, "s");
  if (!HOLD_STATES.has(stored)) throw new MalformedReplyError(`unknown hold state ${stored}`);
  let state = stored as HoldState;
  const expiresAt = int(need(f, "ex"));
  let endedAt = f["ed"] === undefined ? undefined : int(f["ed"]);
  if (state === "held" && expiresAt <= now) {
    state = "expired";
    endedAt = expiresAt;
  }
  const confirm =
    state === "confirming" && f["fe"] !== undefined && f["lu"] !== undefined
      ? { fence: int(f["fe"]), leaseUntil: int(f["lu"]) }
      : undefined;
  return {
    hostId,
    holdId,
    serviceId: need(f, "svc"),
    interval: { start: int(need(f, "st")), end: int(need(f, "en")) },
    state,
    createdAt: int(need(f, "ca")),
    expiresAt,
    ttlMs: int(need(f, "ttl")),
    owner: ownerOf(need(f, "own")),
    allocations: allocationsOf(need(f, "al")),
    payload: f["pl"] ?? "",
    ...(confirm === undefined ? {} : { confirm }),
    ...(f["bk"] === undefined ? {} : { bookingId: f["bk"] }),
    ...(endedAt === undefined ? {} : { endedAt }),
  };
}

export function bookingFromFields(hostId: string, bookingId: string, f: Fields): BookingRecord {
  const state = need(f, "s");
  if (state !== "active" && state !== "released")
    throw new MalformedReplyError(`unknown booking state ${state}`);
  const attendance = f["att"];
  if (attendance !== undefined && attendance !== "completed" && attendance !== "no_show") {
    throw new MalformedReplyError(`unknown attendance ${attendance}`);
  }
  return {
    hostId,
    bookingId,
    holdId: need(f, "ho"),
    serviceId: need(f, "svc"),
    interval: { start: int(need(f, "st")), end: int(need(f, "en")) },
    owner: ownerOf(need(f, "own")),
    allocations: allocationsOf(need(f, "al")),
    state,
    ...(attendance === undefined ? {} : { attendance }),
    payload: f["pl"] ?? "",
  };
}

function need(f: Fields, field: string): string {
  const value = f[field];
  if (value === undefined) throw new MalformedReplyError(`record lacks field ${field}`);
  return value;
}

function ownerOf(json: string): HoldOwner {
  return JSON.parse(json) as HoldOwner;
}

/** The owner with only the port's fields: what is stored, and what getHold returns. */
export function storedOwner(owner: HoldOwner): HoldOwner {
  const mandates = owner.mandates.map((m) => ({
    rootIss: m.rootIss,
    jti: m.jti,
    maxBookings: m.maxBookings,
  }));
  return {
    agentKey: owner.agentKey,
    principal: owner.principal,
    ...(owner.attester !== undefined && { attester: owner.attester }),
    mandates,
    ...(owner.offeredByHost === true && { offeredByHost: true as const }),
  };
}

/** Stored as [{resourceId, units, type}]; Lua's cjson writes an empty list as {}. */
export function allocationsOf(json: string): Allocation[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) return [];
  return parsed.map((entry: unknown) => {
    const a = entry as { resourceId?: unknown; units?: unknown };
    if (typeof a.resourceId !== "string" || typeof a.units !== "number") {
      throw new MalformedReplyError("malformed allocation");
    }
    return { resourceId: a.resourceId, units: a.units };
  });
}
