/**
 * Business owners' console accounts. The operator invites an owner by email; the
 * owner opens the one-time link, chooses a password and is signed in; from then on the owner
 * signs in with email and password and sees only the hosts they own (managed-hosts.ts mayManage).
 *
 * An account is created with the invitation (so hosts can be given to its owner id at once)
 * and has no password until the invitation is accepted. Invitation links are 32 random bytes;
 * the store keeps only their SHA-256, and taking one is atomic, so a link works once and a
 * copy of the store holds no usable link. Expiry (72 h) is decided on the gateway clock; the
 * store's TTL only cleans up. A new invitation for a known email reuses its account (a lost
 * link, or a forgotten password the operator resets this way).
 */
import { createHash, randomBytes } from "node:crypto";
import type { ConsoleViewer } from "./managed-hosts.js";
import { DEFAULT_SCRYPT, hashPassword, verifyPassword, type ScryptParams } from "./accounts-password.js";
import type { Clock } from "../../protocol/clock.js";
import type { Result } from "../../protocol/result.js";

/** How passwords are hashed and checked (accounts-password.ts; tests count the checks). */
export interface PasswordHasher {
  hash(password: string, params: ScryptParams): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

export const SCRYPT_HASHER: PasswordHasher = { hash: hashPassword, verify: verifyPassword };

export interface OwnerAccount {
  /** Stable id, the `owner` of the hosts this owner manages (ManagedHostRecord.owner). */
  readonly ownerId: string;
  /** Lowercased. */
  readonly email: string;
  /** accounts-password.ts format; absent until the invitation is accepted. */
  readonly passwordHash?: string;
  readonly createdAt: number;
  readonly disabled?: boolean;
}

export interface Invitation {
  readonly ownerId: string;
  readonly email: string;
  readonly expiresAt: number;
}

/** A new invitation link's token (returned once), its account and when it ends. */
export interface Invited {
  readonly token: string;
  readonly account: OwnerAccount;
  readonly expiresAt: number;
}

/** Raw records; accounts.ts decides expiry and who may sign in. */
export interface OwnerAccountStore {
  get(ownerId: string): Promise<OwnerAccount | undefined>;
  byEmail(email: string): Promise<OwnerAccount | undefined>;
  /** "exists" when the email (or id) is taken; nothing is written then. */
  create(account: OwnerAccount): Promise<"ok" | "exists">;
  /** Replaces an existing account (same ownerId and email). */
  update(account: OwnerAccount): Promise<void>;
  list(): Promise<OwnerAccount[]>;
  putInvitation(key: string, invitation: Invitation, ttlMs: number): Promise<void>;
  peekInvitation(key: string): Promise<Invitation | undefined>;
  /** Returns and removes in one step: of two concurrent takes, one gets it. */
  takeInvitation(key: string): Promise<Invitation | undefined>;
}

export const INVITATION_TTL_MS = 72 * 3_600_000;

const EMAIL = /^[^\s@<>"']{1,64}@[^\s@<>"']{1,190}\.[^\s@<>"']{2,63}$/;

function normalizeEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : undefined;
}

const invitationKey = (token: string): string =>
  createHash("sha256").update(token, "utf8").digest("base64url");

/** Invitation tokens are 43 base64url characters; anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const ownerViewer = (a: OwnerAccount): ConsoleViewer => ({
  kind: "owner",
  ownerId: a.ownerId,
  email: a.email,
});

export class OwnerAccounts {
  /** Compared against when the email is unknown, so that costs what a wrong password costs. */
  #decoy: Promise<string> | undefined;

  constructor(
    readonly store: OwnerAccountStore,
    private readonly clock: Clock,
    private readonly scrypt: ScryptParams = DEFAULT_SCRYPT,
    private readonly hasher: PasswordHasher = SCRYPT_HASHER,
  ) {}

  /** A new one-time link for `email` (creating its account when new); the token is returned once. */
  async invite(rawEmail: string): Promise<Result<Invited, "invalid_email" | "disabled">> {
    const email = normalizeEmail(rawEmail);
    if (email === undefined) return { ok: false, error: "invalid_email" };
    let account = await this.store.byEmail(email);
    if (account === undefined) {
      const fresh: OwnerAccount = {
        ownerId: `own_${randomBytes(12).toString("base64url")}`,
        email,
        createdAt: this.clock.now(),
      };
      account = (await this.store.create(fresh)) === "ok" ? fresh : await this.store.byEmail(email);
      if (account === undefined) return { ok: false, error: "invalid_email" };
    }
    if (account.disabled === true) return { ok: false, error: "disabled" };
    const token = randomBytes(32).toString("base64url");
    const expiresAt = this.clock.now() + INVITATION_TTL_MS;
    await this.store.putInvitation(
      invitationKey(token),
      { ownerId: account.ownerId, email, expiresAt },
      INVITATION_TTL_MS,
    );
    return { ok: true, value: { token, account, expiresAt } };
  }

  /** The live invitation behind a link (not used up by looking). */
  async invitation(token: string): Promise<Invitation | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const inv = await this.store.peekInvitation(invitationKey(token));
    return inv !== undefined && this.clock.now() < inv.expiresAt ? inv : undefined;
  }

  /** Uses the link up and sets the password; undefined when the link is unknown, used, expired or its account disabled. */
  async accept(token: string, password: string): Promise<OwnerAccount | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const inv = await this.store.takeInvitation(invitationKey(token));
    if (inv === undefined || this.clock.now() >= inv.expiresAt) return undefined;
    const account = await this.store.get(inv.ownerId);
    if (account === undefined || account.disabled === true) return undefined;
    const next: OwnerAccount = { ...account, passwordHash: await this.hasher.hash(password, this.scrypt) };
    await this.store.update(next);
    return next;
  }

  /** The account for a correct email and password; one answer for every way of being wrong. */
  async signIn(rawEmail: string, password: string): Promise<OwnerAccount | undefined> {
    const email = normalizeEmail(rawEmail);
    const account = email === undefined ? undefined : await this.store.byEmail(email);
    const hash = account?.passwordHash ?? (await this.decoy());
    const ok = await this.hasher.verify(password, hash);
    return ok && account?.passwordHash !== undefined && account.disabled !== true ? account : undefined;
  }

  /** Whether an owner's sessions still count (the account exists, has signed up, is not disabled). */
  async active(ownerId: string): Promise<boolean> {
    const a = await this.store.get(ownerId);
    return a !== undefined && a.passwordHash !== undefined && a.disabled !== true;
  }

  async setDisabled(ownerId: string, disabled: boolean): Promise<boolean> {
    const a = await this.store.get(ownerId);
    if (a === undefined) return false;
    const { disabled: _was, ...rest } = a;
    await this.store.update(disabled ? { ...rest, disabled: true } : rest);
    return true;
  }

  list(): Promise<OwnerAccount[]> {
    return this.store.list();
  }

  private decoy(): Promise<string> {
    this.#decoy ??= this.hasher.hash(randomBytes(16).toString("hex"), this.scrypt);
    return this.#decoy;
  }
}
