/**
 * What a gateway start has started, in order: closed last-first, whether the start fails part
 * way (startInOrder) or the running gateway is closed (Started.close). One list, so a feature
 * added to the runtime is closed on every way out without a cleanup block of its own.
 */

export interface Closable {
  close(): Promise<void>;
}

export interface Started {
  /** Adds what was just started (nothing for undefined) and gives it back. */
  add<T extends Closable | undefined>(thing: T): T;
  /**
   * Closes everything added, the last added first. Every close is tried even when one fails;
   * then the failure is thrown (several: an AggregateError of them). Once: later calls get the
   * first call's promise.
   */
  close(): Promise<void>;
}

export function startedList(): Started {
  const things: Closable[] = [];
  let closing: Promise<void> | undefined;
  return {
    add(thing) {
      if (closing !== undefined) throw new Error("started list already closed");
      if (thing !== undefined) things.push(thing);
      return thing;
    },
    close: () =>
      (closing ??= (async () => {
        const failures: unknown[] = [];
        for (const thing of things.reverse()) {
          try {
            await thing.close();
          } catch (e) {
            failures.push(e);
          }
        }
        if (failures.length === 1) throw failures[0];
        if (failures.length > 1) throw new AggregateError(failures, "closing the gateway failed");
      })()),
  };
}

/**
 * Runs `start` with a fresh list. When it throws, everything it added is closed (last first)
 * and its error is thrown again; a close failing then is given to `onCloseError`, never in
 * place of the start's own error.
 */
export async function startInOrder<T>(
  start: (started: Started) => Promise<T>,
  onCloseError: (e: unknown) => void = () => undefined,
): Promise<T> {
  const started = startedList();
  try {
    return await start(started);
  } catch (e) {
    await started.close().catch(onCloseError);
    throw e;
  }
}
