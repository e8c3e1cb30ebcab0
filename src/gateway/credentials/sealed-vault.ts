/**
 * One vault of sealed records per host (seal.ts: AES-256-GCM under the key ring), whatever the
 * record: OAuth grants (vault.ts TokenVault) and Basic credentials (connect/basic-vault.ts).
 *
 * Every write seals under the current (first) key, so a record read under an older key is
 * re-encrypted the next time it is written; `rotate()` re-encrypts every record now, after
 * which the old key can leave TOKEN_KEYS. `aad` binds a record to its host and kind, so one
 * cannot be copied over another host's, or read as the other kind.
 */
import type { Result } from "../../protocol/result.js";
import type { KeyRing } from "./key-ring.js";
import { open, seal, VaultOpenError } from "./seal.js";
import type { SealedStore } from "./store.js";

export interface RecordKind<R> {
  readonly parse: (value: unknown) => Result<R, string>;
  readonly aad: (hostId: string) => string;
}

export class SealedVault<R> {
  constructor(
    private readonly ring: KeyRing,
    readonly store: SealedStore,
    private readonly kind: RecordKind<R>,
  ) {}

  /** The host's record, or undefined when it has none. A record that cannot be opened throws. */
  async get(hostId: string): Promise<R | undefined> {
    return (await this.read(hostId))?.record;
  }

  async put(hostId: string, record: R): Promise<void> {
    const sealed = seal(this.ring, this.kind.aad(hostId), JSON.stringify(record));
    await this.store.write(hostId, JSON.stringify(sealed));
  }

  async delete(hostId: string): Promise<void> {
    await this.store.delete(hostId);
  }

  /** Re-encrypts every record not under the current key; answers how many were rewritten. */
  async rotate(): Promise<{ readonly rewritten: number; readonly current: number }> {
    let rewritten = 0;
    let current = 0;
    for (const hostId of await this.store.list()) {
      const found = await this.read(hostId);
      if (found === undefined) continue;
      if (found.kid === this.ring.current) {
        current += 1;
        continue;
      }
      await this.put(hostId, found.record);
      rewritten += 1;
    }
    return { rewritten, current };
  }

  private async read(hostId: string): Promise<{ record: R; kid: string } | undefined> {
    const text = await this.store.read(hostId);
    if (text === undefined) return undefined;
    let sealed: unknown;
    try {
      sealed = JSON.parse(text);
    } catch {
      throw new VaultOpenError(hostId, undefined, "not JSON");
    }
    const parsed = this.kind.parse(JSON.parse(open(this.ring, this.kind.aad(hostId), sealed)));
    if (!parsed.ok) throw new VaultOpenError(hostId, undefined, `record is malformed: ${parsed.error}`);
    return { record: parsed.value, kid: (sealed as { kid: string }).kid };
  }
}
