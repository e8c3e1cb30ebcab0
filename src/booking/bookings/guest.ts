/**
 * The guest a booking is for, as the host's own record keeps it: the name and contact the
 * guest (or their agent) gave at confirm (SchCP §5.3 `contact`, the A2A `client`, the OSBP
 * `customer`), which the host needs to know who is coming (the approval page, the console, the
 * operator API, the approver's messages).
 *
 * The host states how long it keeps a booking's records after the booking ends or is
 * cancelled (SchCP §2.1 policies.retention, "P0D" for not past its end), and every booking
 * stands on the retention its contract states (§5.2). The record shows its guest that long
 * and no longer: past the contract's retention the guest reads as not kept.
 */
import { parseRetention } from "../../protocol/time/index.js";
import type { UpstreamCustomer } from "../upstream.js";
import type { BookingState } from "./state.js";

/** Who the booking is for: the customer as the guest gave it (any part may be missing). */
export type Guest = UpstreamCustomer;

/** The guest's parts worth keeping: trimmed, the empty ones dropped; undefined when none is left. */
export function guestOf(given: UpstreamCustomer | undefined): Guest | undefined {
  if (given === undefined) return undefined;
  const part = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());
  const name = part(given.name);
  const email = part(given.email);
  const phone = part(given.phone);
  if (name === undefined && email === undefined && phone === undefined) return undefined;
  return {
    ...(name !== undefined && { name }),
    ...(email !== undefined && { email }),
    ...(phone !== undefined && { phone }),
  };
}

/** The statuses a booking ends in before its time: it ended when it last changed. */
const ENDED_EARLY: ReadonlySet<string> = new Set(["cancelled", "declined", "expired"]);

type GuestFacts = Pick<
  BookingState,
  "guest" | "status" | "start" | "end" | "openEnd" | "updatedAt" | "contract"
>;

/** When the booking ended, epoch ms; undefined while an open-ended booking runs on. */
function endedAt(s: GuestFacts): number | undefined {
  const over = s.end ?? (s.openEnd === true ? undefined : s.start);
  if (ENDED_EARLY.has(s.status)) return Math.min(s.updatedAt, over ?? s.updatedAt);
  return over;
}

/** The guest as the record may show it at `now`: within the contract's retention, else undefined. */
export function guestOnRecord(s: GuestFacts, now: number): Guest | undefined {
  if (s.guest === undefined) return undefined;
  const ended = endedAt(s);
  if (ended === undefined) return s.guest;
  const kept = parseRetention(s.contract.retention, "/retention");
  // A retention the record cannot read keeps nothing past the end ("P0D").
  return now <= ended + (kept.ok ? kept.value : 0) ? s.guest : undefined;
}

/** "ana@mail.com, +56 9 1111 2222": the guest's contact as given, e-mail first; undefined when none. */
export function contactOf(g: Guest): string | undefined {
  const parts = [g.email, g.phone].filter((x): x is string => x !== undefined);
  return parts.length === 0 ? undefined : parts.join(", ");
}

/**
 * "Ana Ruiz (ana@mail.com, +56 9 1111 2222)": the guest in one line, as the approver's messages
 * and the console show it; just the name or just the contact when only that was given.
 */
export function describeGuest(g: Guest): string {
  const contact = contactOf(g);
  if (g.name === undefined) return contact ?? "";
  return contact === undefined ? g.name : `${g.name} (${contact})`;
}
