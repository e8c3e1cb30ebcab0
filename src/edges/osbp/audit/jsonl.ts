/**
 * The OSBP audit trail as a local JSONL file (OSBP "Audit": "The server appends redacted
 * JSONL audit events to .osbp/audit/events.jsonl by default"). Every event goes through the
 * protocol core's redactForAudit before it is serialized; nothing unredacted is ever written.
 *
 * Writes go through one queue: lines land in the order record() was called, even when calls
 * overlap. Lines waiting while a write is in progress are appended together in one write and
 * one fsync (group commit), so a burst costs one fsync, and record() resolves only once its
 * line is on disk. A failed write rejects every record() of that batch; the event is not
 * retried (the edge decides what to do). The file is opened per batch, so an operator may
 * rotate it by renaming.
 */
import { mkdir, open, readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { AuditEvent } from "../../../protocol/osbp/index.js";
import { redactForAudit } from "../../../protocol/osbp/index.js";
import { createAuditIdGenerator } from "./ids.js";
import type { AuditEntry, AuditLog } from "./port.js";
import type { Clock } from "../../../protocol/clock.js";

const DEFAULT_AUDIT_SOURCE = "osbp-local-mcp";

export interface JsonlAuditLogOptions {
  readonly path: string;
  readonly clock: Clock;
  /** The event's `source` (default "osbp-local-mcp", as in OSBP "Audit"). */
  readonly source?: string;
  /** Overrides the id generator (tests, aliases); default: monotonic "aud_" + ULID-like. */
  readonly newId?: () => string;
}

/** Thrown when the audit log cannot be created, written or read. */
export class AuditLogError extends Error {
  override readonly name = "AuditLogError";
}

interface Pending {
  readonly line: string;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Creates the parent directories (mode 0700 for new ones) and returns the log. The file is
 * created on the first record, mode 0600; an existing file keeps its mode.
 */
export async function createJsonlAuditLog(options: JsonlAuditLogOptions): Promise<AuditLog> {
  const path = resolve(options.path);
  await ensureDirectory(path);
  return new JsonlAuditLog(
    path,
    options.clock,
    options.source ?? DEFAULT_AUDIT_SOURCE,
    options.newId ?? createAuditIdGenerator(options.clock),
  );
}

class JsonlAuditLog implements AuditLog {
  #queue: Pending[] = [];
  #writing: Promise<void> | undefined;
  #closed = false;
  /** A failed write may have left a partial line; the next batch starts on a fresh line. */
  #mayBeTorn = false;

  constructor(
    private readonly path: string,
    private readonly clock: Clock,
    private readonly source: string,
    private readonly newId: () => string,
  ) {}

  async record(entry: AuditEntry): Promise<AuditEvent> {
    if (this.#closed) throw new AuditLogError(`audit log ${this.path} is closed`);
    const event = this.#event(entry);
    const line = `${JSON.stringify(event)}\n`;
    await new Promise<void>((resolve, reject) => {
      this.#queue.push({ line, resolve, reject });
      this.#writing ??= this.#drain();
    });
    return event;
  }

  /** Resolves once every record() already called has been written or has failed. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#writing;
  }

  #event(entry: AuditEntry): AuditEvent {
    const snapshots = redactForAudit(entry.input, entry.result);
    const event: AuditEvent = {
      id: this.newId(),
      ...(entry.mandate_id !== undefined && { mandate_id: entry.mandate_id }),
      tool_name: entry.tool_name,
      created_at: new Date(this.clock.now()).toISOString(),
      source: this.source,
      input: snapshots.input,
      result: snapshots.result,
      input_hash: snapshots.input_hash,
      result_hash: snapshots.result_hash,
      ...(entry.platform !== undefined && { platform: entry.platform }),
      ...(entry.upstream !== undefined && { upstream: entry.upstream }),
    };
    return event;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      try {
        await this.#append((this.#mayBeTorn ? "\n" : "") + batch.map((p) => p.line).join(""));
        this.#mayBeTorn = false;
        for (const pending of batch) pending.resolve();
      } catch (error) {
        this.#mayBeTorn = true;
        const failure = new AuditLogError(`cannot append to audit log ${this.path}: ${messageOf(error)}`, {
          cause: error,
        });
        for (const pending of batch) pending.reject(failure);
      }
    }
    this.#writing = undefined;
  }

  async #append(text: string): Promise<void> {
    await ensureDirectory(this.path);
    const handle = await open(this.path, "a", 0o600);
    try {
      await handle.chmod(0o600); // an existing log left wider is tightened
      await handle.writeFile(text, "utf8");
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }
}

async function ensureDirectory(path: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new AuditLogError(`cannot create the directory of audit log ${path}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/**
 * Every event in the file, in file order (for tests and operators). A line that is not an
 * event is an AuditLogError naming the file and line; a missing file is an error too, since
 * it usually means a wrong path rather than an empty log.
 */
export async function readAuditLog(path: string): Promise<AuditEvent[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new AuditLogError(`cannot read audit log ${path}: ${messageOf(error)}`, { cause: error });
  }
  const events: AuditEvent[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new AuditLogError(`audit log ${path} line ${index + 1} is not JSON: ${messageOf(error)}`);
    }
    const { id, tool_name } = (value ?? {}) as Record<string, unknown>;
    if (typeof id !== "string" || typeof tool_name !== "string") {
      throw new AuditLogError(`audit log ${path} line ${index + 1} is not an audit event`);
    }
    events.push(value as AuditEvent);
  }
  return events;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
