/**
 * A host's contact list (SchCP §7.8): the principals a contacts-only host takes requests from,
 * each with the name its person knows them by, managed by the person in the console. The list is
 * private to the host: it is kept here and read only by the access check (hostAccess below) and
 * the console's own pages; no discovery document, protocol answer or refusal carries it.
 *
 * One Redis hash per host (principal → JSON), so a host's list is one key and one Cluster slot;
 * adding is one Lua step that counts and writes together, so parallel adds cannot pass the cap.
 * The memory twin serves the embedded default and the tests.
 */
import type { RedisClient } from "../../redis/client.js";
import { redisKeys, type RedisKeyspace } from "../../redis/keys.js";
import { evalScript, redisScript } from "../../redis/script.js";
import type { BookingRefusal, HostConfig } from "../api.js";
import { checkAccess } from "../rules/access.js";

export interface Contact {
  /** The contact's principal id (urn:schcp:principal:jwk-thumbprint:…, SchCP §3.3). */
  readonly principal: string;
  /** What the person calls them; shown in the console only. */
  readonly name: string;
  /** Epoch ms when it was added (or last renamed). */
  readonly addedAt: number;
}

/** Every input is bounded: a host keeps at most this many contacts, names this long. */
export const MAX_CONTACTS_PER_HOST = 500;
export const MAX_CONTACT_NAME_CHARS = 100;
const PRINCIPAL = /^urn:schcp:principal:jwk-thumbprint:[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

export type AddContactAnswer = "added" | "updated" | "full" | "invalid";

export interface ContactStore {
  /** The host's contacts, by name then principal. */
  list(hostId: string): Promise<readonly Contact[]>;
  has(hostId: string, principal: string): Promise<boolean>;
  /** Adds the contact, or renames one already listed; "full" past MAX_CONTACTS_PER_HOST. */
  add(hostId: string, contact: Contact): Promise<AddContactAnswer>;
  /** Whether it was listed. */
  remove(hostId: string, principal: string): Promise<boolean>;
}

/** The contact as it may be stored: a principal id and a trimmed, bounded, printable name. */
export function validContact(contact: Contact): Contact | undefined {
  const name = contact.name.replace(/\s+/g, " ").trim();
  if (!PRINCIPAL.test(contact.principal)) return undefined;
  // No control characters: the name is shown on pages (escaped) and nowhere else.
  if (name === "" || [...name].length > MAX_CONTACT_NAME_CHARS || /\p{Cc}/u.test(name)) return undefined;
  return { principal: contact.principal, name, addedAt: contact.addedAt };
}

const byName = (a: Contact, b: Contact) =>
  a.name.localeCompare(b.name) || a.principal.localeCompare(b.principal);

export class MemoryContactStore implements ContactStore {
  readonly #hosts = new Map<string, Map<string, Contact>>();
  list(hostId: string): Promise<readonly Contact[]> {
    return Promise.resolve([...(this.#hosts.get(hostId)?.values() ?? [])].sort(byName));
  }
  has(hostId: string, principal: string): Promise<boolean> {
    return Promise.resolve(this.#hosts.get(hostId)?.has(principal) === true);
  }
  add(hostId: string, contact: Contact): Promise<AddContactAnswer> {
    const valid = validContact(contact);
    if (valid === undefined) return Promise.resolve("invalid");
    const host = this.#hosts.get(hostId) ?? new Map<string, Contact>();
    const known = host.has(valid.principal);
    if (!known && host.size >= MAX_CONTACTS_PER_HOST) return Promise.resolve("full");
    host.set(valid.principal, valid);
    this.#hosts.set(hostId, host);
    return Promise.resolve(known ? "updated" : "added");
  }
  remove(hostId: string, principal: string): Promise<boolean> {
    return Promise.resolve(this.#hosts.get(hostId)?.delete(principal) === true);
  }
}

/** KEYS[1] the host's hash; ARGV principal, JSON, cap. 2 updated, 1 added, 0 full. */
const ADD = redisScript(
  "contacts-add",
  `if redis.call("HEXISTS", KEYS[1], ARGV[1]) == 1 then
  redis.call("HSET", KEYS[1], ARGV[1], ARGV[2]); return 2 end
if redis.call("HLEN", KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call("HSET", KEYS[1], ARGV[1], ARGV[2]); return 1`,
);

export class RedisContactStore implements ContactStore {
  readonly #keys: RedisKeyspace;
  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.#keys = redisKeys(prefix);
  }
  async list(hostId: string): Promise<readonly Contact[]> {
    const all = await this.redis.hvals(this.#key(hostId));
    return all.map((r) => JSON.parse(r) as Contact).sort(byName);
  }
  async has(hostId: string, principal: string): Promise<boolean> {
    return (await this.redis.hexists(this.#key(hostId), principal)) === 1;
  }
  async add(hostId: string, contact: Contact): Promise<AddContactAnswer> {
    const valid = validContact(contact);
    if (valid === undefined) return "invalid";
    const done = await evalScript(
      this.redis,
      ADD,
      [this.#key(hostId)],
      [valid.principal, JSON.stringify(valid), MAX_CONTACTS_PER_HOST],
    );
    return done === 2 ? "updated" : done === 1 ? "added" : "full";
  }
  async remove(hostId: string, principal: string): Promise<boolean> {
    return (await this.redis.hdel(this.#key(hostId), principal)) === 1;
  }
  #key(hostId: string): string {
    return this.#keys.key("contacts", encodeURIComponent(hostId));
  }
}

/**
 * SchCP §7.8 access, checked when the request is made (availability, hold, waitlist, confirm):
 * a public host lets anyone ask; a contacts-only host its owner (§7.7 "and to its owner"), the
 * principals its configuration lists and those on its stored list. The stored list is read at
 * every request, so a contact removed between a hold and its confirm cannot confirm.
 */
export async function hostAccess(
  contacts: ContactStore | undefined,
  config: HostConfig,
  principal: string | null,
): Promise<BookingRefusal | undefined> {
  const { policies } = config;
  if (policies.access === "public") return undefined;
  // SchCP §7.7: the host configuration names its owner, who may always book their own time.
  if (principal !== null && principal === config.owner) return undefined;
  const listed =
    principal !== null &&
    ((policies.contacts ?? []).includes(principal) || (await contacts?.has(config.id, principal)) === true);
  return checkAccess(policies, principal, listed);
}
