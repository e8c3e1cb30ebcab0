export type { HostMessage, MessageTransport } from "./message.js";
export { smtpTransport, type SmtpSettings } from "./smtp.js";
export { smsTransport, type SmsSettings } from "./sms.js";
export { fileTransport } from "./file.js";
export { createHostMessenger, type HostMessenger } from "./deliver.js";
export {
  createBullmqHostMessenger,
  hostMessageJobId,
  HOST_MESSAGE_QUEUE,
  type BullmqMessengerOptions,
  type DurableHostMessenger,
} from "./bullmq-messenger.js";
