/**
 * What the synthetic platform "sends" when it verifies a customer: the SMS or email a real
 * platform would hand to its provider. A sink receives each message; `fileMessageSink` is the
 * stand-in for the customer's phone or inbox, one JSON line per message, so a test or a demo
 * playing the customer can read the code from another process, the way the real customer
 * reads it out of band (OSBP "verification.send": "the agent asks the customer for the code").
 */
import { readFile } from "node:fs/promises";
import { appendPrivateFile } from "../../protocol/private-files.js";

export interface SyntheticMessage {
  /** RFC 3339 instant (UTC, ms) by the connector's clock. */
  readonly sentAt: string;
  /** The platform's organization id (the host the code is for). */
  readonly hostId: string;
  readonly method: "sms" | "email";
  /** The phone (E.164) or email address the message went to. */
  readonly to: string;
  /** The message as the customer sees it, code included. */
  readonly text: string;
}

/** Delivery of one message; a throw or rejection is the provider failing (the platform answers 503). */
export type SyntheticMessageSink = (m: SyntheticMessage) => void | Promise<void>;

/** Conventional environment variable naming a message log (read only at the process edge). */
export const SYNTHETIC_MESSAGE_LOG_ENV = "SYNTHETIC_MESSAGE_LOG";

/** The wording of a code message: what a real platform's template says. */
export function verificationText(organizationName: string, code: string, ttlMs: number): string {
  return `Your ${organizationName} code is ${code}. It expires in ${Math.round(ttlMs / 60_000)} minutes.`;
}

/**
 * Appends each message to `path` as one JSON line (creating directories). One appendFile per
 * line: an O_APPEND write of a short line is not interleaved with other writers' lines.
 */
export function fileMessageSink(path: string): SyntheticMessageSink {
  return async (m) => {
    await appendPrivateFile(path, `${JSON.stringify(m)}\n`);
  };
}

const isMessage = (v: unknown): v is SyntheticMessage => {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  return (
    typeof m["sentAt"] === "string" &&
    typeof m["hostId"] === "string" &&
    (m["method"] === "sms" || m["method"] === "email") &&
    typeof m["to"] === "string" &&
    typeof m["text"] === "string"
  );
};

/**
 * The messages in a log, oldest first; a missing file is an empty inbox. A last line without
 * its newline is a write still in progress elsewhere and is left for the next read. Throws
 * for a line that is not a message: the file is not a message log.
 */
export async function readSyntheticMessages(path: string): Promise<SyntheticMessage[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const lines = text.split("\n");
  lines.pop(); // "" after the last newline, or a line still being written
  return lines.map((line, i) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (!isMessage(parsed)) throw new Error(`${path}:${i + 1}: not a synthetic message`);
    return parsed;
  });
}

/** The six-digit code in a message's text, as a customer would read it off the screen. */
export function codeInMessage(m: SyntheticMessage): string | undefined {
  return /\b(\d{6})\b/.exec(m.text)?.[1];
}
