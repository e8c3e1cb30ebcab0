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
 * - A sync cursor is the version of every file at the last sync: the next sync reports the
 *   files whose version changed and the ones that are gone.
 * - Writes go to a temporary file renamed into place, so a reader never sees half a file; a
 *   create never overwrites a file that exists (it answers it as stored).
 */
import { createHash } from "node:crypto";
import { link, readdir, readFile, rename, unlink } from "node:fs/promises";
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
import { readResource } from "../caldav/vevent.js";

export const ICS_DIR_PLATFORM: PlatformIdentity = { vendor: "ics-dir", api_version: "RFC5545" };

export interface IcsDirSettings {
  /** The directory of .ics files. */
  readonly path: string;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,200}$/;
const version = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("base64url");
const meta = (call: string, status: number): UpstreamMeta => ({ call, status });

export function createIcsDirConnector(
  settings: IcsDirSettings,
  deps: { now?: () => number } = {},
): CalendarConnector {
  const now = deps.now ?? Date.now;
  const dir = settings.path;
  const fileOf = (eventId: string) => join(dir, `${eventId}.ics`);

  async function listing(): Promise<Map<string, string>> {
    const names = (await readdir(dir)).filter((n) => n.endsWith(".ics") && ID.test(n.slice(0, -4)));
    const out = new Map<string, string>();
    for (const name of names.sort()) {
      try {
        out.set(name.slice(0, -4), version(await readFile(join(dir, name))));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
    return out;
  }

  async function current(eventId: string): Promise<string | undefined> {
    try {
      return version(await readFile(fileOf(eventId)));
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
        let files: Map<string, string>;
        try {
          files = await listing();
        } catch (e) {
          return failure(
            call,
            "unavailable",
            `the calendar directory cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"})`,
          );
        }
        let previous: Record<string, string> = {};
        if (request.cursor !== undefined) {
          try {
            previous = JSON.parse(Buffer.from(request.cursor, "base64url").toString("utf8")) as Record<
              string,
              string
            >;
          } catch {
            return failure(call, "cursor_expired", "the sync cursor is not one this connector wrote");
          }
        }
        const events: RawCalendarEvent[] = [];
        for (const [id, v] of files) {
          if (previous[id] === v) continue;
          const read = readResource(await readFile(fileOf(id), "utf8").catch(() => ""), id, v);
          if (!read.ok) return failure(call, "unavailable", read.message);
          events.push(...read.events);
        }
        const removed = Object.keys(previous).filter((id) => !files.has(id));
        const cursor = Buffer.from(JSON.stringify(Object.fromEntries(files))).toString("base64url");
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
