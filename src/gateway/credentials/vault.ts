/**
 * The token vault: token records sealed with AES-256-GCM (seal.ts) under the key ring from
 * TOKEN_KEYS (key-ring.ts), kept in a SealedStore (file, Redis, memory).
 *
 * Every write seals under the current (first) key, so a record read under an older key is
 * re-encrypted the next time it is written (every refresh writes); `rotate()` re-encrypts
 * every record now, after which the old key can leave TOKEN_KEYS.
 */
import type { KeyRing } from "./key-ring.js";
import { parseTokenRecord, type TokenRecord } from "./record.js";
import { open, seal, VaultOpenError } from "./seal.js";
import type { SealedStore } from "./store.js";

export class TokenVault {
  constructor(
    private readonly ring: KeyRing,
    readonly store: SealedStore,
  ) {}

  /** The host's record, or undefined when it has none. A record that cannot be opened throws. */
  async get(hostId: string): Promise<TokenRecord | undefined> {
    return (await this.read(hostId))?.record;
  }

  async put(hostId: string, record: TokenRecord): Promise<void> {
    await this.store.write(hostId, JSON.stringify(seal(this.ring, hostId, JSON.stringify(record))));
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

  private async read(hostId: string): Promise<{ record: TokenRecord; kid: string } | undefined> {
    const text = await this.store.read(hostId);
    if (text === undefined) return undefined;
    let sealed: unknown;
    try {
      sealed = JSON.parse(text);
    } catch {
      throw new VaultOpenError(hostId, undefined, "not JSON");
    }
    const plaintext = open(this.ring, hostId, sealed);
    const parsed = parseTokenRecord(JSON.parse(plaintext));
    if (!parsed.ok) throw new VaultOpenError(hostId, undefined, `record is malformed: ${parsed.error}`);
    return { record: parsed.value, kid: (sealed as { kid: string }).kid };
  }
}
