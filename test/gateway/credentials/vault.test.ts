/** The token vault: AES-256-GCM at rest, bound to its host, keys rotated from TOKEN_KEYS. */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseKeyRing, type KeyRing } from "../../../src/gateway/credentials/key-ring.js";
import type { TokenRecord } from "../../../src/gateway/credentials/record.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";

const k = () => randomBytes(32).toString("base64");
const ring = (spec: string): KeyRing => {
  const r = parseKeyRing(spec);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};
const RECORD: TokenRecord = {
  provider: "google",
  accessToken: "ya29.PLAINTEXT-ACCESS-must-not-be-at-rest",
  refreshToken: "1//PLAINTEXT-REFRESH-must-not-be-at-rest",
  expiresAt: Date.parse("2026-12-03T08:00:00Z"),
  scope: "https://www.googleapis.com/auth/calendar.events",
  tokenEndpoint: "https://oauth2.googleapis.com/token",
};

describe("token vault", () => {
  it("round-trips a record and keeps no plaintext at rest", async () => {
    const store = new MemorySealedStore();
    const vault = new TokenVault(ring(`k1:${k()}`), store);
    await vault.put("salon", RECORD);
    expect(await vault.get("salon")).toEqual(RECORD);
    expect(await vault.get("other")).toBeUndefined();
    const atRest = store.records.get("salon") ?? "";
    expect(atRest).not.toContain("PLAINTEXT");
    expect(atRest).not.toContain("oauth2.googleapis.com");
    const sealed = JSON.parse(atRest) as Record<string, string>;
    expect(Object.keys(sealed).sort()).toEqual(["ct", "iv", "kid", "tag", "v"]);
    expect(sealed["kid"]).toBe("k1");
    expect(Buffer.from(sealed["iv"] ?? "", "base64url")).toHaveLength(12);
  });

  it("uses a fresh IV on every write", async () => {
    const store = new MemorySealedStore();
    const vault = new TokenVault(ring(`k1:${k()}`), store);
    await vault.put("salon", RECORD);
    const first = JSON.parse(store.records.get("salon") ?? "") as { iv: string; ct: string };
    await vault.put("salon", RECORD);
    const second = JSON.parse(store.records.get("salon") ?? "") as { iv: string; ct: string };
    expect(second.iv).not.toBe(first.iv);
    expect(second.ct).not.toBe(first.ct);
  });

  describe("refuses a tampered record", () => {
    const flip = (b64: string): string => {
      const bytes = Buffer.from(b64, "base64url");
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      return bytes.toString("base64url");
    };
    for (const member of ["ct", "iv", "tag"] as const) {
      it(`a changed ${member}`, async () => {
        const store = new MemorySealedStore();
        const vault = new TokenVault(ring(`k1:${k()}`), store);
        await vault.put("salon", RECORD);
        const sealed = JSON.parse(store.records.get("salon") ?? "") as Record<string, string>;
        sealed[member] = flip(sealed[member] ?? "");
        store.records.set("salon", JSON.stringify(sealed));
        const error = await vault.get("salon").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toMatch(/host "salon".*authentication failed|wrong length/);
        expect((error as Error).message).not.toContain("PLAINTEXT");
      });
    }

    it("another host's record copied under this host's name (the host id is AAD)", async () => {
      const store = new MemorySealedStore();
      const vault = new TokenVault(ring(`k1:${k()}`), store);
      await vault.put("salon", RECORD);
      await vault.put("barber", { ...RECORD, accessToken: "ya29.barber" });
      store.records.set("barber", store.records.get("salon") ?? "");
      await expect(vault.get("barber")).rejects.toThrow(/host "barber".*another host's record/);
      expect((await vault.get("salon"))?.accessToken).toBe(RECORD.accessToken);
    });

    it("a key id relabelled to another key of the ring", async () => {
      const store = new MemorySealedStore();
      const vault = new TokenVault(ring(`k2:${k()},k1:${k()}`), store);
      await vault.put("salon", RECORD);
      const sealed = JSON.parse(store.records.get("salon") ?? "") as Record<string, string>;
      store.records.set("salon", JSON.stringify({ ...sealed, kid: "k1" }));
      await expect(vault.get("salon")).rejects.toThrow(/authentication failed/);
    });
  });

  describe("rotation", () => {
    it("reads records under an old key, re-encrypts them on their next write, and rotate() does all", async () => {
      const old = k();
      const store = new MemorySealedStore();
      await new TokenVault(ring(`k1:${old}`), store).put("salon", RECORD);
      await new TokenVault(ring(`k1:${old}`), store).put("barber", RECORD);
      const fresh = k();
      const rotated = new TokenVault(ring(`k2:${fresh},k1:${old}`), store);
      const kidOf = (host: string) => (JSON.parse(store.records.get(host) ?? "") as { kid: string }).kid;

      expect(await rotated.get("salon")).toEqual(RECORD);
      expect(kidOf("salon")).toBe("k1");
      await rotated.put("salon", { ...RECORD, accessToken: "ya29.next" });
      expect(kidOf("salon")).toBe("k2");

      expect(await rotated.rotate()).toEqual({ rewritten: 1, current: 1 });
      expect(kidOf("barber")).toBe("k2");
      // The old key can now leave TOKEN_KEYS.
      const newOnly = new TokenVault(ring(`k2:${fresh}`), store);
      expect((await newOnly.get("barber"))?.refreshToken).toBe(RECORD.refreshToken);
    });

    it("a record under a key no longer in TOKEN_KEYS is an error naming the key id", async () => {
      const store = new MemorySealedStore();
      await new TokenVault(ring(`k1:${k()}`), store).put("salon", RECORD);
      await expect(new TokenVault(ring(`k2:${k()}`), store).get("salon")).rejects.toThrow(
        /key id "k1" is not in TOKEN_KEYS/,
      );
    });
  });
});

describe("TOKEN_KEYS", () => {
  const secret = randomBytes(16).toString("base64");
  const cases: [string | undefined, RegExp][] = [
    [undefined, /^TOKEN_KEYS is not set/],
    ["", /^TOKEN_KEYS is not set/],
    [`k1${secret}`, /^TOKEN_KEYS: entry 1 must be "kid:base64key"/],
    [`k1:${secret}`, /^TOKEN_KEYS: key "k1" must be 32 bytes, got 16/],
    [`k1:not base64!!`, /^TOKEN_KEYS: key "k1" is not base64/],
    [`k1:${k()},k1:${k()}`, /^TOKEN_KEYS: key id "k1" is given twice/],
    [`bad id:${k()}`, /^TOKEN_KEYS: entry 1: the key id/],
  ];
  for (const [value, message] of cases) {
    it(`refuses ${JSON.stringify(value)?.slice(0, 12) ?? "unset"}… with a message naming the variable, never the key`, () => {
      const r = parseKeyRing(value);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error).toMatch(message);
      expect(r.error).not.toContain(secret);
    });
  }

  it("takes the first key as current and keeps all for reading", () => {
    const r = ring(`new:${k()}, old:${k()}`);
    expect(r.current).toBe("new");
    expect(r.ids).toEqual(["new", "old"]);
    expect(r.key("old")).toHaveLength(32);
  });
});
