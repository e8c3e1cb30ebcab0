/** SchCP meetings of several people (§5.12) and acceptances (§7.9): pure checks and texts. */
export {
  answersFor,
  contractSha256,
  hostPrincipal,
  HOST_PRINCIPAL_PREFIX,
  MEETING_TYP,
  memberFor,
  membersWhoAccept,
  verifyMeetingContract,
} from "./contract.js";
export type { CalendarRef, VerifiedContract, VerifyContractOptions } from "./contract.js";
export { acceptanceInvalid, meetingInvalid, personRequired } from "./problem.js";
export type { MeetingProblem, MeetingProblemReason } from "./problem.js";
export { acceptanceStatement, organizerStatement } from "./statement.js";
export { ACCEPTANCE_TYP, acceptanceContext, verifyAcceptance } from "./acceptance.js";
export type { AcceptanceContext, VerifiedAcceptance } from "./acceptance.js";
