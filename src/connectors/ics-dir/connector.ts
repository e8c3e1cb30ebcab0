/**
 * A local calendar: a directory of iCalendar files, one calendar object per file (the "vdir"
 * layout that khal, vdirsyncer and many tools read and write). It is the embedded default's
 * calendar host, so `npm start` shows calendar availability and an approval link
 * with no account; an operator can also point it at a directory that vdirsyncer keeps in sync
 * with a real calendar. A plain translator like every connector: the events as the files
 * state them (src/calendar expands them), written back as the gateway's own files.
 *
 * - eventId is the file name without ".ics"; a file holds a series and its overrides.
 * - Versions are the SHA-256 of a file's bytes, so If-Match works whatever edited the file.
 * - A sync cursor is every file's version with its size, mtime and inode at the last sync
 *   (cursor.ts): a sync reads only the files whose metadata differs (a new, changed or
 *   replaced file), reporting those whose version changed (a touched file with the same bytes
 *   is not a change) and the ones that are gone. A file modified within the last couple of
 *   seconds is read again next time (an edit in the same mtime tick keeps its size and mtime).
 * - Which files to stat: while this process watches the directory (watch.ts, Linux's inotify)
 *   without a break since it returned the cursor, only the names the watcher reported and the
 *   files marked to read again; every other file is carried from that cursor's listing, kept in
 *   memory under the exact cursor string, so a re-sync costs what changed, not the number of
 *   files. Otherwise every file (the full walk): the first sync of a process, a cursor this
 *   process did not return (another process, a restart, an earlier format), after the watcher
 *   failed or reported something it could not name, and every fullWalkEveryMs (30 minutes by
 *   default) as the bound on an event the watcher missed (Node does not report an inotify
 *   queue overflow). CalendarConnector has no close hook the runtime calls: the watcher never
 *   keeps the process alive (unref), and close() stops it for a caller that has one.
 * - Writes go to a temporary file renamed into place, so a reader never sees half a file; a
 *   create never overwrites a file that exists (it answers it as stored).
 * - Reads are bounded (http/limits.ts: icsFileBytes per file, icsTotalBytes per sync): a file
 *   over its cap is not read, and the sync fails `unavailable` with reason
 *   `upstream_too_large` naming it (an incomplete sync: the busy time it had is kept). The
 *   files' iCalendar is parsed in the CalDAV parse worker (caldav/off-thread.ts), never on
 *   the event loop.
 */
import { systemClock, type Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
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
import { decodeCursor, Listing, type Previous, type Seen } from "./cursor.js";
import { DirWatch, type WatchFn, type WatchPosition } from "./watch.js";
import type { Result } from "../../protocol/result.js";

export const ICS_DIR_PLATFORM: PlatformIdentity = { vendor: "ics-dir", api_version: "RFC5545" };

export interface IcsDirSettings {
  /** The directory of .ics files. */
  readonly path: string;
  /**
   * How often a sync stats every file even while the directory's watcher reports its changes:
   * the bound on how long a change the watcher missed (see watch.ts) stays unseen.
   */
  readonly fullWalkEveryMs?: number;
}

export interface IcsDirDeps {
  /** Default systemClock. */
  clock?: Clock;
  logger?: Pick<Logger, "warn">;
  /** Watch the directory for changes between syncs (default: on Linux, see watch.ts). */
  watch?: boolean;
  /** fs.watch, or a stand-in (tests). */
  watchFn?: WatchFn;
  /** Told after each listing whether it came from the watcher or the full walk. */
  observe?: (how: "watched" | "walked") => void;
}

/** The ics-dir connector; close() stops watching the directory. */
export type IcsDirConnector = CalendarConnector & { close(): void };

const ID = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,200}$/;
const version = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("base64url");
const meta = (call: string, status: number): UpstreamMeta => ({ call, status });
/** A file modified this recently may change again within the same mtime tick. */
const MTIME_SETTLE_MS = 2_000;
const STAT_BATCH = 256;
/** The periodic full walk, while a watcher reports changes (IcsDirSettings.fullWalkEveryMs). */
// Default 30 minutes: with the default sync_every (PT5M) one sync in six walks every file.
const FULL_WALK_EVERY_MS = 30 * 60_000;
const EMPTY: Previous = { get: () => undefined, ids: () => [] };

export function createIcsDirConnector(settings: IcsDirSettings, deps: IcsDirDeps = {}): IcsDirConnector {
  const clock = deps.clock ?? systemClock;
  const dir = settings.path;
  const fileOf = (eventId: string) => join(dir, `${eventId}.ics`);

  const watch = (deps.watch ?? process.platform === "linux") ? new DirWatch(dir, deps.watchFn) : undefined;
  const fullWalkEveryMs = settings.fullWalkEveryMs ?? FULL_WALK_EVERY_MS;

  /** A cursor this process returned, with what it needs to carry on from it without decoding. */
  interface Remembered {
    readonly cursor: string;
    readonly listing: Listing;
    /** Files to read again (modified within MTIME_SETTLE_MS), with their real sizes. */
    readonly recheck: ReadonlyMap<string, number>;
    /** The files' sizes together (icsTotalBytes). */
    readonly total: number;
    /** The watch's position when the listing was taken; undefined: no watch then. */
    readonly at: WatchPosition | undefined;
    /** The directory's dev:ino then (a directory replaced under its path is a new one). */
    readonly dirKey: string | undefined;
    readonly walkedAt: number;
  }
  // The last few: the newest, and the ones before it a caller may come back to when it did not
  // keep a sync's result (a sync that failed after reading keeps the previous cursor).
  let remembered: Remembered[] = [];
  const REMEMBERED = 3;

  /** One file's stat, undefined when it is gone. */
  const statOf = (name: string): Promise<Stats | undefined> =>
    stat(join(dir, name)).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return undefined;
      throw e;
    });

  /** A file gone, or what was seen of it; or the message of the cap it passes. */
  type Looked = Result<
    { gone: true } | { gone?: false; seen: Seen; size: number; bytes?: Uint8Array; recheck: boolean },
    string
  >;

  /** One file against what `before` remembers of it: carried as it was, or read. */
  async function look(
    name: string,
    st: Stats | undefined,
    before: Seen | string | undefined,
    settled: number,
  ): Promise<Looked> {
    const { icsFileBytes } = upstreamLimits();
    if (st === undefined) return { ok: true, value: { gone: true } };
    if (st.size > icsFileBytes)
      return {
        ok: false,
        error: `the calendar file ${JSON.stringify(name)} is larger than ${icsFileBytes} bytes (${st.size}); it is not read`,
      };
    const mtime = Math.trunc(st.mtimeMs);
    if (Array.isArray(before) && before[1] === st.size && before[2] === mtime && before[3] === st.ino)
      return { ok: true, value: { seen: before as Seen, size: st.size, recheck: false } };
    let read: Awaited<ReturnType<typeof readFileCapped>>;
    try {
      read = await readFileCapped(join(dir, name), icsFileBytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return { ok: true, value: { gone: true } };
      throw e;
    }
    if (!read.ok)
      return {
        ok: false,
        error: `the calendar file ${JSON.stringify(name)} is larger than ${icsFileBytes} bytes (${read.error.size}); it is not read`,
      };
    // Just written: the same mtime may yet hide another edit, so it is read again next time.
    const recheck = st.mtimeMs > settled;
    const bytes = read.value;
    const size = bytes.byteLength;
    return {
      ok: true,
      value: { seen: [version(bytes), recheck ? -1 : size, mtime, st.ino], size, bytes, recheck },
    };
  }

  interface Listed {
    readonly listing: Listing;
    readonly recheck: ReadonlyMap<string, number>;
    readonly total: number;
    /** Files read this sync (new or changed metadata), by event id, in name order. */
    readonly read: ReadonlyMap<string, Uint8Array>;
    /** Event ids the previous listing had that are gone. */
    readonly removed: readonly string[];
  }
  type ListOutcome = Result<Listed, string>;
  const totalTooLarge = (icsTotalBytes: number) => ({
    ok: false as const,
    error: `the calendar directory's files are larger than ${icsTotalBytes} bytes together; they are not read`,
  });
  const isEventFile = (n: string) => n.endsWith(".ics") && ID.test(n.slice(0, -4));

  /**
   * The full walk: every file's metadata, and the bytes of those whose metadata differs from
   * `previous`, or the first cap that the directory's files pass.
   */
  async function walk(previous: Previous): Promise<ListOutcome> {
    const { icsTotalBytes } = upstreamLimits();
    const names = (await readdir(dir)).filter(isEventFile);
    const files = new Map<string, Seen>();
    const recheck = new Map<string, number>();
    const read = new Map<string, Uint8Array>();
    let total = 0;
    const settled = clock.now() - MTIME_SETTLE_MS;
    names.sort();
    // Stats many at a time: one at a time, a directory of 10,000 files costs its latency 10,000 times.
    const stats: (Stats | undefined)[] = [];
    for (let i = 0; i < names.length; i += STAT_BATCH)
      stats.push(...(await Promise.all(names.slice(i, i + STAT_BATCH).map(statOf))));
    for (const [i, name] of names.entries()) {
      const id = name.slice(0, -4);
      const looked = await look(name, stats[i], previous.get(id), settled);
      if (!looked.ok) return looked;
      const f = looked.value;
      if (f.gone === true) continue;
      total += f.size;
      if (total > icsTotalBytes) return totalTooLarge(icsTotalBytes);
      files.set(id, f.seen);
      if (f.recheck) recheck.set(id, f.size);
      if (f.bytes !== undefined) read.set(id, f.bytes);
    }
    const removed = [...previous.ids()].filter((id) => !files.has(id));
    return { ok: true, value: { listing: Listing.of(files), recheck, total, read, removed } };
  }

  /**
   * The watched path: only the names the watcher reported since `from` was listed, and the
   * files it marked to read again; every other file is carried from its listing unchanged.
   */
  async function changesSince(from: Remembered, reported: readonly string[]): Promise<ListOutcome> {
    const { icsTotalBytes } = upstreamLimits();
    const names = [
      ...new Set([...reported.filter(isEventFile), ...[...from.recheck.keys()].map((id) => `${id}.ics`)]),
    ];
    names.sort();
    const stats: (Stats | undefined)[] = [];
    for (let i = 0; i < names.length; i += STAT_BATCH)
      stats.push(...(await Promise.all(names.slice(i, i + STAT_BATCH).map(statOf))));
    const changes = new Map<string, Seen | null>();
    const recheck = new Map(from.recheck);
    const read = new Map<string, Uint8Array>();
    const removed: string[] = [];
    const settled = clock.now() - MTIME_SETTLE_MS;
    let total = from.total;
    for (const [i, name] of names.entries()) {
      const id = name.slice(0, -4);
      const before = from.listing.get(id);
      const looked = await look(name, stats[i], before, settled);
      if (!looked.ok) return looked;
      const f = looked.value;
      // What this file counted for before, out of the total (a file read again: its real size).
      if (before !== undefined) total -= before[1] >= 0 ? before[1] : (from.recheck.get(id) ?? 0);
      recheck.delete(id);
      if (f.gone === true) {
        if (before !== undefined) {
          changes.set(id, null);
          removed.push(id);
        }
        continue;
      }
      total += f.size;
      if (f.seen !== before) changes.set(id, f.seen);
      if (f.recheck) recheck.set(id, f.size);
      if (f.bytes !== undefined) read.set(id, f.bytes);
    }
    if (total > icsTotalBytes) return totalTooLarge(icsTotalBytes);
    return { ok: true, value: { listing: from.listing.with(changes), recheck, total, read, removed } };
  }

  /** The directory's identity, undefined when it cannot be stated (the walk then says why). */
  const dirKey = () =>
    stat(dir).then(
      (d) => `${d.dev}:${d.ino}`,
      () => undefined,
    );

  /**
   * What changed since `cursor`: through the watcher when it has watched without a break since
   * this process returned that cursor, by the full walk otherwise (the first sync, a cursor
   * from another process or an earlier run, a watcher that failed, or fullWalkEveryMs passed).
   */
  async function listing(
    cursor: string | undefined,
  ): Promise<(ListOutcome & { previous: Previous }) | "expired"> {
    const from = cursor === undefined ? undefined : remembered.find((r) => r.cursor === cursor);
    let previous: Previous = from?.listing ?? EMPTY;
    if (cursor !== undefined && from === undefined) {
      // An earlier cursor holds versions only: every file is read once and compared.
      const decoded = decodeCursor(cursor);
      if (decoded === undefined) return "expired";
      previous = decoded;
    }
    let at: WatchPosition | undefined;
    let key: string | undefined;
    if (watch?.start() === true) {
      await watch.settle();
      at = watch.position();
      key = await dirKey();
    }
    const t = clock.now();
    const reported =
      from?.at !== undefined &&
      at !== undefined &&
      key !== undefined &&
      key === from.dirKey &&
      t - from.walkedAt < fullWalkEveryMs
        ? watch?.since(from.at)
        : undefined;
    const listed =
      reported !== undefined && from !== undefined
        ? await changesSince(from, reported)
        : await walk(previous);
    deps.observe?.(reported !== undefined ? "watched" : "walked");
    if (listed.ok) {
      const { listing, recheck, total } = listed.value;
      const next: Remembered = {
        cursor: listing.encode(),
        listing,
        recheck,
        total,
        at,
        dirKey: key,
        walkedAt: reported !== undefined && from !== undefined ? from.walkedAt : t,
      };
      remembered = [next, ...remembered.filter((r) => r.listing !== next.listing)].slice(0, REMEMBERED);
      // The log before the oldest position still held is read by no one.
      const oldest = Math.min(
        ...remembered.map((r) => (r.at?.epoch === at?.epoch ? (r.at?.seq ?? 0) : Infinity)),
      );
      if (Number.isFinite(oldest)) watch?.trim(oldest);
    }
    return { ...listed, previous };
  }

  /** The stored version of a file (its bytes' hash), read under the per-file cap. */
  async function current(eventId: string): Promise<string | undefined> {
    try {
      const read = await readFileCapped(fileOf(eventId), upstreamLimits().icsFileBytes);
      // A file over the cap is not read; its size stands in for a version no write will match.
      return read.ok ? version(read.value) : `too-large-${read.error.size}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  async function put(eventId: string, text: string, exclusive: boolean): Promise<void> {
    const tmp = join(dir, `.${eventId}.${process.pid}.${clock.now()}.tmp`);
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
    close() {
      watch?.close();
      remembered = [];
    },
    calendar: {
      async sync(request): Promise<ConnectorResult<CalendarSyncPage, CalendarSyncErrorCode>> {
        const call = "REPORT /";
        let listed: Awaited<ReturnType<typeof listing>>;
        try {
          listed = await listing(request.cursor);
        } catch (e) {
          return failure(
            call,
            "unavailable",
            `the calendar directory cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"})`,
          );
        }
        if (listed === "expired")
          return failure(call, "cursor_expired", "the sync cursor is not one this connector wrote");
        if (!listed.ok)
          return {
            ok: false,
            error: { code: "unavailable", reason: "upstream_too_large", message: listed.error },
            upstream: meta(call, 0),
          };
        const { previous } = listed;
        const versionOf = (seen: Seen | string | undefined): string | undefined =>
          typeof seen === "string" || seen === undefined ? seen : seen[0];
        const { listing: latest, read: fresh, removed } = listed.value;
        const changed = [...fresh].flatMap(([eventId, bytes]) => {
          const v = versionOf(latest.get(eventId));
          return v !== undefined && versionOf(previous.get(eventId)) !== v
            ? [{ eventId, version: v, bytes }]
            : [];
        });
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
        const cursor = latest.encode();
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
        const text = buildEvent(e, clock.now());
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
        const text = buildEvent(e, clock.now());
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
