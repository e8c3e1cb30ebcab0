/**
 * Mail through an SMTP relay with nodemailer (a well-kept mail library: SMTP dialogue,
 * STARTTLS, auth, MIME). The relay's credentials come from configuration, never from a
 * message, and never reach a log line: errors are reported by their SMTP response code.
 */
import nodemailer from "nodemailer";
import type { HostMessage, MessageTransport } from "./message.js";

export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  /** Implicit TLS (465); otherwise STARTTLS is used when the server offers it. */
  readonly secure?: boolean;
  /** Refuse to send without STARTTLS (production relays). */
  readonly requireTls?: boolean;
  readonly user?: string;
  readonly password?: string;
  /** The From address. */
  readonly from: string;
  readonly timeoutMs?: number;
}

export function smtpTransport(settings: SmtpSettings): MessageTransport {
  const timeout = settings.timeoutMs ?? 10_000;
  const transporter = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure ?? false,
    requireTLS: settings.requireTls ?? false,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    ...(settings.user !== undefined && { auth: { user: settings.user, pass: settings.password ?? "" } }),
  });
  return {
    name: "smtp",
    accepts: (m) => m.to.email !== undefined,
    async send(m: HostMessage) {
      if (m.to.email === undefined) throw new Error("the message has no e-mail recipient");
      try {
        await transporter.sendMail({
          from: settings.from,
          to: m.to.email,
          subject: m.subject,
          text: m.text,
          ...(m.html !== undefined && { html: m.html }),
          headers: { "X-Booking-Gateway-Key": m.key },
        });
      } catch (error) {
        throw new Error(
          `SMTP relay ${settings.host}:${settings.port} refused the message: ${smtpReason(error)}`,
        );
      }
    },
  };
}

/** The SMTP code and the first line of the server's answer; never the auth exchange. */
function smtpReason(error: unknown): string {
  const e = error as { responseCode?: number; code?: string; message?: string };
  if (e.responseCode !== undefined) return `SMTP ${e.responseCode}`;
  return e.code ?? "connection failed";
}
