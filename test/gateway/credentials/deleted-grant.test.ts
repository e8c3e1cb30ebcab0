/**
 * A grant deleted from the vault (a disconnect, in this process or another sharing the store)
 * stops the host's calls at once: the refresher reads the vault on every call, so a cached,
 * still-valid access token is not handed out again; the answer is `unauthorized`, which the
 * connectors map so host health turns needs_reconnection.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { createTokenProvider, isRevokedGrant } from "../../../src/gateway/credentials/refresher.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";

describe("a grant deleted from the vault", () => {
  it("is unauthorized on the next call, though its access token had an hour left", async () => {
    const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
    if (!ring.ok) throw new Error(ring.error);
    const store = new MemorySealedStore();
    // Two processes sharing one store: each has its own vault object and provider.
    const here = new TokenVault(ring.value, store);
    const there = new TokenVault(ring.value, store);
    const now = Date.parse("2026-12-03T07:00:00Z");
    await here.put("salon", {
      provider: "google",
      accessToken: "ya29.STILL-VALID",
      refreshToken: "1//R",
      expiresAt: now + 3_600_000,
      tokenEndpoint: "https://oauth2.googleapis.com/token",
    });
    const fetchCalls: string[] = [];
    const provider = createTokenProvider({
      hostId: "salon",
      vault: there,
      client: { clientId: "c", clientSecret: "s" },
      clock: { now: () => now },
      fetch: (input) => {
        fetchCalls.push(input instanceof Request ? input.url : input.toString());
        return Promise.reject(new Error("no network in this test"));
      },
    });
    expect(await provider.accessToken()).toBe("ya29.STILL-VALID");
    await here.delete("salon");
    const refused = await provider.accessToken().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isRevokedGrant(refused)).toBe(true);
    expect((refused as Error).message).toContain("has no token record in the vault");
    expect(fetchCalls).toEqual([]);
  });
});
