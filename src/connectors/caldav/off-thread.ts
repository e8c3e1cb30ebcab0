/**
 * The main thread's side of the parse worker (parse-worker.ts): every CalDAV answer is parsed
 * there, so no upstream answer, however hostile, holds the event loop. A parse must finish within PARSE_DEADLINE_MS of CPU time handed to it and
 * within the worker's heap limits; one that does not ends the worker (a fresh one takes the
 * next job) and is reported as `too_costly`.
 *
 * Answers go to the worker as bytes, their ArrayBuffer transferred (not copied), and are
 * decoded there: decoding and cloning a string of megabytes would cost the event loop tens to
 * hundreds of milliseconds.
 *
 * Multi-Status parses share one long-lived worker, one job at a time (so ending it on a
 * deadline ends only that job). A discovery walk gets a worker of its own for its duration:
 * its requests go out from this thread (discover.ts), and the deadline runs only while the
 * worker is working, not while a request is on the network (the request's own timeout bounds
 * that).
 */
import type { Worker } from "node:worker_threads";
import type { Collected } from "./collect.js";
import type { Multistatus } from "./dav.js";
import type { WalkedCalendar } from "./discover-walk.js";
import { launchWorker } from "./launch-worker.js";
import type { FromWorker, ToWorker } from "./parse-worker.js";
import type { Result } from "../../protocol/result.js";

/** How long the worker may work on one answer before it is ended. */
const PARSE_DEADLINE_MS = 10_000;

/** What a parse the worker could not finish within its bounds answers: `what` could not be read. */
export { tooCostly } from "../http/failures.js";

/** The worker's heap: a parse that needs more is ended (ERR_WORKER_OUT_OF_MEMORY). */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

type Done = Extract<FromWorker, { type: "done" }>;
type FetchAsk = Extract<FromWorker, { type: "fetch" }>;
type Answer = Extract<ToWorker, { op: "fetched" }>["answer"];

/** The worker's answer, or "too_costly": the parse passed its deadline or its heap. */
export type OffThread<T> = Result<T, "too_costly">;

class ParseThread {
  readonly #worker: Worker;
  #job: { id: number; settle: (done: Done | undefined) => void } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #dead = false;
  #ids = 0;
  #onFetch: ((ask: FetchAsk) => Promise<Answer>) | undefined;

  constructor() {
    this.#worker = launchWorker("parse-worker", RESOURCE_LIMITS);
    this.#worker.unref();
    this.#worker.on("message", (message: FromWorker) => this.#received(message));
    const die = (): void => this.#end();
    this.#worker.on("error", die);
    this.#worker.on("exit", die);
  }

  get dead(): boolean {
    return this.#dead;
  }

  /** One job; undefined when the worker had to be ended (deadline, heap, crash). */
  run(
    job:
      | Omit<Extract<ToWorker, { op: "multistatus" }>, "id">
      | Omit<Extract<ToWorker, { op: "discover" }>, "id">
      | Omit<Extract<ToWorker, { op: "resources" }>, "id">,
    onFetch?: (ask: FetchAsk) => Promise<Answer>,
  ): Promise<Done | undefined> {
    if (this.#dead) return Promise.resolve(undefined);
    const id = this.#ids++;
    this.#onFetch = onFetch;
    return new Promise((settle) => {
      this.#job = { id, settle };
      this.#worker.ref();
      this.#arm();
      if (job.op === "multistatus") {
        const body = own(job.body);
        this.#worker.postMessage({ ...job, body, id }, [body.buffer]);
      } else if (job.op === "resources") {
        const files = job.files.map((f) => ({ ...f, bytes: own(f.bytes) }));
        this.#worker.postMessage(
          { ...job, files, id },
          files.map((f) => f.bytes.buffer),
        );
      } else this.#worker.postMessage({ ...job, id });
    });
  }

  terminate(): void {
    this.#end();
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#end(), PARSE_DEADLINE_MS);
  }

  #received(message: FromWorker): void {
    const job = this.#job;
    if (job === undefined || message.id !== job.id) return;
    if (message.type === "done") {
      clearTimeout(this.#timer);
      this.#job = undefined;
      this.#worker.unref();
      job.settle(message);
      return;
    }
    // The worker waits on the network now: its deadline resumes once the answer is handed over.
    clearTimeout(this.#timer);
    const ask = message;
    void (this.#onFetch?.(ask) ?? Promise.resolve(undefined))
      .catch(() => undefined)
      .then((answer) => {
        if (this.#dead || this.#job?.id !== job.id) return;
        this.#arm();
        const body = answer?.body === undefined || answer.body === null ? undefined : own(answer.body);
        this.#worker.postMessage(
          {
            op: "fetched",
            fetchId: ask.fetchId,
            ...(answer === undefined ? {} : { answer: { ...answer, body: body ?? null } }),
          },
          body === undefined ? [] : [body.buffer],
        );
      });
  }

  #end(): void {
    if (this.#dead) return;
    this.#dead = true;
    clearTimeout(this.#timer);
    void this.#worker.terminate();
    const job = this.#job;
    this.#job = undefined;
    job?.settle(undefined);
  }
}

/** Bytes that own their whole ArrayBuffer (what read-body.ts answers), or a copy that does. */
function own(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : bytes.slice();
}

let shared: ParseThread | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * A 207 body's Multi-Status (the bytes are handed over: the caller must not use them after), and with `collect` (the calendar collection's URL) its resources'
 * events; `value` undefined when the body is not a Multi-Status.
 */
export function multistatusOffThread(
  body: Uint8Array,
  contentType: string | null,
  url: URL,
  collect?: URL,
): Promise<OffThread<{ multistatus?: Multistatus; collected?: Collected }>> {
  const job = async (): Promise<OffThread<{ multistatus?: Multistatus; collected?: Collected }>> => {
    if (shared === undefined || shared.dead) shared = new ParseThread();
    const done = await shared.run({
      op: "multistatus",
      body,
      contentType,
      url: url.href,
      ...(collect === undefined ? {} : { collect: collect.href }),
    });
    if (done === undefined) return { ok: false, error: "too_costly" };
    const d = done as { multistatus?: Multistatus; collected?: Collected };
    return {
      ok: true,
      value: {
        ...(d.multistatus === undefined ? {} : { multistatus: d.multistatus }),
        ...(d.collected === undefined ? {} : { collected: d.collected }),
      },
    };
  };
  const run = queue.then(job, job);
  queue = run.catch(() => undefined);
  return run;
}

/**
 * Calendar object resources read from files (ics-dir), by eventId, in the shared worker; the
 * bytes are handed over (the caller must not use them after).
 */
export function resourcesOffThread(
  files: ReadonlyArray<{ readonly eventId: string; readonly version: string; readonly bytes: Uint8Array }>,
): Promise<OffThread<Collected>> {
  const job = async (): Promise<OffThread<Collected>> => {
    if (shared === undefined || shared.dead) shared = new ParseThread();
    const done = await shared.run({ op: "resources", files });
    if (done === undefined) return { ok: false, error: "too_costly" };
    const { resources } = done as { resources?: Collected };
    return resources === undefined ? { ok: false, error: "too_costly" } : { ok: true, value: resources };
  };
  const run = queue.then(job, job);
  queue = run.catch(() => undefined);
  return run;
}

/**
 * tsdav's discovery walk in a worker of its own; `send` answers each request it makes (the
 * answer's body, or undefined when the request failed). `calendars` undefined: the walk failed.
 */
export async function discoverOffThread(
  serverUrl: string,
  send: (ask: FetchAsk) => Promise<Answer>,
): Promise<OffThread<{ calendars?: readonly WalkedCalendar[] }>> {
  const thread = new ParseThread();
  try {
    const done = await thread.run({ op: "discover", serverUrl }, send);
    if (done === undefined) return { ok: false, error: "too_costly" };
    const { calendars } = done as { calendars?: readonly WalkedCalendar[] };
    return { ok: true, value: calendars === undefined ? {} : { calendars } };
  } finally {
    thread.terminate();
  }
}
