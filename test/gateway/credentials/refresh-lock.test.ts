/**
 * The refresher with a cross-process refresh lock, on one shared in-memory store:
 * providers that each own a vault object stand for gateway processes. The token endpoint
 * accepts each refresh token once, as Square's and Microsoft's rotating grants do.
 */
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openVaultFromEnv } from "../../../src/gateway/cli/credentials.js";
import { FileSealedStore } from "../../../src/gateway/credentials/file-store.js";
import { vaultHostTokens } from "../../../src/gateway/credentials/host-tokens.js";
import {
  FileRefreshLock,
  MemoryRefreshLock,
  type RefreshLock,
} from "../../../src/gateway/credentials/refresh-lock.js";
import {
  createTokenProvider,
  TokenUnavailableError,
  type TokenProviderOptions,
} from "../../../src/gateway/credentials/refresher.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import { lineLogger, rotatingEndpoint, testRing } from "../../support/rotating-token-endpoint.js";

const NOW = Date.parse("2026-12-03T07:00:00Z");

function world() {
  const ring = testRing();
  const store = new MemorySealedStore();
  const endpoint = rotatingEndpoint({ now: () => NOW });
  const vault = new TokenVault(ring, store);
  const log = lineLogger();
  const process = (lock: RefreshLock | undefined, more: Partial<TokenProviderOptions> = {}) =>
    createTokenProvider({
      hostId: "salon",
      vault: new TokenVault(ring, store),
      client: { clientId: "c", clientSecret: "s" },
      fetch: endpoint.fetch,
      clock: { now: () => NOW },
      logger: log.logger,
      lockPollMs: 20,
      lockWaitMs: 400,
      ...(lock !== undefined && { refreshLock: lock }),
      ...more,
    });
  return { vault, endpoint, log, process, put: () => vault.put("salon", endpoint.initial(NOW)) };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe("refresh under a cross-process lock", () => {
  it("two processes due at once: one refresh, the same new token, no unauthorized", async () => {
    const w = world();
    await w.put();
    const lock = new MemoryRefreshLock();
    const [a, b] = [w.process(lock), w.process(lock)];
    expect(await Promise.all([a.accessToken(), b.accessToken()])).toEqual(["ACCESS-1", "ACCESS-1"]);
    expect(w.endpoint.calls).toEqual(["REFRESH-0"]);
    expect(lock.granted).toBe(1);
    expect((await w.vault.get("salon"))?.refreshToken).toBe("REFRESH-1");
  });

  it("without a lock the same race spends the grant twice (what the lock prevents)", async () => {
    const w = world();
    await w.put();
    const [a, b] = [w.process(undefined), w.process(undefined)];
    const got = await Promise.allSettled([a.accessToken(), b.accessToken()]);
    expect(w.endpoint.calls).toEqual(["REFRESH-0", "REFRESH-0"]);
    expect(
      got.some((r) => r.status === "rejected" && (r.reason as TokenUnavailableError).code === "unauthorized"),
    ).toBe(true);
  });

  it("releases the lock only after the new grant is in the vault", async () => {
    const w = world();
    await w.put();
    const events: string[] = [];
    const inner = new MemoryRefreshLock();
    const lock: RefreshLock = {
      acquire: async (hostId, ttl) => {
        const release = await inner.acquire(hostId, ttl);
        events.push(release === undefined ? "busy" : "acquired");
        return (
          release &&
          (async () => {
            events.push(`released; vault holds ${(await w.vault.get("salon"))?.accessToken}`);
            await release();
          })
        );
      },
    };
    expect(await w.process(lock).accessToken()).toBe("ACCESS-1");
    expect(events).toEqual(["acquired", "released; vault holds ACCESS-1"]);
  });

  it("while another process holds the lock, uses the token that process writes", async () => {
    const w = world();
    await w.put();
    const lock = new MemoryRefreshLock();
    const elsewhere = await lock.acquire("salon", 10_000);
    const waiting = w.process(lock).accessToken();
    await new Promise((r) => setTimeout(r, 60));
    await w.vault.put("salon", {
      ...w.endpoint.initial(NOW),
      accessToken: "ACCESS-ELSEWHERE",
      expiresAt: NOW + 3_600_000,
    });
    expect(await waiting).toBe("ACCESS-ELSEWHERE");
    expect(w.endpoint.calls).toEqual([]);
    await elsewhere?.();
  });

  it("a holder that gives up without a new grant: the waiter takes the lock and refreshes", async () => {
    const w = world();
    await w.put();
    const lock = new MemoryRefreshLock();
    const elsewhere = await lock.acquire("salon", 10_000);
    const waiting = w.process(lock).accessToken();
    await new Promise((r) => setTimeout(r, 60));
    await elsewhere?.();
    expect(await waiting).toBe("ACCESS-1");
    expect(w.endpoint.calls).toEqual(["REFRESH-0"]);
  });

  it("the wait runs out: the current token while it has not expired, logged, never a refresh", async () => {
    const w = world();
    await w.put(); // expires in a minute: due (5-minute margin) but usable
    const lock = new MemoryRefreshLock();
    const elsewhere = await lock.acquire("salon", 10_000);
    expect(await w.process(lock).accessToken()).toBe("ACCESS-0");
    expect(w.endpoint.calls).toEqual([]);
    expect(w.log.lines.some((l) => l.includes("cross-process refresh lock") && l.includes('"warn"'))).toBe(
      true,
    );
    await elsewhere?.();
  });

  it("the wait runs out on an expired token: unavailable (transient), not unauthorized", async () => {
    const w = world();
    await w.vault.put("salon", { ...w.endpoint.initial(NOW), expiresAt: NOW - 1 });
    const lock = new MemoryRefreshLock();
    const elsewhere = await lock.acquire("salon", 10_000);
    const e = await failure(w.process(lock).accessToken());
    expect(e).toBeInstanceOf(TokenUnavailableError);
    expect((e as TokenUnavailableError).code).toBe("unavailable");
    expect(w.endpoint.calls).toEqual([]);
    await elsewhere?.();
  });

  it("a lock that cannot be taken (its store is down) never leads to a refresh without it", async () => {
    const w = world();
    await w.vault.put("salon", { ...w.endpoint.initial(NOW), expiresAt: NOW - 1 });
    const broken: RefreshLock = { acquire: () => Promise.reject(new Error("connection refused")) };
    const e = await failure(w.process(broken).accessToken());
    expect((e as TokenUnavailableError).code).toBe("unavailable");
    expect(w.endpoint.calls).toEqual([]);
  });

  it("a grant refused for good under the lock is still unauthorized, and the lock is freed", async () => {
    const w = world();
    await w.vault.put("salon", { ...w.endpoint.initial(NOW), refreshToken: "REFRESH-REVOKED" });
    const lock = new MemoryRefreshLock();
    const e = await failure(w.process(lock).accessToken());
    expect((e as TokenUnavailableError).code).toBe("unauthorized");
    expect(w.log.lines.some((l) => l.includes("refused for good"))).toBe(true);
    expect(await lock.acquire("salon", 1_000)).toBeTypeOf("function");
  });
});

describe("the lock file (vault in the data directory)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gw-refresh-lock-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is exclusive, released by its holder only, and taken over once older than its TTL", async () => {
    const a = new FileRefreshLock(dir);
    const b = new FileRefreshLock(dir);
    const releaseA = await a.acquire("salon", 5_000);
    expect(releaseA).toBeTypeOf("function");
    expect(await b.acquire("salon", 5_000)).toBeUndefined();
    expect(await b.acquire("studio", 5_000)).toBeTypeOf("function"); // per host
    await releaseA?.();
    const releaseB = await b.acquire("salon", 5_000);
    expect(releaseB).toBeTypeOf("function");

    // B's process dies holding it: older than the TTL, A takes it over...
    const old = new Date(Date.now() - 10_000);
    await utimes(b.path("salon"), old, old);
    const releaseA2 = await a.acquire("salon", 5_000);
    expect(releaseA2).toBeTypeOf("function");
    // ...and B's late release does not free A's lock.
    await releaseB?.();
    expect(await b.acquire("salon", 5_000)).toBeUndefined();
    await releaseA2?.();
  });

  it("is a dot file beside the records, not listed as a host", async () => {
    const lock = new FileRefreshLock(dir);
    const release = await lock.acquire("salon", 5_000);
    await writeFile(join(dir, "credentials", "salon.json"), "{}");
    expect(await new FileSealedStore(dir).list()).toEqual(["salon"]);
    await release?.();
  });
});

describe("wiring", () => {
  it("a vault host's provider refreshes only under the credentials' lock", async () => {
    const w = world();
    await w.vault.put("salon", { ...w.endpoint.initial(NOW), expiresAt: NOW - 1 });
    const lock = new MemoryRefreshLock();
    const elsewhere = await lock.acquire("salon", 10_000);
    const tokens = vaultHostTokens(
      "salon",
      { credentials: "vault", clientId: "c", clientSecretEnv: "SQUARE_SECRET" },
      (inner) => `/hosts/0/connector/settings${inner}`,
      {
        // A short wait for the other holder: the default's 5 s would be the whole test's time.
        credentials: {
          vault: w.vault,
          refreshLock: lock,
          refreshLockWaitMs: 300,
          env: { SQUARE_SECRET: "s" },
        },
        fetch: w.endpoint.fetch,
        clock: { now: () => NOW },
      },
    );
    if (!tokens.ok) throw new Error(tokens.error.message);
    const e = await failure(tokens.value.accessToken());
    expect((e as TokenUnavailableError).code).toBe("unavailable");
    expect(w.endpoint.calls).toEqual([]);
    await elsewhere?.();
    expect(await tokens.value.accessToken()).toBe("ACCESS-1");
  });

  it("the vault in the data directory comes with the lock file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-refresh-wiring-"));
    try {
      const opened = openVaultFromEnv({ TOKEN_KEYS: `k1:${"A".repeat(43)}=` }, { dataDir: dir });
      if (!opened.ok || opened.value === undefined) throw new Error("no vault");
      expect(opened.value.refreshLock).toBeInstanceOf(FileRefreshLock);
      expect((opened.value.refreshLock as FileRefreshLock).dir).toBe(join(dir, "credentials"));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
