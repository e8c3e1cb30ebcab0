/**
 * The parse worker (a worker thread, started by off-thread.ts): where CalDAV answers are read.
 * XML (xml-js over sax) and iCalendar (ical.js) parsing cost more than linear time on some
 * hostile inputs (text outside the root element, long parameter lists), and no cap small
 * enough to bound that on the event loop leaves room for real calendars; here a slow parse
 * costs this thread only, and off-thread.ts ends it at its deadline.
 *
 * Messages in: `resources` (calendar files' bytes, ics-dir), `multistatus` (a 207 body's bytes, optionally with the calendar whose resources to read
 * into events), `discover` (tsdav's discovery walk, its requests answered by the main thread,
 * which alone sends them: discover.ts) and `fetched` (such an answer). Out: `done` per job and
 * `fetch` per discovery request.
 */
import { parentPort } from "node:worker_threads";
import type { RawCalendarEvent } from "../port.js";
import { collectResources, noteSkipped, type Collected, type SkippedIn } from "./collect.js";
import { parseMultistatus, type Multistatus } from "./dav.js";
import { walkDiscovery, type WalkedCalendar } from "./discover-walk.js";
import { readResource } from "./vevent.js";

export type ToWorker =
  | {
      readonly op: "multistatus";
      readonly id: number;
      /** The answer's bytes (transferred), decoded here. */
      readonly body: Uint8Array;
      readonly contentType: string | null;
      readonly url: string;
      /** Read the resources' calendar data into events, for this calendar collection. */
      readonly collect?: string;
    }
  | { readonly op: "discover"; readonly id: number; readonly serverUrl: string }
  | {
      /** Calendar object resources read from files (ics-dir): each file's bytes (transferred). */
      readonly op: "resources";
      readonly id: number;
      readonly files: ReadonlyArray<{
        readonly eventId: string;
        readonly version: string;
        readonly bytes: Uint8Array;
      }>;
    }
  | {
      readonly op: "fetched";
      readonly fetchId: number;
      /** Absent: the request failed (the main thread keeps why). */
      readonly answer?: {
        readonly status: number;
        readonly headers: ReadonlyArray<readonly [string, string]>;
        /** The answer's bytes (transferred), or null for a status without a body. */
        readonly body: Uint8Array | null;
      };
    };

export type FromWorker =
  | {
      readonly type: "done";
      readonly id: number;
      readonly multistatus?: Multistatus;
      readonly collected?: Collected;
    }
  | { readonly type: "done"; readonly id: number; readonly calendars?: readonly WalkedCalendar[] }
  | { readonly type: "done"; readonly id: number; readonly resources: Collected }
  | {
      readonly type: "fetch";
      readonly id: number;
      readonly fetchId: number;
      readonly method: string;
      readonly url: string;
      readonly headers: ReadonlyArray<readonly [string, string]>;
      readonly body?: string;
    };

const port = parentPort;
if (port === null) throw new Error("parse-worker.ts runs as a worker thread");

const waiting = new Map<number, (answer: Extract<ToWorker, { op: "fetched" }>["answer"]) => void>();
let nextFetch = 0;
const post = (message: FromWorker): void => port.postMessage(message);

function readFiles(files: Extract<ToWorker, { op: "resources" }>["files"]): Collected {
  const events: Array<readonly [string, readonly RawCalendarEvent[]]> = [];
  const skipped: SkippedIn[] = [];
  for (const f of files) {
    const read = readResource(new TextDecoder("utf-8").decode(f.bytes), f.eventId, f.version);
    if (!read.ok) return { events, problem: read.error };
    noteSkipped(skipped, f.eventId, read.value.skipped);
    events.push([f.eventId, read.value.events]);
  }
  return { events, ...(skipped.length > 0 && { skipped }) };
}

async function handle(message: ToWorker): Promise<void> {
  if (message.op === "fetched") {
    waiting.get(message.fetchId)?.(message.answer);
    waiting.delete(message.fetchId);
    return;
  }
  if (message.op === "multistatus") {
    // As Response.text() decodes: UTF-8, a BOM dropped.
    const text = new TextDecoder("utf-8").decode(message.body);
    const multistatus = await parseMultistatus(text, message.contentType, message.url);
    const collected =
      multistatus !== undefined && message.collect !== undefined
        ? collectResources(new URL(message.collect), multistatus.resources)
        : undefined;
    post({
      type: "done",
      id: message.id,
      ...(multistatus === undefined ? {} : { multistatus }),
      ...(collected === undefined ? {} : { collected }),
    });
    return;
  }
  if (message.op === "resources") {
    post({ type: "done", id: message.id, resources: readFiles(message.files) });
    return;
  }
  const { id } = message;
  const fetchThroughMain: typeof globalThis.fetch = async (input, init) => {
    const fetchId = nextFetch++;
    const url = input instanceof Request ? input.url : String(input);
    const answered = new Promise<Extract<ToWorker, { op: "fetched" }>["answer"]>((resolve) =>
      waiting.set(fetchId, resolve),
    );
    post({
      type: "fetch",
      id,
      fetchId,
      method: init?.method ?? (input instanceof Request ? input.method : "GET"),
      url,
      headers: [...new Headers(init?.headers).entries()],
      ...(typeof init?.body === "string" ? { body: init.body } : {}),
    });
    const answer = await answered;
    if (answer === undefined) throw new Error("the request failed");
    return new Response(answer.body, {
      status: answer.status,
      headers: answer.headers.map(([k, v]) => [k, v]),
    });
  };
  const calendars = await walkDiscovery(message.serverUrl, fetchThroughMain).catch(() => undefined);
  post({ type: "done", id, ...(calendars === undefined ? {} : { calendars }) });
}

port.on("message", (message: ToWorker) => {
  handle(message).catch(() => {
    if (message.op !== "fetched") post({ type: "done", id: message.id });
  });
});
