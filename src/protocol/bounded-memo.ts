/**
 * A bounded memo for pure functions of strings (decoding and signature checks of the same
 * mandate, presented on every request an agent makes under it). Least recently used entries
 * leave first; the bound keeps a flood of distinct inputs from growing memory.
 */
export class BoundedMemo<V> {
  readonly #entries = new Map<string, V>();

  constructor(readonly max: number) {}

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      // Re-insert: a Map iterates in insertion order, so the oldest use is first.
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): V {
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
    return value;
  }

  get size(): number {
    return this.#entries.size;
  }
}
