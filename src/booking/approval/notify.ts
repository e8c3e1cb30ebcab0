/**
 * Sends a calendar host the link to answer a pending booking (issue #11): a signed, expiring,
 * single-use link (links.ts) by mail or SMS through the host-message outbox. One message per
 * booking: the message key is the booking's, so a repeated notice is not sent twice.
 */
import { issueApprovalToken } from "./links.js";

export interface ApprovalNotice {
  readonly hostId: string;
  readonly hostName: string;
  readonly approver: { readonly email?: string; readonly phone?: string };
  /** What the link names: the booking's upstream id (its calendar event), see lookup.ts. */
  readonly bookingId: string;
  readonly serviceName: string;
  /** The booking's time in the host's zone, ready to read ("Mon 7 Dec 2026, 10:00–10:45"). */
  readonly when: string;
  /** The approval deadline (epoch ms); the link expires with it. */
  readonly answerBy: number;
  /** The same deadline in the host's words. */
  readonly answerByText: string;
}

export interface OutgoingMessage {
  readonly to: { readonly email?: string; readonly phone?: string };
  readonly subject: string;
  readonly text: string;
  readonly key: string;
  readonly hostId: string;
}

export interface ApprovalNotifierDeps {
  readonly secret: Uint8Array;
  /** The gateway's public origin (PUBLIC_ORIGIN), e.g. "https://gw.example". */
  readonly origin: string;
  readonly send: (message: OutgoingMessage) => void;
}

export function approvalLink(
  deps: Pick<ApprovalNotifierDeps, "secret" | "origin">,
  n: ApprovalNotice,
): string {
  const token = issueApprovalToken(deps.secret, {
    hostId: n.hostId,
    bookingId: n.bookingId,
    expiresAt: n.answerBy,
  });
  return `${deps.origin.replace(/\/+$/, "")}/approve/${token}`;
}

/** Sends the link; answers it (tests, logs). */
export function notifyApprover(deps: ApprovalNotifierDeps, n: ApprovalNotice): string {
  const link = approvalLink(deps, n);
  deps.send({
    to: n.approver,
    subject: `Booking request: ${n.serviceName}, ${n.when}`,
    text:
      `${n.hostName}: a booking is waiting for your answer.\n` +
      `${n.serviceName}, ${n.when}.\n` +
      `Approve or decline: ${link}\n` +
      `Answer by ${n.answerByText}; after that the booking lapses and the time is freed.`,
    key: `approval:${n.hostId}:${n.bookingId}`,
    hostId: n.hostId,
  });
  return link;
}
