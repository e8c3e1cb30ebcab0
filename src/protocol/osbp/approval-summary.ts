/**
 * The user-facing approval summary of OSBP "booking.create": the resolved service, the
 * merchant-local date and time with its zone, provider and schedule names when known, the
 * price, payment prose (never enum labels), surfaced cancellation and no-show fees, and the
 * merchant-visible customer name. English prose, as all v0.1.0 server text is.
 *
 * Merchant-supplied strings are untrusted display data (OSBP "Known Limitations"): they are
 * flattened to one line and cannot spell the machine retry instruction.
 */
import { formatDecimalAmount, type OsbpMoney } from "../money/index.js";
import { isoWeekday, parseWallClock, type WallClock } from "../time/index.js";
import type { Customer, PaymentRequirement, Policy, Service, Slot } from "./types.js";

export interface ApprovalFacts {
  readonly service_name: string;
  readonly organization_name?: string;
  /** Merchant-local wall-clock, as on the slot. */
  readonly starts_at_local: string;
  readonly ends_at_local?: string;
  /** IANA zone of the schedule. */
  readonly timezone?: string;
  readonly schedule_name?: string;
  readonly provider_name?: string;
  readonly price?: OsbpMoney;
  readonly payment_requirement: PaymentRequirement;
  /** The deposit or prepayment amount, when one is required. */
  readonly payment_amount?: OsbpMoney;
  readonly cancellation_enabled?: boolean;
  readonly cancellation_note?: string;
  readonly cancellation_fee?: OsbpMoney;
  readonly no_show_fee?: OsbpMoney;
  /** The name the platform will receive, exactly. */
  readonly customer_name?: string;
  /**
   * The business (or its booking system) accepts each booking itself: the booking is pending
   * until it does, and the user must hear so before approving (a pending booking is not booked).
   */
  readonly awaits_merchant?: boolean;
  /**
   * The calendar is a person's own, not a business's (SchCP §7.7, behind this adapter): the
   * summary names them, since "the merchant" would tell the user something false.
   */
  readonly host_person?: string;
}

/**
 * Facts from the resolved slot, service and policy. The customer name is display_name, else
 * given and family name as supplied (OSBP: never invent missing name parts). An adapter that
 * sends a different merchant-visible name should override customer_name.
 */
export function approvalFactsFrom(args: {
  slot: Slot;
  service: Service;
  policy: Policy;
  customer?: Customer;
}): ApprovalFacts {
  const { slot, service, policy, customer } = args;
  const parts = [customer?.given_name, customer?.family_name].filter((p): p is string => !!p?.trim());
  const name = customer?.display_name?.trim() ? customer.display_name : parts.join(" ") || undefined;
  const payment =
    policy.payment_requirement === "full_prepay"
      ? (policy.deposit ?? slot.price ?? service.price)
      : policy.deposit;
  return {
    service_name: service.name,
    organization_name: policy.organization?.name,
    starts_at_local: slot.starts_at_local,
    ends_at_local: slot.ends_at_local,
    timezone: slot.schedule_timezone ?? policy.organization?.timezone,
    schedule_name: slot.schedule_name,
    provider_name: slot.provider_name,
    price: slot.price ?? service.price,
    payment_requirement: policy.payment_requirement,
    payment_amount: policy.payment_requirement === "none" ? undefined : payment,
    cancellation_enabled: policy.cancellation_enabled,
    cancellation_note: policy.cancellation_note,
    cancellation_fee: policy.cancellation_fee,
    no_show_fee: policy.no_show_fee,
    customer_name: name,
  };
}

/** One line of display text that cannot carry the retry instruction's marker. */
function clean(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/approval\s*\.\s*token/giu, "approval token")
    .replace(/\s+/g, " ")
    .trim();
}

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

const hhmm = (w: WallClock): string =>
  `${String(w.hour).padStart(2, "0")}:${String(w.minute).padStart(2, "0")}` +
  (w.second === 0 ? "" : `:${String(w.second).padStart(2, "0")}`);
const longDate = (w: WallClock): string =>
  `${WEEKDAYS[isoWeekday(w) - 1] ?? ""}, ${MONTHS[w.month - 1] ?? ""} ${w.day}, ${w.year}`;

/** "Tuesday, May 5, 2026, 13:00–14:00"; the raw strings when they are not wall-clock values. */
function when(startText: string, endText: string | undefined): string {
  const start = parseWallClock(startText, "");
  if (!start.ok) return clean(startText);
  const end = endText === undefined ? undefined : parseWallClock(endText, "");
  const head = `${longDate(start.value)}, ${hhmm(start.value)}`;
  if (end === undefined || !end.ok) return head;
  const sameDay =
    end.value.year === start.value.year &&
    end.value.month === start.value.month &&
    end.value.day === start.value.day;
  return sameDay ? `${head}–${hhmm(end.value)}` : `${head} to ${longDate(end.value)}, ${hhmm(end.value)}`;
}

/**
 * "USD 95.00": the ISO code and the amount with the currency's minor-unit decimals, never a
 * locale format. Throws TypeError for an unknown currency (a programmer error: facts come from
 * validated money).
 */
export function moneyInWords(m: OsbpMoney): string {
  if (m.amount_minor !== undefined && (m.type ?? "fixed") === "fixed") {
    return `${m.currency} ${formatDecimalAmount(m.amount_minor, m.currency)}`;
  }
  if (m.type === "insurance_dependent") return `an amount that depends on insurance (${m.currency})`;
  if (m.type === "quote_required") return `an amount the merchant quotes separately (${m.currency})`;
  return `an amount not known in advance (${m.currency})`;
}

function paymentProse(requirement: PaymentRequirement, amount: OsbpMoney | undefined, who: string): string {
  const of = amount === undefined ? "" : ` of ${moneyInWords(amount)}`;
  switch (requirement) {
    case "none":
      return "No upfront payment or deposit is required to book.";
    case "deposit":
      return `${who} requires a deposit${of}; this booking does not collect it.`;
    case "full_prepay":
      return `${who} requires full prepayment${of}; this booking does not collect it.`;
    case "unknown":
      return "Whether an upfront payment is required is not known.";
  }
}

/** The approval summary: pure and deterministic for the same facts. */
export function buildApprovalSummary(facts: ApprovalFacts): string {
  let what = clean(facts.service_name);
  if (facts.organization_name) what += ` at ${clean(facts.organization_name)}`;
  let slot = `on ${when(facts.starts_at_local, facts.ends_at_local)}`;
  if (facts.timezone) slot += ` (${clean(facts.timezone)} time)`;
  if (facts.provider_name) slot += ` with ${clean(facts.provider_name)}`;
  if (facts.schedule_name) slot += ` at ${clean(facts.schedule_name)}`;

  const out = [`Please confirm this booking: ${what} ${slot}.`];
  out.push(facts.price === undefined ? "Price: not stated." : `Price: ${moneyInWords(facts.price)}.`);
  // Who is on the other side: the merchant, or the person whose own calendar this is.
  const who = facts.host_person === undefined ? "The merchant" : clean(facts.host_person);
  out.push(paymentProse(facts.payment_requirement, facts.payment_amount, who));
  if (facts.cancellation_enabled === false) out.push(`${who} does not offer cancellation for this booking.`);
  if (facts.cancellation_note) out.push(`Cancellation policy: ${sentence(clean(facts.cancellation_note))}`);
  if (facts.cancellation_fee)
    out.push(`A cancellation fee of ${moneyInWords(facts.cancellation_fee)} may apply.`);
  if (facts.no_show_fee) out.push(`A no-show fee of ${moneyInWords(facts.no_show_fee)} may apply.`);
  if (facts.customer_name) out.push(`${who} will see the customer name: ${clean(facts.customer_name)}.`);
  if (facts.awaits_merchant === true)
    out.push(
      `${who} accepts each booking ${facts.host_person === undefined ? "itself" : "in person"}: ` +
        "this request stays pending until they confirm it, and booking.status says when they do.",
    );
  return out.join(" ");
}
