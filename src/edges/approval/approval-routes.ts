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
  type ApprovalView,
} from "./approval-page.js";
import type { Clock } from "../../protocol/clock.js";
import type { Result } from "../../protocol/result.js";

export interface ApprovalRouteDeps {
  readonly secret: Uint8Array;
  readonly uses: LinkUseStore;
  readonly clock: Clock;
  /** The booking as the page shows it, or undefined when the host has no such booking. */
  read(hostId: string, bookingId: string): Promise<ApprovalView | undefined>;
  /** The host's answer through the core; the booking's status after it, or the message of why it failed. */
  answer(hostId: string, bookingId: string, action: "approve" | "decline"): Promise<Result<string, string>>;
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
    if (action !== "approve" && action !== "decline") {
      return html(400, approvalRefusedPage("invalid"));
    }
    const { hostId, bookingId, nonce, expiresAt } = claims.value;
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
