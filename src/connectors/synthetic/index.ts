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
  type SyntheticMessage,
  type SyntheticMessageSink,
} from "./messages.js";
export { DEFAULT_VERIFICATION_SEND_LIMIT, admitInWindow, type VerificationSendLimit } from "./send-limit.js";
export { MemorySyntheticBackend, type SyntheticBackend, type SyntheticWriteOutcome } from "./backend.js";
export { RedisSyntheticBackend } from "./redis-backend.js";
export { FaultPlan, type SyntheticOperation } from "./faults.js";
export type { SyntheticAppointment } from "./appointment.js";
export { SYNTHETIC_PLATFORM } from "./upstream.js";
export { CODE_TTL_MS } from "./verification.js";
