/**
 * The approval page a calendar host opens from its link (SchCP §5.7 host approval).
 * GET shows the booking and asks; only the form's POST acts, so a mail scanner or link
 * preview that fetches the URL cannot approve. Server-rendered HTML with no script: every
 * value is escaped, the page forbids framing, referrers, caching and any subresource (CSP).
 * Its look and headers are the operator console's (src/edges/http/layout.ts).
 */
import { escapeHtml, page, pageCsp, PAGE_HEADERS } from "../http/layout.js";
import { contactOf, type Guest } from "../../booking/bookings/guest.js";
import { readableSpan, readableTime } from "../../protocol/time/index.js";

export interface ApprovalView {
  readonly hostName: string;
  /** The gateway's booking id, as the console and the operator API name it. */
  readonly bookingId: string;
  readonly serviceName: string;
  /** The booking's time, epoch ms (no end: open-ended). */
  readonly start: number;
  readonly end?: number;
  /** The host's IANA zone: every time on the page is on its clock, and named. */
  readonly timeZone: string;
  readonly partySize: number;
  /** Who the booking is for, while the record keeps them (booking/bookings/guest.ts). */
  readonly guest?: Guest;
  /** The booking's state: pending_host asks; anything else says what happened. */
  readonly status: string;
  /** When the link stops working, epoch ms. */
  readonly answerBy?: number;
  /**
   * SchCP §5.12: a meeting the host's person answers as a member, with their own acceptance:
   * the contract as the booking keeps it, and the member (the calendar's owner).
   */
  readonly meeting?: {
    readonly contract: string;
    readonly issuedAt: number;
    readonly member: string;
    /** The names the person's own contacts give principals (§7.8), never the organizer's labels. */
    readonly knownAs: Readonly<Record<string, string>>;
  };
}

/** Another person in a meeting, as the member's page shows them (§5.12 What a member can trust). */
export interface MeetingPerson {
  readonly principal: string;
  /** The organizer's name for them: shown only in quotes, and only when the person's contacts give none. */
  readonly label: string;
  readonly organizer: boolean;
}

/** The member page's policy: the shared one, and the console's key app script (same origin). */
export const MEMBER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...PAGE_HEADERS,
  "content-security-policy": `${pageCsp()}; script-src 'self'`,
};

/** Where the console serves its key app (src/edges/console/key-app-script.ts). */
const KEY_APP_PATH = "/console/key-app.js";

/**
 * A meeting member's question (SchCP §5.12 Acceptances): the statement they accept, generated
 * from the contract's claims (naming who arranged it, the other members and the attendees),
 * signed in this browser by the key app with the person's own key; or a decline in their words.
 */
export function memberQuestionPage(
  v: ApprovalView & { readonly meeting: NonNullable<ApprovalView["meeting"]> },
  statement: string,
  termsSha256: string,
  meetingId: string,
  people: readonly MeetingPerson[] = [],
): string {
  return page(
    `A meeting at ${v.hostName}`,
    `<h1>You are invited to a meeting</h1><p>${escapeHtml(v.hostName)}</p>` +
      `<blockquote id="statement">${escapeHtml(statement)}</blockquote>` +
      whoIsIn(people, v.meeting.knownAs) +
      details(v) +
      `<p id="key-status" class="flash info" role="status">Loading your key…</p>` +
      `<form method="post" id="accept-form" data-statement="${escapeHtml(statement)}" ` +
      `data-terms="${escapeHtml(termsSha256)}" data-meeting="${escapeHtml(meetingId)}" ` +
      `data-owner="${escapeHtml(v.meeting.member)}">` +
      `<input type="hidden" name="action" value="accept"><input type="hidden" name="acceptance" value="">` +
      `<button class="approve" type="submit">Accept and sign</button></form>` +
      `<form method="post"><input type="hidden" name="action" value="decline">` +
      `<label for="message">Your message to the organizer (optional)</label>` +
      `<textarea id="message" name="message" maxlength="500"></textarea>` +
      `<button type="submit">Decline</button></form>` +
      (v.answerBy !== undefined
        ? `<p class="note">If you do not answer by ${escapeHtml(readableTime(v.answerBy, v.timeZone))}, the booking lapses and the time is freed.</p>`
        : "") +
      `<script src="${KEY_APP_PATH}"></script>`,
  );
}

/**
 * §5.12 "A member's agent SHOULD show each other person by the name in its own person's
 * contacts where it knows their principal, and otherwise as someone they don't know, with the
 * organizer's name for them only in quotes": the statement above is the organizer's words (it
 * is what gets signed); this list is the person's own.
 */
function whoIsIn(people: readonly MeetingPerson[], knownAs: Readonly<Record<string, string>>): string {
  if (people.length === 0) return "";
  const item = (p: MeetingPerson): string => {
    const known = Object.hasOwn(knownAs, p.principal) ? knownAs[p.principal] : undefined;
    const who =
      known !== undefined
        ? `<strong>${escapeHtml(known)}</strong> (in your contacts)`
        : `someone you don't know, named “${escapeHtml(p.label)}” by the organizer`;
    return `<li>${who}${p.organizer ? ", who arranged it" : ""}</li>`;
  };
  return `<h2>Who is in it</h2><ul id="people">${people.map(item).join("")}</ul>`;
}

/** The shared page headers (strict CSP: no script, the one stylesheet by its hash). */
export const APPROVAL_PAGE_HEADERS: Readonly<Record<string, string>> = PAGE_HEADERS;

/** Who booked first: the approver decides on a person, not on a party size. */
function details(v: ApprovalView): string {
  const contact = v.guest === undefined ? undefined : contactOf(v.guest);
  // A meeting names its people above (whoIsIn); a guest's name and contact are a booking's.
  const guest: Array<[string, string]> =
    v.meeting !== undefined
      ? []
      : [
          ["Guest", v.guest?.name ?? "No name was given"],
          ["Contact", contact ?? "No contact was given"],
        ];
  const rows: Array<[string, string]> = [
    ...guest,
    ["Service", v.serviceName],
    ["When", readableSpan(v.start, v.end, v.timeZone)],
    ["Party", v.partySize === 1 ? "1 person" : `${v.partySize} people`],
    ["Booking", v.bookingId],
  ];
  return `<dl>${rows.map(([k, x]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(x)}</dd>`).join("")}</dl>`;
}

/** The question: the booking and two buttons, each a POST to this same URL. */
export function approvalQuestionPage(v: ApprovalView): string {
  return page(
    `Approve a booking at ${v.hostName}`,
    `<h1>${escapeHtml(v.guest?.name === undefined ? "A booking is waiting for you" : `${v.guest.name} asks for a booking`)}</h1>` +
      `<p>${escapeHtml(v.hostName)}</p>${details(v)}` +
      `<form method="post"><input type="hidden" name="action" value="approve">` +
      `<button class="approve" type="submit">Approve</button></form>` +
      `<form method="post"><input type="hidden" name="action" value="decline">` +
      `<button type="submit">Decline</button></form>` +
      (v.answerBy !== undefined
        ? `<p class="note">If you do not answer by ${escapeHtml(readableTime(v.answerBy, v.timeZone))}, the booking lapses and the time is freed.</p>`
        : ""),
  );
}

const OUTCOME: Readonly<Record<string, string>> = {
  confirmed: "The booking is confirmed. It is in your calendar.",
  tentative: "You accepted. The meeting is final once the organizer has every member's yes.",
  declined: "You declined the booking. The time is free again.",
  expired: "The booking lapsed before it was answered. The time is free again.",
  cancelled: "The booking was cancelled.",
};

/** After an answer, or when the booking was already decided. */
export function approvalOutcomePage(v: ApprovalView, headline: string): string {
  return page(
    headline,
    `<h1>${escapeHtml(headline)}</h1>${details(v)}<p>${escapeHtml(OUTCOME[v.status] ?? `The booking is ${v.status}.`)}</p>`,
  );
}

/** A link that is malformed, forged, expired or already used: nothing about the booking. */
export function approvalRefusedPage(reason: "invalid" | "expired" | "used"): string {
  const text = {
    invalid: "This link is not valid. Use the link from the latest message the gateway sent you.",
    expired: "This link has expired. The booking lapsed and its time is free again.",
    used: "This link was already used. Each approval link works once.",
  }[reason];
  return page("Approval link", `<h1>Approval link</h1><p>${escapeHtml(text)}</p>`);
}
