import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  issueApprovalToken,
  MemoryLinkUseStore,
  readApprovalToken,
  RedisLinkUseStore,
} from "../../../src/booking/approval/links.js";
import { startTestRedis, uniquePrefix } from "../../support/redis.js";
import { Redis } from "ioredis";

const secret = randomBytes(32);
const now = Date.parse("2026-12-03T10:00:00Z");
const claims = { hostId: "h1", bookingId: "b_1", expiresAt: now + 2 * 3_600_000 };

describe("approval link tokens: signed, expiring, single-use", () => {
  it("round-trips host, booking and expiry", () => {
    const read = readApprovalToken(secret, issueApprovalToken(secret, claims), now);
    expect(read.ok && read.value).toMatchObject({
      hostId: "h1",
      bookingId: "b_1",
      expiresAt: claims.expiresAt,
    });
  });

  it("refuses a token signed with another secret, or edited", () => {
    const token = issueApprovalToken(secret, claims);
    expect(readApprovalToken(randomBytes(32), token, now)).toEqual({ ok: false, error: "bad_signature" });
    const [payload, mac] = token.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ h: "h1", b: "b_2", x: 9e9, n: "x" })).toString("base64url");
    expect(readApprovalToken(secret, `${forged}.${mac}`, now)).toEqual({ ok: false, error: "bad_signature" });
    const flipped = `${payload}.${mac.startsWith("A") ? "B" : "A"}${mac.slice(1)}`;
    expect(readApprovalToken(secret, flipped, now)).toEqual({ ok: false, error: "bad_signature" });
    // The last character carries two unused bits: a non-canonical spelling of the same MAC is
    // refused too, so a token has exactly one valid form.
    const last = mac.at(-1) ?? "A";
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const twin = alphabet[alphabet.indexOf(last) ^ 1] ?? "A";
    const noncanonical = `${payload}.${mac.slice(0, -1)}${twin}`;
    expect(readApprovalToken(secret, noncanonical, now)).toEqual({ ok: false, error: "bad_signature" });
  });

  it("refuses an expired token and malformed ones", () => {
    const token = issueApprovalToken(secret, claims);
    expect(readApprovalToken(secret, token, claims.expiresAt)).toEqual({ ok: false, error: "expired" });
    for (const bad of ["", "abc", "a.b.c", `${"x".repeat(20)}.short`, "../../etc/passwd.x"]) {
      expect(readApprovalToken(secret, bad, now)).toEqual({ ok: false, error: "malformed" });
    }
  });

  it("two links for one booking differ (each has its own nonce)", () => {
    expect(issueApprovalToken(secret, claims)).not.toBe(issueApprovalToken(secret, claims));
  });

  it("a nonce is consumed once (memory)", async () => {
    const uses = new MemoryLinkUseStore({ now: () => now });
    expect(await uses.consume("n1", claims.expiresAt)).toBe(true);
    expect(await uses.consume("n1", claims.expiresAt)).toBe(false);
    expect(await uses.consume("n2", claims.expiresAt)).toBe(true);
  });

  it("a nonce is consumed once across clients (Redis SET NX)", async () => {
    const server = await startTestRedis();
    const a = new Redis(server.url);
    const b = new Redis(server.url);
    try {
      const prefix = uniquePrefix("links");
      const ua = new RedisLinkUseStore(a, prefix, { now: () => now });
      const ub = new RedisLinkUseStore(b, prefix, { now: () => now });
      const results = await Promise.all([
        ua.consume("n1", claims.expiresAt),
        ub.consume("n1", claims.expiresAt),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await a.pttl(`${prefix}approval-link:n1`)).toBeGreaterThan(0);
      await a.del(`${prefix}approval-link:n1`);
    } finally {
      a.disconnect();
      b.disconnect();
      await server.stop();
    }
  });
});
