/**
 * What the core keeps of a meeting booking (SchCP §5.12): the contract the booking stands on,
 * as the SchCP edge verified it, and the member's acceptance. The contract and acceptances are
 * kept as the exact compact texts their signers made, opaque here: the edge that verified them
 * (api.ts BookingEdge.verifyAcceptance) is the only one that reads inside them.
 */
import type { HostKey } from "../api.js";
import type { BookingAnswer } from "../bookings/state.js";

/** Whether a member's own person must answer, or a rule they signed may (§5.12 answers, §7.9). */
export type MeetingAnswers = "person" | "person_or_rule";

/** A member who must accept before commit: every person except the organizer (§5.12 Commit). */
export interface MeetingAnswerer {
  readonly principal: string;
  readonly name: string;
  readonly answers: MeetingAnswers;
}

/** The verified terms of one revision of a meeting contract, as this calendar read them. */
export interface MeetingTerms {
  readonly meetingId: string;
  readonly revision: number;
  /** base64url SHA-256 of the compact JWS (§5.12 Hash). */
  readonly contractSha256: string;
  /** The compact JWS itself, carried in responses as `contract`. */
  readonly contract: string;
  /** The organizer's principal (the contract's iss). */
  readonly organizer: string;
  /** The contract's iat and exp, epoch ms. */
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** This calendar's member. */
  readonly member: string;
  /** organizer: the organizer's own calendar; person: another person's; business: a business's. */
  readonly role: "organizer" | "person" | "business";
  /** Whether a rule may answer for this calendar's member (the member's answers, else the contract's). */
  readonly memberAnswers: MeetingAnswers;
  readonly mustAccept: readonly MeetingAnswerer[];
}

/** A booking's meeting (BookingState.meeting). */
export interface StoredMeeting extends MeetingTerms {
  /** The member's own acceptance given to this calendar (§5.12 Acceptances). */
  readonly acceptance?: string;
  /** The highest revision this calendar was handed, including one that did not happen. */
  readonly highestRevision: number;
  /** §5.12 Changing a confirmed meeting: a revision every member has yet to say yes to. */
  readonly pendingRevision?: PendingMeetingRevision;
}

/** An acceptance the edge verified against the booking's current contract. */
export interface VerifiedAcceptance {
  /** The member who accepted (the acceptance's iss). */
  readonly principal: string;
  readonly by: "person" | "rule";
  /** The rule's label, when by is "rule" (§7.9). */
  readonly rule?: string;
  /** The compact JWS as given. */
  readonly text: string;
}

/**
 * A revision handed to a confirmed meeting booking (SchCP §5.12 "Changing a confirmed
 * meeting"): the booking stays confirmed at its time until the organizer commits it.
 */
export interface PendingMeetingRevision {
  readonly terms: MeetingTerms;
  /** The open change offer the revision names; absent where its terms keep the booking's own. */
  readonly proposalId?: string;
  /** The revision's exp, or earlier where the change offer is held for less. */
  readonly expiresAt: number;
  /** Whether this calendar's member has answered it (at once for the organizer, a business or a rule). */
  readonly answered: boolean;
  /** The member's acceptance of the revision's hash, once given. */
  readonly acceptance?: string;
  /** Who said yes to it on this calendar (the person, or a rule and its label): the booking's answer once committed. */
  readonly answer?: BookingAnswer;
}

/**
 * SchCP §5.12, §7.9: the calendar's yes to a meeting by a rule its person signed, given at
 * confirm: the acceptance it signed as the person's agent, and the booking's answer
 * (by "rule", with the rule's label).
 */
export interface MeetingRuleYes {
  readonly acceptance: string;
  readonly answer: BookingAnswer;
}

/**
 * Signs the acceptance by rule (§5.12 Acceptances, by: "rule") of one member of a meeting
 * contract, carrying the rule, with the host's signing key (the rule's cnf key). The wire
 * format is an edge's: the composition root hands it in (src/gateway/runtime), as it does the
 * rule check (answers/port.ts RuleCheck). Undefined when the acceptance would not verify.
 */
export interface MeetingRuleSigner {
  acceptByRule(input: {
    /** The contract's compact JWS, as the booking keeps it. */
    readonly contract: string;
    /** The member's principal (the rule's iss, the calendar's owner). */
    readonly member: string;
    /** The rule's compact JWS, as the calendar keeps it. */
    readonly rule: string;
    readonly key: HostKey;
    /** Epoch ms: the acceptance's iat. */
    readonly now: number;
  }): Promise<string | undefined>;
}
