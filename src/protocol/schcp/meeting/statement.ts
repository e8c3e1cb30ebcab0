/**
 * The words of a meeting (SchCP §5.12): the organizer's statement ("statement is the text the
 * organizer approved. Like any consent text (§5.3), it is generated from the claims") and a
 * member's acceptance statement ("The member's agent SHOULD render the text from the contract's
 * claims"). The spec's playdate sentences are reproduced exactly:
 *
 *   "I approve: Playdate with Ellis Moreau (ellis-moreau) and Priya Shah (priya-shah), Saturday
 *   17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods Park
 *   playground, Toronto, with Mira (child) coming along; Ellis Moreau and Priya Shah may each
 *   answer by a rule they signed."
 *
 *   "I accept: Playdate arranged by Noor Haddad (noor-haddad), with Priya Shah (priya-shah),
 *   Saturday 17 October 2026 from 12:00 p.m. Eastern time, open-ended, at Trinity Bellwoods
 *   Park playground, Toronto, with Mira (child) coming along."
 *
 * Rules:
 * - a member reads "Name (host id)", or "Name (host id, domain)" for a calendar with a domain;
 *   lists join with ", " and a final " and ";
 * - the time is the consent module's wording (§5.3) in the contract's tz: a range with an end,
 *   "… from 12:00 p.m. Eastern time, open-ended" for open_end;
 * - "at <place>" as offers render it; attendees as "with Mira (child) coming along" (the text a
 *   member is shown MUST name them);
 * - the organizer's text ends with who may answer by rule and who answers in person (it MUST
 *   say whether a rule may answer for the others): "Priya Shah answers in person; Ellis Moreau
 *   may answer by a rule they signed"; groups of two or more read "… each answer in person" and
 *   "… may each answer by a rule they signed". A business answers by its offer and is not named
 *   there.
 *
 * Deterministic (no clock, locale or machine zone). It expects claims that passed the contract
 * schema; an invalid date-time or zone is a programmer error and throws.
 */
import { Temporal } from "temporal-polyfill";
import { parseInstant } from "../../time/index.js";
import { placeWords, slotWords } from "../consent/index.js";
import type { MeetingContractClaims, MeetingMember } from "../types.js";

type Claims = Pick<
  MeetingContractClaims,
  "iss" | "title" | "tz" | "start" | "end" | "open_end" | "place" | "members" | "attendees" | "answers"
>;

/** The text the organizer approves, which the key app signs as the contract's statement. */
export function organizerStatement(c: Claims): string {
  const others = c.members.filter((m) => m.principal !== c.iss);
  const terms = termsWords(c, `${c.title} with ${list(others.map(memberWords))}`);
  const answers = answerWords(c);
  return `I approve: ${terms}${answers === "" ? "" : `; ${answers}`}.`;
}

/** The text a member reads before accepting: "I accept: <title> arranged by <organizer>, …". */
export function acceptanceStatement(c: Claims, member: Pick<MeetingMember, "principal">): string {
  const organizer = c.members.find((m) => m.principal === c.iss);
  const by = organizer === undefined ? c.iss : memberWords(organizer);
  const others = c.members.filter((m) => m.principal !== c.iss && m.principal !== member.principal);
  const head = `${c.title} arranged by ${by}${others.length === 0 ? "" : `, with ${list(others.map(memberWords))}`}`;
  return `I accept: ${termsWords(c, head)}.`;
}

function termsWords(c: Claims, head: string): string {
  const end = c.end === undefined ? null : instant(c.end);
  const parts = [head, slotWords(instant(c.start), end, c.tz), `at ${placeWords(c.place)}`];
  const attendees = c.attendees ?? [];
  if (attendees.length > 0) {
    const names = attendees.map((a) =>
      a.relationship === undefined ? a.name : `${a.name} (${a.relationship})`,
    );
    parts.push(`with ${list(names)} coming along`);
  }
  return parts.join(", ");
}

function answerWords(c: Claims): string {
  const persons = c.members.filter((m) => m.business !== true && m.principal !== c.iss);
  const byDefault = c.answers ?? "person_or_rule";
  const inPerson = persons.filter((m) => (m.answers ?? byDefault) === "person").map((m) => m.name);
  const byRule = persons.filter((m) => (m.answers ?? byDefault) === "person_or_rule").map((m) => m.name);
  const groups: string[] = [];
  if (inPerson.length > 0) {
    groups.push(`${list(inPerson)} ${inPerson.length === 1 ? "answers" : "each answer"} in person`);
  }
  if (byRule.length > 0) {
    groups.push(`${list(byRule)} may ${byRule.length === 1 ? "" : "each "}answer by a rule they signed`);
  }
  return groups.join("; ");
}

function memberWords(m: Pick<MeetingMember, "name" | "host" | "domain">): string {
  return m.domain === null ? `${m.name} (${m.host})` : `${m.name} (${m.host}, ${m.domain})`;
}

/** "A", "A and B", "A, B and C". */
function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1] ?? ""}`;
}

function instant(value: string): Temporal.Instant {
  const parsed = parseInstant(value, "");
  if (!parsed.ok) throw new Error(`meeting statement: claims were not verified: ${parsed.error.message}`);
  return Temporal.Instant.fromEpochMilliseconds(parsed.value.epochMs);
}
