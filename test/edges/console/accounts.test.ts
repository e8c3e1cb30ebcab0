/**
 * Owner accounts against the memory twin, the data-directory file and a real Redis
 * (REDIS_URL, this run's own prefix): scrypt hashes record their parameters and verify in
 * constant time; an invitation link works once, not after 72 h, and is kept only as a hash;
 * sign-in answers the same for an unknown email and a wrong password; a disabled account
 * signs in no more; sessions remember which owner signed in.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RedisClient } from "../../../src/redis/client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hashPassword,
  passwordProblem,
  verifyPassword,
} from "../../../src/edges/console/accounts-password.js";
import {
  FileOwnerAccountStore,
  MemoryOwnerAccountStore,
  RedisOwnerAccountStore,
} from "../../../src/edges/console/accounts-stores.js";
import {
  INVITATION_TTL_MS,
  OwnerAccounts,
  type OwnerAccountStore,
} from "../../../src/edges/console/accounts.js";
import {
  MemorySessionStore,
  RedisSessionStore,
  Sessions,
  viewerOf,
} from "../../../src/edges/console/sessions.js";
import { connectClient, createClient } from "../../../src/redis/connection.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../../support/redis.js";

/** Cheap for tests; the parameters travel in the hash, so verification follows them. */
const FAST = { N: 1024, r: 8, p: 1 };
const PASSWORD = "correct horse battery";

let redis: TestRedis;
let client: RedisClient;
let dir: string;
const prefix = uniquePrefix("owners");
const sub = () => `${prefix}${Math.random().toString(36).slice(2)}:`;

beforeAll(async () => {
  redis = await startTestRedis();
  client = createClient({ url: redis.url });
  await connectClient(client, redis.url);
  dir = await mkdtemp(join(tmpdir(), "gw-owners-"));
});
afterAll(async () => {
  await dropPrefix(client, prefix);
  await client.quit();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("passwords", () => {
  it("scrypt with a fresh salt per hash, parameters in the string; wrong or tampered never verifies", async () => {
    const a = await hashPassword(PASSWORD, FAST);
    const b = await hashPassword(PASSWORD, FAST);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, a)).toBe(true);
    expect(await verifyPassword(PASSWORD, b)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
    // The stored parameters are what verification uses: changing N changes the key.
    expect(await verifyPassword(PASSWORD, a.replace("$1024$", "$2048$"))).toBe(false);
    // A record naming an absurd cost is refused without running it.
    expect(await verifyPassword(PASSWORD, a.replace("$1024$", `$${2 ** 30}$`))).toBe(false);
    expect(await verifyPassword(PASSWORD, "plain")).toBe(false);
  });

  it("the default cost is recorded too", async () => {
    const h = await hashPassword(PASSWORD);
    expect(h.startsWith("scrypt$32768$8$3$")).toBe(true);
    expect(await verifyPassword(PASSWORD, h)).toBe(true);
  });

  it("a new password is at least 12 characters and confirmed", () => {
    expect(passwordProblem("short", "short")).toMatch(/at least 12/);
    expect(passwordProblem("twelve chars", "twelve charz")).toMatch(/not the same/);
    expect(passwordProblem("twelve chars", "twelve chars")).toBeUndefined();
  });
});

type Made = { store: OwnerAccountStore; atRest: () => Promise<string>; reopen: () => OwnerAccountStore };

describe.each([
  [
    "memory",
    (): Made => {
      const store = new MemoryOwnerAccountStore();
      return { store, atRest: () => Promise.resolve(""), reopen: () => store };
    },
  ],
  [
    "file",
    (): Made => {
      const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
      return {
        store: new FileOwnerAccountStore(path),
        atRest: () => readFile(path, "utf8"),
        reopen: () => new FileOwnerAccountStore(path),
      };
    },
  ],
  [
    "redis",
    (): Made => {
      const at = sub();
      return {
        store: new RedisOwnerAccountStore(client, at),
        atRest: async () => {
          const keys = await client.keys(`${at}*`);
          const values = await Promise.all(
            keys.map(async (k) => ((await client.type(k)) === "string" ? await client.get(k) : "")),
          );
          return JSON.stringify([keys, values]);
        },
        reopen: () => new RedisOwnerAccountStore(client, at),
      };
    },
  ],
] as Array<[string, () => Made]>)("%s owner accounts", (name, make) => {
  it("an invitation: looked at freely, used once, then the owner signs in with email and password", async () => {
    let now = 1_000_000;
    const { store, atRest, reopen } = make();
    const accounts = new OwnerAccounts(store, { now: () => now }, FAST);
    const inv = await accounts.invite("  Ana@Example.COM ");
    if (!inv.ok) throw new Error(inv.error);
    expect(inv.value.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(inv.value.account.email).toBe("ana@example.com");
    expect(inv.value.account.passwordHash).toBeUndefined();
    expect(inv.value.expiresAt).toBe(now + INVITATION_TTL_MS);
    // Not signed up yet: no sign-in.
    expect(await accounts.signIn("ana@example.com", PASSWORD)).toBeUndefined();
    expect(await accounts.active(inv.value.account.ownerId)).toBe(false);

    expect(await accounts.invitation(inv.value.token)).toMatchObject({ email: "ana@example.com" });
    expect(await accounts.invitation(inv.value.token)).toBeDefined();
    now += 60_000;
    const accepted = await accounts.accept(inv.value.token, PASSWORD);
    expect(accepted?.ownerId).toBe(inv.value.account.ownerId);
    expect(await accounts.invitation(inv.value.token)).toBeUndefined();
    expect(await accounts.accept(inv.value.token, "another password!")).toBeUndefined();

    expect((await accounts.signIn("ANA@example.com", PASSWORD))?.ownerId).toBe(inv.value.account.ownerId);
    expect(await accounts.signIn("ana@example.com", "wrong password!")).toBeUndefined();
    expect(await accounts.signIn("bob@example.com", PASSWORD)).toBeUndefined();
    expect(await accounts.signIn("not an email", PASSWORD)).toBeUndefined();
    expect(await accounts.active(inv.value.account.ownerId)).toBe(true);

    if (name !== "memory") {
      // At rest: neither the link's token nor the password.
      const raw = await atRest();
      expect(raw).toContain("ana@example.com");
      expect(raw).not.toContain(inv.value.token);
      expect(raw).not.toContain(PASSWORD);
      // Another process (or a restart) reading the same store signs the owner in.
      const again = new OwnerAccounts(reopen(), { now: () => now }, FAST);
      expect((await again.signIn("ana@example.com", PASSWORD))?.ownerId).toBe(inv.value.account.ownerId);
    }
  });

  it("a link is refused after 72 hours; a new one for the same email keeps the account", async () => {
    let now = 5_000_000;
    const accounts = new OwnerAccounts(make().store, { now: () => now }, FAST);
    const first = await accounts.invite("bo@example.com");
    if (!first.ok) throw new Error(first.error);
    now += INVITATION_TTL_MS;
    expect(await accounts.invitation(first.value.token)).toBeUndefined();
    expect(await accounts.accept(first.value.token, PASSWORD)).toBeUndefined();
    const second = await accounts.invite("BO@example.com");
    if (!second.ok) throw new Error(second.error);
    expect(second.value.account.ownerId).toBe(first.value.account.ownerId);
    expect(second.value.token).not.toBe(first.value.token);
    expect((await accounts.accept(second.value.token, PASSWORD))?.ownerId).toBe(first.value.account.ownerId);
    expect(await accounts.list()).toHaveLength(1);
  });

  it("of two concurrent uses of one link, exactly one succeeds", async () => {
    const accounts = new OwnerAccounts(make().store, { now: () => 1 }, FAST);
    const inv = await accounts.invite("cy@example.com");
    if (!inv.ok) throw new Error(inv.error);
    const results = await Promise.all([
      accounts.accept(inv.value.token, "first password!"),
      accounts.accept(inv.value.token, "second password!"),
      accounts.accept(inv.value.token, "third password!!"),
    ]);
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
  });

  it("a disabled account signs in no more, and is refused a new invitation until enabled", async () => {
    const accounts = new OwnerAccounts(make().store, { now: () => 1 }, FAST);
    const inv = await accounts.invite("di@example.com");
    if (!inv.ok) throw new Error(inv.error);
    await accounts.accept(inv.value.token, PASSWORD);
    expect(await accounts.setDisabled(inv.value.account.ownerId, true)).toBe(true);
    expect(await accounts.signIn("di@example.com", PASSWORD)).toBeUndefined();
    expect(await accounts.active(inv.value.account.ownerId)).toBe(false);
    expect(await accounts.invite("di@example.com")).toEqual({ ok: false, error: "disabled" });
    await accounts.setDisabled(inv.value.account.ownerId, false);
    expect((await accounts.signIn("di@example.com", PASSWORD))?.ownerId).toBe(inv.value.account.ownerId);
    expect(await accounts.setDisabled("own_nobody", true)).toBe(false);
    expect(await accounts.invite("nobody")).toEqual({ ok: false, error: "invalid_email" });
  });
});

describe.each([
  ["memory", () => new MemorySessionStore()],
  ["redis", () => new RedisSessionStore(client, sub())],
])("%s sessions remember the viewer", (_name, makeStore) => {
  it("an owner's session names the owner; one without a viewer is the operator's", async () => {
    const sessions = new Sessions(makeStore(), { now: () => 1000 });
    const owner = { kind: "owner", ownerId: "own_a", email: "a@example.com" } as const;
    const o = await sessions.create(owner);
    const op = await sessions.create();
    expect(viewerOf((await sessions.use(o.id))!)).toEqual(owner);
    expect(viewerOf((await sessions.use(op.id))!)).toEqual({ kind: "operator" });
    expect((await sessions.use(op.id))?.viewer).toBeUndefined();
  });
});
