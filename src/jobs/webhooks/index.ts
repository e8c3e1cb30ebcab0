export { createOutbox, type CreateOutboxOptions } from "./outbox.js";
export { MemoryOutbox, type MemoryOutboxOptions } from "./memory-outbox.js";
export {
  BullmqOutbox,
  DEFAULT_BULLMQ_PREFIX,
  WEBHOOK_QUEUE,
  type BullmqOutboxOptions,
} from "./bullmq-outbox.js";
export {
  createDeliver,
  logTarget,
  type Deliver,
  type DeliveryDeps,
  type DeliveryFailure,
  type DeliveryFailureCode,
  type DeliveryOutcome,
} from "./deliver.js";
export { checkOutboundEvent, jobIdFor } from "./event-check.js";
export {
  DEFAULT_WEBHOOK_RETRY,
  exponentialBackoff,
  type ExponentialBackoffOptions,
  type RetryPolicy,
} from "./retry-policy.js";
export type { WebhookOutbox } from "./types.js";
