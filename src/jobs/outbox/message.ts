/**
 * Messages to a host: the approval link of a pending booking, by mail or SMS. A
 * small port with real transports — SMTP (nodemailer), an HTTP SMS provider (Twilio's
 * Messages API) — and a file/console one for the embedded default, where nobody has a mail
 * server. Delivery retries with backoff (deliver.ts in process; bullmq-messenger.ts with Redis); a transport throws when its peer did
 * not accept the message.
 */
import type { OutgoingMessage } from "../../booking/approval/notify.js";

/** The core's OutgoingMessage, with what a transport may also carry. */
export interface HostMessage extends OutgoingMessage {
  readonly html?: string;
  /**
   * When the message is of no more use (epoch ms): the approval link in it expires then. A
   * durable queue keeps it no longer and does not send it after (bullmq-messenger.ts).
   */
  readonly expiresAt?: number;
}

export interface MessageTransport {
  /** "smtp", "sms", "file"… for logs. */
  readonly name: string;
  /** Whether this transport can reach the recipient (an SMS transport needs a phone). */
  accepts(message: HostMessage): boolean;
  /** Resolves when the peer accepted the message; throws otherwise. */
  send(message: HostMessage): Promise<void>;
}
