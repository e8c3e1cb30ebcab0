/**
 * GET/POST /approve/{token}: a calendar host answers a pending booking from its link
 * (SchCP §5.7 host approval). GET reads the link and the booking and asks; POST consumes
 * the link once and approves or declines through the same use cases as the operator API, so
 * the booking, its calendar event and the guest's webhook move exactly as they would there.
 * A link that is forged, expired or used gets a page that says so and nothing about the
 * booking. No operator credential is involved: the signed link is the credential.
 */
import type { Hono } from "hono";
import { readApprovalToken, type LinkUseStore } from "../../booking/approval/links.js";
import {
  APPROVAL_PAGE_HEADERS,
  approvalOutcomePage,
  approvalQuestionPage,
  approvalRefusedPage,
  MEMBER_PAGE_HEADERS,
  memberQuestionPage,
  type MeetingPerson,
  type ApprovalView,
} from "./approval-page.js";
import type { Clock } from "../../protocol/clock.js";
import type { Result } from "../../protocol/result.js";
import { acceptanceStatement, memberFor, verifyMeetingContract } from "../../protocol/schcp/meeting/index.js";

export interface ApprovalRouteDeps {
  readonly secret: Uint8Array;
  readonly uses: LinkUseStore;
  readonly clock: Clock;
  /** The booking as the page shows it, or undefined when the host has no such booking. */
  read(hostId: string, bookingId: string): Promise<ApprovalView | undefined>;
  /**
   * SchCP §5.12: a fresh link (this origin's path) to the member page of a person's meeting
   * booking still waiting for their answer, for the console; undefined for any other booking.
   */
  memberLink?(hostId: string, bookingId: string): Promise<string | undefined>;
  /** The host's answer through the core; the booking's status after it, or the message of why it failed. */
  answer(hostId: string, bookingId: string, action: "approve" | "decline"): Promise<Result<string, string>>;
  /**
   * SchCP §5.12: a meeting member's own answer on their calendar: their acceptance, or a no
   * (taking back a yes) with their message; the booking's status after it, or why it failed.
   */
  member?(
    hostId: string,
    bookingId: string,
    answer: { readonly acceptance: string } | { readonly message?: string },
  ): Promise<Result<string, string>>;
}

const MAX_ACCEPTANCE = 16_384;
const MAX_MESSAGE = 500;

/** The member's statement (§5.12), from the contract the booking keeps; undefined if unreadable. */
async function memberStatement(
  m: NonNullable<ApprovalView["meeting"]>,
): Promise<{ statement: string; terms: string; meetingId: string; people: MeetingPerson[] } | undefined> {
  const contract = await verifyMeetingContract(m.contract, { now: m.issuedAt });
  if (!contract.ok) return undefined;
  const member = contract.value.claims.members.find((x) => x.principal === m.member && x.business !== true);
  if (
    member === undefined ||
    memberFor(contract.value, { hostId: member.host, kind: "person", owner: m.member }).ok !== true
  )
    return undefined;
  return {
    statement: acceptanceStatement(contract.value.claims, member),
    terms: contract.value.sha256,
    meetingId: contract.value.claims.meeting_id,
    // Every other person; a business is shown as its own signed offer names it (in the statement).
    people: contract.value.claims.members
      .filter((x) => x.business !== true && x.principal !== m.member)
      .map((x) => ({
        principal: x.principal,
        label: x.name,
        organizer: x.principal === contract.value.claims.iss,
      })),
  };
}

const APPROVAL_PATH = "/approve/:token";

const html = (status: number, body: string) => new Response(body, { status, headers: APPROVAL_PAGE_HEADERS });

export function mountApprovalRoutes(app: Hono, deps: ApprovalRouteDeps): void {
  app.get(APPROVAL_PATH, async (c) => {
    const claims = readApprovalToken(deps.secret, c.req.param("token"), deps.clock.now());
    if (!claims.ok)
      return html(
        claims.error === "expired" ? 410 : 404,
        approvalRefusedPage(claims.error === "expired" ? "expired" : "invalid"),
      );
    const view = await deps.read(claims.value.hostId, claims.value.bookingId);
    if (view === undefined) return html(404, approvalRefusedPage("invalid"));
    if (view.status !== "pending_host")
      return html(200, approvalOutcomePage(view, "This booking was already answered"));
    const meeting = view.meeting;
    if (meeting !== undefined) {
      const words = await memberStatement(meeting);
      if (words === undefined) return html(404, approvalRefusedPage("invalid"));
      return new Response(
        memberQuestionPage({ ...view, meeting }, words.statement, words.terms, words.meetingId, words.people),
        {
          status: 200,
          headers: MEMBER_PAGE_HEADERS,
        },
      );
    }
    return html(200, approvalQuestionPage(view));
  });

  app.post(APPROVAL_PATH, async (c) => {
    const claims = readApprovalToken(deps.secret, c.req.param("token"), deps.clock.now());
    if (!claims.ok)
      return html(
        claims.error === "expired" ? 410 : 404,
        approvalRefusedPage(claims.error === "expired" ? "expired" : "invalid"),
      );
    const form: Record<string, unknown> = await c.req.parseBody().catch(() => ({}));
    const action = form["action"];
    const { hostId, bookingId, nonce, expiresAt } = claims.value;
    if (action === "accept" || (action === "decline" && form["message"] !== undefined)) {
      return memberAnswer(deps, hostId, bookingId, { nonce, expiresAt }, action, form);
    }
    if (action !== "approve" && action !== "decline") {
      return html(400, approvalRefusedPage("invalid"));
    }
    if (!(await deps.uses.consume(nonce, expiresAt))) return html(409, approvalRefusedPage("used"));
    const answered = await deps.answer(hostId, bookingId, action);
    const view = await deps.read(hostId, bookingId);
    if (view === undefined) return html(404, approvalRefusedPage("invalid"));
    if (!answered.ok) return html(409, approvalOutcomePage(view, "The booking could not be answered"));
    return html(
      200,
      approvalOutcomePage(
        { ...view, status: answered.value },
        action === "approve" ? "Booking approved" : "Booking declined",
      ),
    );
  });
}

/**
 * A meeting member's POST (§5.12): accept with the acceptance the key app signed in the
 * browser, or decline with a message. A well-formed answer spends the link, as an approval does.
 */
async function memberAnswer(
  deps: ApprovalRouteDeps,
  hostId: string,
  bookingId: string,
  link: { readonly nonce: string; readonly expiresAt: number },
  action: "accept" | "decline",
  form: Record<string, unknown>,
): Promise<Response> {
  const view = await deps.read(hostId, bookingId);
  if (view === undefined || view.meeting === undefined || deps.member === undefined)
    return html(400, approvalRefusedPage("invalid"));
  const acceptance = form["acceptance"];
  const message = form["message"];
  let answer: { acceptance: string } | { message?: string };
  if (action === "accept") {
    if (typeof acceptance !== "string" || acceptance === "" || acceptance.length > MAX_ACCEPTANCE)
      return html(400, approvalOutcomePage(view, "Your acceptance was not signed"));
    answer = { acceptance };
  } else {
    if (typeof message !== "string" || message.length > MAX_MESSAGE)
      return html(400, approvalRefusedPage("invalid"));
    const words = message.replace(/\s+/g, " ").trim();
    answer = words === "" ? {} : { message: words };
  }
  if (!(await deps.uses.consume(link.nonce, link.expiresAt))) return html(409, approvalRefusedPage("used"));
  const answered = await deps.member(hostId, bookingId, answer);
  const after = (await deps.read(hostId, bookingId)) ?? view;
  if (!answered.ok)
    return html(409, approvalOutcomePage(after, `The meeting could not be answered: ${answered.error}`));
  return html(
    200,
    approvalOutcomePage(
      { ...after, status: answered.value },
      action === "accept" ? "You accepted the meeting" : "You declined the meeting",
    ),
  );
}
