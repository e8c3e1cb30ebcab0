/**
 * A local calendar: a directory of iCalendar files, one calendar object per file (the "vdir"
 * layout that khal, vdirsyncer and many tools read and write). It is the embedded default's
 * calendar host (issue #11), so `npm start` shows calendar availability and an approval link
 * with no account; an operator can also point it at a directory that vdirsyncer keeps in sync
 * with a real calendar. A plain translator like every connector: the events as the files
 * state them (src/calendar expands them), written back as the gateway's own files.
 *
 * - eventId is the file name without ".ics"; a file holds a series and its overrides.
 * - Versions are the SHA-256 of a file's bytes, so If-Match works whatever edited the file.
 * - A sync cursor is every file's version with its size, mtime and inode at the last sync: the
 *   next sync stats the files and reads only those whose metadata differs (a new, changed or
 *   replaced file), reporting those whose version changed (a touched file with the same bytes
 *   is not a change) and the ones that are gone. A file modified within the last couple of
 *   seconds is read again next time (an edit in the same mtime tick keeps its size and mtime).
 * - Writes go to a temporary file renamed into place, so a reader never sees half a file; a
 *   create never overwrites a file that exists (it answers it as stored).
 * - Reads are bounded (http/limits.ts: icsFileBytes per file, icsTotalBytes per sync): a file
 *   over its cap is not read, and the sync fails `unavailable` with reason
 *   `upstream_too_large` naming it (an incomplete sync: the busy time it had is kept). The
 *   files' iCalendar is parsed in the CalDAV parse worker (caldav/off-thread.ts), never on
 *   the event loop.
 */
import type { UpstreamLogger } from "../http.js";
import { logSkipped } from "../caldav/sync.js";
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { link, readdir, rename, stat, unlink } from "node:fs/promises";
import { writePrivateFile } from "../../protocol/private-files.js";
import { join } from "node:path";
import type {
  CalendarConnector,
  CalendarEventWrite,
  CalendarSyncErrorCode,
  CalendarSyncPage,
  ConnectorResult,
  EventWriteErrorCode,
  PlatformIdentity,
  RawCalendarEvent,
  UpstreamMeta,
  WrittenEvent,
} from "../port.js";
import { buildEvent } from "../caldav/build-event.js";
import { resourcesOffThread, tooCostly } from "../caldav/off-thread.js";
import { upstreamLimits } from "../http/limits.js";
import { readFileCapped } from "./read-file.js";

export const ICS_DIR_PLATFORM: PlatformIdentity = { vendor: "ics-dir", api_version: "RFC5545" };

export interface IcsDirSettings {
  /** The directory of .ics files. */
  readonly path: string;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,200}$/;
const version = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("base64url");
const meta = (call: string, status: number): UpstreamMeta => ({ call, status });
/** A file modified this recently may change again within the same mtime tick. */
const MTIME_SETTLE_MS = 2_000;
const STAT_BATCH = 256;

export function createIcsDirConnector(
  settings: IcsDirSettings,
  deps: { now?: () => number; logger?: UpstreamLogger } = {},
): CalendarConnector {
  const now = deps.now ?? Date.now;
  const dir = settings.path;
  const fileOf = (eventId: string) => join(dir, `${eventId}.ics`);

  /** A file as the cursor remembers it: [version, size, mtime ms, inode]; size -1: read again. */
  type Seen = readonly [string, number, number, number];

  interface Listed {
    readonly seen: Seen;
    /** Read this sync: new or changed metadata. */
    readonly bytes?: Uint8Array;
  }

  /**
   * Every file's metadata, and the bytes of those whose metadata differs from `previous`, or
   * the first cap that the directory's files pass.
   */
  async function listing(
    previous: Readonly<Record<string, Seen | string>>,
  ): Promise<{ ok: true; files: Map<string, Listed> } | { ok: false; message: string }> {
    const { icsFileBytes, icsTotalBytes } = upstreamLimits();
    const names = (await readdir(dir)).filter((n) => n.endsWith(".ics") && ID.test(n.slice(0, -4)));
    const files = new Map<string, Listed>();
    let total = 0;
    const settled = now() - MTIME_SETTLE_MS;
    names.sort();
    // Stats many at a time: one at a time, a directory of 10,000 files costs its latency 10,000 times.
    const stats = new Map<string, Promise<Stats | undefined>>();
    const statOf = (name: string): Promise<Stats | undefined> =>
      stat(join(dir, name)).catch((e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT") return undefined;
        throw e;
      });
    for (let i = 0; i < names.length; i += STAT_BATCH) {
      const batch = names.slice(i, i + STAT_BATCH);
      const done = await Promise.all(batch.map(statOf));
      batch.forEach((name, j) => stats.set(name, Promise.resolve(done[j])));
    }
    for (const name of names) {
      const id = name.slice(0, -4);
      try {
        const st = await stats.get(name);
        if (st === undefined) continue;
        if (st.size > icsFileBytes)
          return {
            ok: false,
            message: `the calendar file ${JSON.stringify(name)} is larger than ${icsFileBytes} bytes (${st.size}); it is not read`,
          };
        total += st.size;
        if (total > icsTotalBytes)
          return {
            ok: false,
            message: `the calendar directory's files are larger than ${icsTotalBytes} bytes together; they are not read`,
          };
        const before = previous[id];
        const mtime = Math.trunc(st.mtimeMs);
        if (Array.isArray(before) && before[1] === st.size && before[2] === mtime && before[3] === st.ino) {
          files.set(id, { seen: before as Seen });
          continue;
        }
        const read = await readFileCapped(join(dir, name), icsFileBytes);
        if (!read.ok)
          return {
            ok: false,
            message: `the calendar file ${JSON.stringify(name)} is larger than ${icsFileBytes} bytes (${read.size}); it is not read`,
          };
        // Just written: the same mtime may yet hide another edit, so it is read again next time.
        const size = st.mtimeMs > settled ? -1 : read.bytes.byteLength;
        files.set(id, { seen: [version(read.bytes), size, mtime, st.ino], bytes: read.bytes });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
    return { ok: true, files };
  }

  /** The stored version of a file (its bytes' hash), read under the per-file cap. */
  async function current(eventId: string): Promise<string | undefined> {
    try {
      const read = await readFileCapped(fileOf(eventId), upstreamLimits().icsFileBytes);
      // A file over the cap is not read; its size stands in for a version no write will match.
      return read.ok ? version(read.bytes) : `too-large-${read.size}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  async function put(eventId: string, text: string, exclusive: boolean): Promise<void> {
    const tmp = join(dir, `.${eventId}.${process.pid}.${now()}.tmp`);
    // Guests' names and booking details: owner-only (the directory is the host's, left as it is).
    await writePrivateFile(tmp, text, { flag: "wx" });
    try {
      // link() fails if the target exists: a create never replaces a file someone else made.
      if (exclusive) await link(tmp, fileOf(eventId));
      else await rename(tmp, fileOf(eventId));
    } finally {
      if (exclusive) await unlink(tmp).catch(() => undefined);
    }
  }

  const failure = <C extends string>(call: string, code: C, message: string) => ({
    ok: false as const,
    error: { code, message },
    upstream: meta(call, 0),
  });

  return {
    platform: ICS_DIR_PLATFORM,
    kind: "calendar",
    calendar: {
      async sync(request): Promise<ConnectorResult<CalendarSyncPage, CalendarSyncErrorCode>> {
        const call = "REPORT /";
        let previous: Record<string, Seen | string> = {};
        if (request.cursor !== undefined) {
          try {
            // An earlier cursor holds versions only: every file is read once and compared.
            previous = JSON.parse(Buffer.from(request.cursor, "base64url").toString("utf8")) as Record<
              string,
              Seen | string
            >;
          } catch {
            return failure(call, "cursor_expired", "the sync cursor is not one this connector wrote");
          }
        }
        let listed: Awaited<ReturnType<typeof listing>>;
        try {
          listed = await listing(previous);
        } catch (e) {
          return failure(
            call,
            "unavailable",
            `the calendar directory cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"})`,
          );
        }
        if (!listed.ok)
          return {
            ok: false,
            error: { code: "unavailable", reason: "upstream_too_large", message: listed.message },
            upstream: meta(call, 0),
          };
        const { files } = listed;
        const versionOf = (seen: Seen | string | undefined): string | undefined =>
          typeof seen === "string" || seen === undefined ? seen : seen[0];
        const changed = [...files].flatMap(([eventId, f]) =>
          f.bytes !== undefined && versionOf(previous[eventId]) !== f.seen[0]
            ? [{ eventId, version: f.seen[0], bytes: f.bytes }]
            : [],
        );
        const events: RawCalendarEvent[] = [];
        if (changed.length > 0) {
          const read = await resourcesOffThread(changed);
          if (!read.ok)
            return {
              ok: false,
              error: tooCostly("the calendar files"),
              upstream: meta(call, 0),
            };
          if (read.value.problem !== undefined) return failure(call, "unavailable", read.value.problem);
          logSkipped(deps.logger, read.value.skipped);
          for (const [, group] of read.value.events) events.push(...group);
        }
        const removed = Object.keys(previous).filter((id) => !files.has(id));
        const seen = Object.fromEntries([...files].map(([id, f]) => [id, f.seen]));
        const cursor = Buffer.from(JSON.stringify(seen)).toString("base64url");
        return {
          ok: true,
          value: { events, removed, complete: true, nextCursor: cursor, readUntil: request.window.end },
          upstream: meta(call, 207),
        };
      },
    },
    events: {
      async create(e: CalendarEventWrite): Promise<ConnectorResult<WrittenEvent, EventWriteErrorCode>> {
        const call = "PUT /{event}";
        if (!ID.test(e.eventId)) return failure(call, "invalid_request", "the event id cannot name a file");
        const existing = await current(e.eventId);
        if (existing !== undefined) {
          return {
            ok: true,
            value: { calendarId: e.calendarId, eventId: e.eventId, etag: existing },
            upstream: meta(call, 412),
          };
        }
        const text = buildEvent(e, now());
        try {
          await put(e.eventId, text, true);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EEXIST")
            return failure(call, "unavailable", "the event file cannot be written");
          const stored = await current(e.eventId);
          return {
            ok: true,
            value: { calendarId: e.calendarId, eventId: e.eventId, etag: stored ?? "" },
            upstream: meta(call, 412),
          };
        }
        return {
          ok: true,
          value: { calendarId: e.calendarId, eventId: e.eventId, etag: version(text) },
          upstream: meta(call, 201),
        };
      },
      async update(
        e: CalendarEventWrite,
        ifMatch: string,
      ): Promise<ConnectorResult<WrittenEvent, EventWriteErrorCode>> {
        const call = "PUT /{event}";
        const existing = await current(e.eventId);
        if (existing === undefined) return failure(call, "not_found", "the event file is gone");
        if (existing !== ifMatch)
          return failure(call, "precondition_failed", "the event file changed since it was read");
        const text = buildEvent(e, now());
        try {
          await put(e.eventId, text, false);
        } catch {
          return failure(call, "unavailable", "the event file cannot be written");
        }
        return {
          ok: true,
          value: { calendarId: e.calendarId, eventId: e.eventId, etag: version(text) },
          upstream: meta(call, 204),
        };
      },
      async delete(_calendarId: string, eventId: string, ifMatch?: string) {
        const call = "DELETE /{event}";
        const existing = await current(eventId);
        if (existing === undefined)
          return { ok: true as const, value: { deleted: false }, upstream: meta(call, 404) };
        if (ifMatch !== undefined && existing !== ifMatch) {
          return failure<EventWriteErrorCode>(
            call,
            "precondition_failed",
            "the event file changed since it was read",
          );
        }
        await unlink(fileOf(eventId)).catch(() => undefined);
        return { ok: true as const, value: { deleted: true }, upstream: meta(call, 204) };
      },
    },
  };
}
