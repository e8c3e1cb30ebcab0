/**
 * Sealed Basic credentials (a CalDAV host's username and password), under the same key ring
 * and the same AES-256-GCM sealing as the token vault (../credentials/seal.ts), in a store of
 * their own: a FileSealedStore on `<data dir>/basic` or a RedisSealedStore whose prefix adds
 * `basic:`. Kept apart so the TokenVault's get/rotate never meet a record that is not a grant.
 */
import type { KeyRing } from "../credentials/key-ring.js";
import { parseBasicCredentialRecord, type BasicCredentialRecord } from "../credentials/record.js";
import { open, seal, VaultOpenError } from "../credentials/seal.js";
import type { SealedStore } from "../credentials/store.js";

/** AAD for a Basic record: never valid as a token record of the same host, nor the reverse. */
const aad = (hostId: string): string => `basic:${hostId}`;

export class BasicCredentialVault {
  constructor(
    private readonly ring: KeyRing,
    readonly store: SealedStore,
  ) {}

  async get(hostId: string): Promise<BasicCredentialRecord | undefined> {
    return (await this.read(hostId))?.record;
  }

  async put(hostId: string, record: BasicCredentialRecord): Promise<void> {
    await this.store.write(hostId, JSON.stringify(seal(this.ring, aad(hostId), JSON.stringify(record))));
  }

  async delete(hostId: string): Promise<void> {
    await this.store.delete(hostId);
  }

  async rotate(): Promise<{ readonly rewritten: number; readonly current: number }> {
    let rewritten = 0;
    let current = 0;
    for (const hostId of await this.store.list()) {
      const found = await this.read(hostId);
      if (found === undefined) continue;
      if (found.kid === this.ring.current) current += 1;
      else {
        await this.put(hostId, found.record);
        rewritten += 1;
      }
    }
    return { rewritten, current };
  }

  private async read(hostId: string): Promise<{ record: BasicCredentialRecord; kid: string } | undefined> {
    const text = await this.store.read(hostId);
    if (text === undefined) return undefined;
    let sealed: unknown;
    try {
      sealed = JSON.parse(text);
    } catch {
      throw new VaultOpenError(hostId, undefined, "not JSON");
    }
    const parsed = parseBasicCredentialRecord(JSON.parse(open(this.ring, aad(hostId), sealed)));
    if (!parsed.ok) throw new VaultOpenError(hostId, undefined, `record is malformed: ${parsed.error}`);
    return { record: parsed.value, kid: (sealed as { kid: string }).kid };
  }
}
