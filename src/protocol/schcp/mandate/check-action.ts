/**
 * §3.3 checks 5 and 6 (scope and constraints) and the closed-mandate rule of §5.3,
 * applied to EVERY link of a verified chain, root first: an action must fit the
 * root's constraints and the child's. A child's wider limit gains nothing, and is
 * refused here, at the action, never at verification.
 */
import { childPointer, err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { parseLinkConstraints } from "./constraints.js";
import type { LinkConstraints } from "./constraints.js";
import { mandateInvalid, mandateLimit, mandateScope } from "./refusal.js";
import { claimField, MANDATE_HEADER, PARENT_FIELD } from "./fields.js";
import type {
  MandateAction,
  MandateActionKind,
  MandateBookingCounter,
  MandateChain,
  MandateLink,
  MandateRefusal,
} from "./types.js";

export type MandateScopeName = "hold" | "book" | "cancel" | "reschedule";

/** The scope each action needs (§3.3 check 5); reads, responses and availability need none. */
export const REQUIRED_SCOPE: Readonly<Record<MandateActionKind, MandateScopeName | null>> = {
  availability: null,
  read: null,
  respond: null,
  hold: "hold",
  release: "hold",
  waitlist_join: "hold",
  waitlist_leave: "hold",
  book: "book",
  cancel: "cancel",
  change_offer: "reschedule",
  reschedule: "reschedule",
  proposal_response: "reschedule",
};

/** Actions that take a unit of max_bookings (§7.1: every hold counts; waiting entries too). */
const COUNTED = new Set<MandateActionKind>(["hold", "book", "waitlist_join"]);
/** Actions that create something new, which a management mandate can never do (§3.3). */
const CREATING = new Set<MandateActionKind>(["hold", "book", "waitlist_join"]);
/**
 * Actions that accept an offer, the only ones a closed mandate authorises besides a read (§5.3);
 * a participant's answer accepts the booking's contract (§5.10).
 */
const ACCEPTING = new Set<MandateActionKind>(["book", "reschedule", "proposal_response", "respond"]);

export async function checkMandateAction(
  chain: MandateChain,
  action: MandateAction,
  ports: { counter: MandateBookingCounter },
): Promise<Result<void, MandateRefusal>> {
  for (const link of chain.links) {
    const field = linkField(chain, link);
    const constraints = parseLinkConstraints(link.claims, field);
    // Cannot happen for a chain verifyMandate built; a hand-made chain fails closed.
    if (!constraints.ok) return err(mandateInvalid(constraints.error.message, constraints.error.field));
    const at = claimField(field, "constraints");
    const sync = checkLinkSync(link, constraints.value, action, field, at);
    if (!sync.ok) return sync;

    const max = constraints.value.maxBookings;
    if (max !== undefined && COUNTED.has(action.kind)) {
      // Keyed by (root iss, this link's jti): jti is chosen by whoever signs (§3.3 "Ids are per link").
      const active = await ports.counter.active(chain.rootIss, link.claims.jti, action.countedItemId);
      if (active >= max) {
        return err(
          mandateLimit(
            "max_bookings_reached",
            `this mandate allows ${max} active booking(s), and has ${active}`,
            {
              field: childPointer(at, "max_bookings"),
              basis: { constraint: "max_bookings", limit: max },
            },
          ),
        );
      }
    }
  }
  return ok(undefined);
}

function checkLinkSync(
  link: MandateLink,
  c: LinkConstraints,
  action: MandateAction,
  field: string,
  at: string,
): Result<void, MandateRefusal> {
  const needed = REQUIRED_SCOPE[action.kind];
  if (needed !== null && !link.claims.scope.includes(needed)) {
    return err(
      mandateScope("not_in_scope", `${action.kind} needs "${needed}" in the mandate's scope`, {
        field: claimField(field, "scope"),
        basis: { scope: needed },
      }),
    );
  }

  // §3.3 Management mandates: only actions on the listed bookings, never a new hold.
  if (c.bookings !== undefined) {
    const listed = action.bookingId !== undefined && c.bookings.includes(action.bookingId);
    if (CREATING.has(action.kind) || !listed) {
      return err(
        mandateScope("booking_not_allowed", "this mandate only covers actions on the bookings it lists", {
          field: childPointer(at, "bookings"),
          basis: { constraint: "bookings" },
        }),
      );
    }
  }

  if (c.services !== undefined && !c.services.includes(action.serviceId)) {
    return err(
      mandateScope("service_not_allowed", `the mandate does not cover service ${action.serviceId}`, {
        field: childPointer(at, "services"),
        basis: { constraint: "services", limit: c.services },
      }),
    );
  }

  // Window, both bounds inclusive; an open-ended booking uses its start for both (§3.3 check 6, §4.2).
  const end = action.openEnded === true || action.end === undefined ? action.start : action.end;
  if (c.notBefore !== undefined && action.start < c.notBefore.epochMs) {
    return err(outsideWindow("not_before", c.notBefore.text, at));
  }
  if (c.notAfter !== undefined && end > c.notAfter.epochMs) {
    return err(outsideWindow("not_after", c.notAfter.text, at));
  }

  // An offer that states no price always fits (§3.3 check 6).
  const total = action.total;
  if (c.maxPrice !== undefined && total !== undefined && total !== null) {
    const priceField = childPointer(at, "max_price");
    const limit = { constraint: "max_price", limit: link.claims.constraints?.max_price };
    if (total.currency !== c.maxPrice.currency) {
      return err(
        mandateLimit(
          "currency_mismatch",
          `the total is in ${total.currency}, the mandate's limit in ${c.maxPrice.currency}`,
          {
            field: priceField,
            basis: limit,
          },
        ),
      );
    }
    if (total.minor > c.maxPrice.minor) {
      return err(
        mandateLimit("over_max_price", "the total is above the mandate's max_price", {
          field: priceField,
          basis: limit,
        }),
      );
    }
  }

  // §5.3 Closed mandates: accepting only the offer with that hash, or reading what it accepts.
  if (c.offerSha256 !== undefined) {
    const sameOffer = action.offerSha256 === c.offerSha256;
    const allowed = ACCEPTING.has(action.kind)
      ? sameOffer
      : action.kind === "read" && (action.offerSha256 === undefined || sameOffer);
    if (!allowed) {
      return err(
        mandateLimit("offer_mismatch", "this closed mandate only accepts (or reads) the offer it names", {
          field: childPointer(at, "offer_sha256"),
          basis: { constraint: "offer_sha256" },
          details: { offer_sha256: c.offerSha256 },
        }),
      );
    }
  }
  return ok(undefined);
}

function outsideWindow(bound: "not_before" | "not_after", text: string, at: string): MandateRefusal {
  const when = bound === "not_before" ? "starts before" : "ends after";
  return mandateLimit("outside_window", `the time ${when} the mandate's window (${bound} ${text})`, {
    field: childPointer(childPointer(at, "window"), bound),
    basis: { constraint: `window.${bound}`, limit: text },
  });
}

/** The refusal pointer of a link: the header's mandate is the leaf, its parent the root. */
function linkField(chain: MandateChain, link: MandateLink): string {
  return link.depth === 0 && chain.links.length > 1 ? PARENT_FIELD : MANDATE_HEADER;
}

/** A link whose max_bookings is one limit across hosts, kept by the key app (§3.3). */
export interface SharedLimitLink {
  readonly link: MandateLink;
  /** Absent when the link names none, which refuses the confirm (shared_limit_reached). */
  readonly statusUrl?: string;
}

/** The links the confirm use case must claim a booking for at their key app, root first. */
export function sharedLimitLinks(chain: MandateChain): readonly SharedLimitLink[] {
  return chain.links
    .filter((link) => link.claims.constraints?.shared_limit === true)
    .map((link) => ({ link, ...(link.claims.status !== undefined && { statusUrl: link.claims.status }) }));
}
