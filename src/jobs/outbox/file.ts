/**
 * The embedded default's transport: no mail server, no SMS account. Each message is appended
 * as one JSON line to a file (GATEWAY_DATA_DIR/host-messages.jsonl) and its text is printed,
 * so a person trying the gateway sees the approval link in the console and can open it.
 */
import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { HostMessage, MessageTransport } from "./message.js";

export function fileTransport(
  path: string,
  print: (line: string) => void = (l) => console.error(l),
): MessageTransport {
  return {
    name: "file",
    accepts: () => true,
    async send(m: HostMessage) {
      await mkdir(dirname(path), { recursive: true });
      await appendFile(path, `${JSON.stringify({ at: new Date().toISOString(), ...m })}\n`);
      print(`[host message → ${m.to.email ?? m.to.phone ?? m.hostId}] ${m.subject}\n${m.text}`);
    },
  };
}
