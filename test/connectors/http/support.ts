/** What the per-connector transport tests share: the expected User-Agent and a recording log. */
import { readFileSync } from "node:fs";
import type { UpstreamNotice } from "../../../src/connectors/http.js";
import type { Logger } from "../../../src/protocol/logger.js";

const packageVersion = (): string =>
  (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string })
    .version;

/** docs/ARCHITECTURE.md, Upstream requests: `booking-gateway/<version> <vendor>/<api_version> node/<major>`, built here by hand. */
export function expectedUserAgent(vendor: string, apiVersion: string): string {
  return `booking-gateway/${packageVersion()} ${vendor}/${apiVersion} node/${process.versions.node.split(".")[0]}`;
}

export interface RecordingLog extends Pick<Logger, "warn"> {
  readonly lines: { message: string; fields?: Readonly<Record<string, unknown>> }[];
}

export function recordingLogger(): RecordingLog {
  const lines: RecordingLog["lines"] = [];
  return { lines, warn: (message, fields) => void lines.push({ message, ...(fields && { fields }) }) };
}

/** A notice book stand-in: every notice the connector hands over, in order. */
export function noticeSink(): { notices: UpstreamNotice[]; onNotice: (n: UpstreamNotice) => void } {
  const notices: UpstreamNotice[] = [];
  return { notices, onNotice: (n) => void notices.push(n) };
}
