/**
 * The synthetic connector: a deterministic booking platform behind the Connector port,
 * for the embedded default, the demo and the tests.
 */
export {
  createSyntheticConnector,
  type SyntheticConnector,
  type SyntheticConnectorOptions,
} from "./connector.js";
export { catalogOf, validateScenario, type SyntheticScenario } from "./scenario.js";
export { SYNTHETIC_SCENARIOS, fadesOnQueen, harbourviewDental, mapleStreetAuto } from "./scenarios.js";
export { bayviewReferenceStudio } from "./bayview.js";
export {
  SYNTHETIC_MESSAGE_LOG_ENV,
  codeInMessage,
  fileMessageSink,
  readSyntheticMessages,
  verificationText,
  type SyntheticMessage,
  type SyntheticMessageSink,
} from "./messages.js";
export {
  DEFAULT_VERIFICATION_SEND_LIMIT,
  admitInWindow,
  isSendLimit,
  type SendAdmission,
  type VerificationSendLimit,
} from "./send-limit.js";
export {
  MemorySyntheticBackend,
  type SyntheticBackend,
  type SyntheticReadQuery,
  type SyntheticSnapshot,
  type SyntheticWriteOutcome,
  type VerificationRecord,
} from "./backend.js";
export {
  RedisSyntheticBackend,
  SyntheticBackendError,
  type RedisSyntheticBackendOptions,
} from "./redis-backend.js";
export {
  FaultPlan,
  type FaultKind,
  type FaultRule,
  type SyntheticCall,
  type SyntheticOperation,
} from "./faults.js";
export type { AppointmentAllocation, AppointmentStatus, SyntheticAppointment } from "./appointment.js";
export { SYNTHETIC_PLATFORM } from "./upstream.js";
export { MAX_RANGE_MS, MAX_STARTS } from "./availability.js";
export { CODE_TTL_MS } from "./verification.js";
