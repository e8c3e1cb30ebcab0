/**
 * The operator API's JSON for a booking (the core's neutral BookingView, booking/view.ts),
 * whichever edge made it: instants in RFC 3339 at the host's offset, money as exact decimal
 * strings. The shape is documented in the README's operator bullet; it is the host's view, not
 * any protocol's (a SchCP Booking carries the signed offer and receipt; this does not). It
 * carries no personal data: the principal is a pseudonym, and the guest's name and contact
 * (view.guest) are shown only where a person decides on the booking (the approval page, the
 * console, the approver's messages), not to the tools that read this API.
 */
import type { HostRuntime } from "../../booking/api.js";
import type { BookingView } from "../../booking/view.js";
import { toSchcpMoney, type Money } from "../../protocol/money/index.js";
import { formatInstant } from "../../protocol/time/index.js";

type Json = Readonly<Record<string, unknown>>;

// An exact decimal string and its currency: the same rendering SchCP uses, and no other is needed.
const money = (m: Money | null) => (m === null ? undefined : toSchcpMoney(m));

export function operatorBookingJson(view: BookingView, host: HostRuntime): Json {
  const tz = host.config.timezone;
  const at = (ms: number) => formatInstant(ms, tz);
  const c = view.contract;
  const p = view.proposal;
  const price = money(c.price);
  const total = money(c.total);
  return {
    booking_id: view.bookingId,
    host_id: view.hostId,
    status: view.status,
    sequence: view.sequence,
    edges: view.edges,
    service: c.service,
    start: at(view.start),
    ...(view.end !== undefined && { end: at(view.end) }),
    ...(view.openEnd === true && { open_end: true }),
    resources: view.resourceIds,
    ...(c.resource !== undefined && { resource: c.resource }),
    ...(view.partySize !== undefined && { party_size: view.partySize }),
    ...(view.place !== undefined && { place: view.place }),
    ...(price !== undefined && { price }),
    ...(total !== undefined && { total }),
    lines: c.lines.map((l) => ({ kind: l.kind, label: l.label, amount: toSchcpMoney(l.amount) })),
    retention: c.retention,
    principal: view.principal,
    consent: view.consent,
    ...(view.status === "pending_host" &&
      view.approvalBy !== undefined && { approval_by: at(view.approvalBy) }),
    // Pending at the business's own system, not at a gateway link (docs/connectors.md "Pending at the business").
    ...(view.status === "pending_host" && view.awaitingUpstream === true && { awaiting: "upstream" }),
    ...(view.cancelledBy !== undefined && { cancelled_by: view.cancelledBy }),
    ...(view.answer !== undefined && {
      answer: {
        by: view.answer.by,
        ...(view.answer.rule !== undefined && { rule: view.answer.rule }),
        at: formatInstant(view.answer.at),
      },
    }),
    ...(view.refusal !== undefined && { refusal: view.refusal }),
    ...(p !== undefined && {
      proposal: {
        proposal_id: p.proposalId,
        by: p.by,
        start: at(p.start),
        ...(p.end !== undefined && { end: at(p.end) }),
        ...(p.place !== undefined && { place: p.place }),
        expires_at: formatInstant(p.expiresAt),
        ...(p.awaitingHost === true && { awaiting_host: true }),
      },
    }),
    ...(view.declinedChange !== undefined && {
      declined_change: {
        ...(view.declinedChange.proposalId !== undefined && { proposal_id: view.declinedChange.proposalId }),
        start: at(view.declinedChange.start),
        ...(view.declinedChange.end !== undefined && { end: at(view.declinedChange.end) }),
        ...(view.declinedChange.place !== undefined && { place: view.declinedChange.place }),
        refusal: view.declinedChange.ending,
      },
    }),
    ...(view.upstreamTotal !== undefined && { upstream_total: toSchcpMoney(view.upstreamTotal) }),
    ...(view.attention !== undefined && {
      attention: {
        reason: view.attention.reason,
        message: view.attention.message,
        conflicts_with: view.attention.conflictsWith,
        at: formatInstant(view.attention.at),
      },
    }),
    created_at: formatInstant(view.createdAt),
    updated_at: formatInstant(view.updatedAt),
  };
}
