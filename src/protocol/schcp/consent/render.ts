/**
 * Consent text: the deterministic rendering of an offer that a key app shows before the
 * person signs (SchCP §5.2 "Key apps SHOULD render…", §5.3 "The consent trust boundary").
 * It is generated from the offer's own claims only, and shows every term that commits the
 * person: the time, the place, any stated price, any reconfirmation (when it is due and
 * what silence does) and how long the host keeps the booking's records (§5.3 MUST).
 *
 * Rules (the reference example, §5.2, is reproduced exactly):
 *
 *   "Cleaning and check-up with Harbourview Dental (harbourviewdental.example), Thursday
 *   15 October 2026, 8:00–9:00 a.m. Pacific time, CAD 180.00, paid to Harbourview Dental
 *   directly. Harbourview Dental keeps my booking details for 1 year after the booking."
 *
 * 1. Terms sentence, in this order, parts joined by ", ":
 *    - a change offer (§5.7) starts "Change my booking to: ";
 *    - service.name, then "with <resource_name> at <host>" for a chosen resource (§5.2:
 *      "Haircut with Marcus at Fades on Queen"), otherwise "with <host>";
 *    - <host> is host.name (iss when host is absent) and, in parentheses, the identity the
 *      key app can vouch for: opts.discoveredDomain when it has one (never a different
 *      domain from the offer, §5.2); otherwise "(unverified)" (§5.3 MUST label it), or
 *      "(<iss>, unverified)" when the offer claims no domain either (§5.2: show iss);
 *    - the slot in words in host.tz (with no host: in the slot's own UTC offset, §5.2):
 *      "Thursday 15 October 2026, 8:00–9:00 a.m. Pacific time", see slot-words.ts; an
 *      open-ended slot (§4.2) reads "Saturday 17 October 2026 from 12:00 p.m. Eastern
 *      time, open-ended";
 *    - the place when given (§5.2): "at Trinity Bellwoods Park playground, Toronto" (its
 *      name, street, locality, region, postal code and country, those present, in order);
 *    - "for N people" when party_size > 1;
 *    - money only when the offer states a total: "CAD 180.00, paid to <name> directly"
 *      (the all-in TOTAL, code then canonical amount; §8 nothing is paid through SchCP).
 *      An offer with no price renders no money; an extension of an unpriced booking
 *      (total and lines, no price, §5.8) renders its total, because it is an amount the
 *      person agrees to pay.
 * 2. "<name> will answer by <date>, <time> <zone>." when approval_by is stated (§5.2).
 * 3. Reconfirmation (§5.10): "I must reconfirm 24 hours before the start; if I don't, the
 *    booking is released." (default "keep": "…, the booking stands.").
 * 4. Retention (§2.1, §5.2): "<name> keeps my booking details for 1 year after the
 *    booking." (P365D "1 year", P730D "2 years", P2W "2 weeks", P30D "30 days", P1D
 *    "1 day"; see length-words.ts), or for P0D "<name> does not keep my booking details
 *    after the booking."
 *
 * Deterministic: nothing reads the clock, the machine's locale or its TZ; Intl is pinned
 * to "en-US" with an explicit zone. It expects claims that passed verifyOffer (valid
 * zone, date-times, money, durations): anything else is a programmer error and throws.
 */
import { Temporal } from "temporal-polyfill";
import { formatDecimalAmount, parseSchcpMoney } from "../../money/index.js";
import { parseInstant, parseRetention, parseSchcpDuration } from "../../time/index.js";
import type { Result } from "../../result.js";
import type { OfferClaims, Place } from "../types.js";
import { leadTimeWords, retentionWords } from "./length-words.js";
import { instantWords, slotWords } from "./slot-words.js";

export interface ConsentOptions {
  /** The host domain the key app discovered and authorized (§2.2), if any. */
  discoveredDomain?: string | null;
}

export function renderConsentText(offer: OfferClaims, opts: ConsentOptions): string {
  const name = offer.host?.name ?? offer.iss;
  const sentences = [termsSentence(offer, opts, name)];
  if (offer.approval_by !== undefined) {
    sentences.push(`${name} will answer by ${instantWords(instant(offer.approval_by), zoneOf(offer))}.`);
  }
  if (offer.reconfirm !== undefined) {
    const lead = must(parseSchcpDuration(offer.reconfirm.before, "/reconfirm/before"));
    const when = lead === 0 ? "by the start" : `${leadTimeWords(lead)} before the start`;
    const silence = offer.reconfirm.default === "release" ? "the booking is released" : "the booking stands";
    sentences.push(`I must reconfirm ${when}; if I don't, ${silence}.`);
  }
  const retention = must(parseRetention(offer.retention, "/retention"));
  sentences.push(
    retention === 0
      ? `${name} does not keep my booking details after the booking.`
      : `${name} keeps my booking details for ${retentionWords(retention)} after the booking.`,
  );
  return sentences.join(" ");
}

function termsSentence(offer: OfferClaims, opts: ConsentOptions, name: string): string {
  const who = `${name} (${identityNote(offer, opts)})`;
  const what =
    offer.resource_name !== undefined
      ? `${offer.service.name} with ${offer.resource_name} at ${who}`
      : `${offer.service.name} with ${who}`;
  const parts = [what];
  const end = offer.slot.end === undefined ? null : instant(offer.slot.end);
  parts.push(slotWords(instant(offer.slot.start), end, zoneOf(offer)));
  if (offer.place !== undefined) parts.push(`at ${placeWords(offer.place)}`);
  if (offer.party_size !== undefined && offer.party_size > 1) parts.push(`for ${offer.party_size} people`);
  if (offer.total !== undefined) {
    const total = must(parseSchcpMoney(offer.total, "/total"));
    parts.push(
      `${total.currency} ${formatDecimalAmount(total.minor, total.currency)}, paid to ${name} directly`,
    );
  }
  const prefix = offer.kind === "change" ? "Change my booking to: " : "";
  return `${prefix}${parts.join(", ")}.`;
}

/** What goes in the parentheses after the host's name (§5.2, §5.3). */
function identityNote(offer: OfferClaims, opts: ConsentOptions): string {
  const discovered = opts.discoveredDomain;
  if (typeof discovered === "string" && discovered !== "") return discovered;
  if (offer.host === undefined || offer.host.domain !== undefined) return "unverified";
  return `${offer.iss}, unverified`;
}

/** host.tz, or with no host the slot's own UTC offset as a fixed zone ("-07:00"). */
function zoneOf(offer: OfferClaims): string {
  if (offer.host !== undefined) return offer.host.tz;
  const { offsetMinutes } = must(parseInstant(offer.slot.start, "/slot/start"));
  const abs = Math.abs(offsetMinutes);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${offsetMinutes < 0 ? "-" : "+"}${hhmm}`;
}

export function placeWords(place: Place): string {
  const parts = [place.name, place.street, place.locality, place.region, place.postal_code, place.country];
  return parts.filter((p): p is string => p !== undefined && p !== "").join(", ");
}

function instant(value: string): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(must(parseInstant(value, "")).epochMs);
}

function must<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`consent: offer claims were not verified: ${r.error.field}: ${r.error.message}`);
  return r.value;
}
