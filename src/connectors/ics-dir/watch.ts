/**
 * The calendar directory's change notifications (fs.watch: inotify on Linux), kept as a log of
 * the file names reported, so a sync can stat and read only the names reported since the
 * listing it starts from instead of every file (connector.ts).
 *
 * A position in the log is { epoch, seq }. The epoch changes whenever the notifications stop
 * being trustworthy: the watcher errors or closes, an event comes without a file name, the
 * directory itself is moved or deleted (inotify reports it under the directory's own name), or
 * the log outgrows its cap. A position from an earlier epoch answers nothing: the caller falls
 * back to stating every file.
 *
 * What this cannot see, and why the connector still stats every file now and then: Node's
 * fs.watch does not report an inotify queue overflow (IN_Q_OVERFLOW: events dropped, silently
 * for us), nor changes that never pass through this kernel (a network file system written by
 * another machine, a FUSE mount that sends no notifications). The connector's periodic full
 * walk (IcsDirSettings.fullWalkEveryMs) is what bounds how long such a missed change is unseen.
 *
 * Delivery: inotify queues an event within the write or rename system call, but this process
 * reads the queue only in the event loop's poll phase. `settle()` lets two loop turns pass, so
 * every event queued before it was called has been read (one turn could be the turn whose poll
 * already ran). Platforms whose notifications arrive later (macOS FSEvents batches them) get no
 * such guarantee: the connector uses the watcher on Linux only, unless told otherwise.
 */
import { watch as fsWatch, type FSWatcher } from "node:fs";
import { basename } from "node:path";

export interface WatchPosition {
  readonly epoch: number;
  readonly seq: number;
}

export type WatchFn = (dir: string, listener: (event: string, name: string | null) => void) => FSWatcher;

const defaultWatch: WatchFn = (dir, listener) =>
  fsWatch(dir, { persistent: false, encoding: "utf8" }, (event, name) => listener(event, name));

/** More names than this unread: the log is dropped and the next sync stats every file. */
const MAX_LOG = 50_000;

export class DirWatch {
  readonly #dir: string;
  readonly #self: string;
  readonly #watchFn: WatchFn;
  #watcher: FSWatcher | undefined;
  #epoch = 0;
  /** log[i] is the name with sequence number base + i + 1. */
  #log: string[] = [];
  #base = 0;
  #closed = false;

  constructor(dir: string, watchFn: WatchFn = defaultWatch) {
    this.#dir = dir;
    this.#self = basename(dir);
    this.#watchFn = watchFn;
  }

  /** Watches the directory if nothing watches it now; false when it cannot be watched. */
  start(): boolean {
    if (this.#closed) return false;
    if (this.#watcher !== undefined) return true;
    let w: FSWatcher | undefined;
    try {
      w = this.#watchFn(this.#dir, (event, name) => {
        if (w !== undefined) this.#event(w, event, name);
      });
    } catch {
      return false;
    }
    // Never keeps the process alive (CalendarConnector has no close hook the runtime calls).
    w.unref();
    const watcher = w;
    w.on("error", () => this.#lost(watcher));
    w.on("close", () => this.#lost(watcher));
    this.#watcher = w;
    this.#reset();
    return true;
  }

  /** The position now, or undefined while nothing watches (every sync stats every file). */
  position(): WatchPosition | undefined {
    return this.#watcher === undefined
      ? undefined
      : { epoch: this.#epoch, seq: this.#base + this.#log.length };
  }

  /** The names reported since `from`, or undefined when the log since then cannot be trusted. */
  since(from: WatchPosition): readonly string[] | undefined {
    if (this.#watcher === undefined || from.epoch !== this.#epoch || from.seq < this.#base) return undefined;
    return this.#log.slice(from.seq - this.#base);
  }

  /** Forgets the names before `seq` (no position the caller still holds is older). */
  trim(seq: number): void {
    if (seq <= this.#base) return;
    const drop = Math.min(seq - this.#base, this.#log.length);
    this.#log = this.#log.slice(drop);
    this.#base += drop;
  }

  /** Lets the events already queued by the kernel reach the log (see the header). */
  async settle(): Promise<void> {
    if (this.#watcher === undefined) return;
    await new Promise<void>((r) => setImmediate(r));
    await new Promise<void>((r) => setImmediate(r));
  }

  close(): void {
    this.#closed = true;
    const w = this.#watcher;
    this.#watcher = undefined;
    this.#reset();
    w?.close();
  }

  #event(w: FSWatcher, _event: string, name: string | null): void {
    if (w !== this.#watcher) return;
    // No name: something changed and we cannot say what. The directory's own name: it was
    // moved or deleted, and the watch now follows an inode that is no longer the path.
    if (name === null || name === "" || name === this.#self) return this.#lost(w);
    if (this.#log.length >= MAX_LOG) return this.#reset();
    this.#log.push(name);
  }

  /** The watcher cannot be trusted any more: a new epoch, and a new watcher at the next start(). */
  #lost(w: FSWatcher): void {
    if (w !== this.#watcher) return;
    this.#watcher = undefined;
    this.#reset();
    try {
      w.close();
    } catch {
      // Closing a watcher that failed: nothing more to do.
    }
  }

  #reset(): void {
    this.#epoch++;
    this.#base += this.#log.length;
    this.#log = [];
  }
}
