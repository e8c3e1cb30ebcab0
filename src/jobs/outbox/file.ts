/**
 * The embedded default's transport: no mail server, no SMS account. Each message is appended
 * as one JSON line to a file (GATEWAY_DATA_DIR/host-messages.jsonl) and its text is printed,
 * so a person trying the gateway sees the approval link in the console and can open it.
 * The file holds live approval links and booking details: owner-only (0600 in a 0700 data dir).
 */
import { appendPrivateFile } from "../../protocol/private-files.js";
import type { HostMessage, MessageTransport } from "./message.js";

export function fileTransport(
  path: string,
  print: (line: string) => void = (l) => console.error(l),
): MessageTransport {
  return {
    name: "file",
    accepts: () => true,
    async send(m: HostMessage) {
      await appendPrivateFile(path, `${JSON.stringify({ at: new Date().toISOString(), ...m })}\n`, {
        privateDir: true,
      });
      print(`[host message → ${m.to.email ?? m.to.phone ?? m.hostId}] ${m.subject}\n${m.text}`);
    },
  };
}
