export { createOutbox } from "./outbox.js";
export type { WebhookOutbox } from "./types.js";
