/**
 * What an owner's console pages cost, and what one owner may add, in process through
 * app.request() on the real runtime, over the real in-memory managed-host store (its per-owner
 * index included) wrapped so the test counts every record the pages read from it:
 *
 *  - owner A's Operate page and A's draft's setup page read the same number of records before
 *    and after owner B has 300 drafts (and B's drafts never show on A's page);
 *  - "Add a business" stops an owner at their caps (here 3 drafts, 5 hosts), with a message on
 *    the page, even for parallel submissions; another owner and the operator are unaffected.
 */
import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerViewer } from "../../../src/edges/console/accounts.js";
import type { ManagedHostRecord } from "../../../src/edges/console/managed-hosts.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { MemoryManagedHostStore } from "../../../src/gateway/managed-hosts/memory-store.js";
import { BasicCredentialVault } from "../../../src/edges/console/connect/basic-vault.js";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import { startGateway, type E2eGateway } from "../../e2e/support/gateway.js";
import { managedHostsDouble } from "../../support/managed-hosts-double.js";

/** The real memory store, counting the records each call hands back (what a page reads). */
class CountingStore extends MemoryManagedHostStore {
  read = 0;
  override async list() {
    return this.#count(await super.list());
  }
  override async listOwnedBy(owner: string) {
    return this.#count(await super.listOwnedBy(owner));
  }
  override async get(id: string) {
    const r = await super.get(id);
    if (r !== undefined) this.read += 1;
    return r;
  }
  #count(records: ManagedHostRecord[]) {
    this.read += records.length;
    return records;
  }
}

let gw: E2eGateway;
let app: Hono;
const store = new CountingStore();

beforeAll(async () => {
  // A token vault, as the embedded default keeps one: without it, CalDAV is not offered at all.
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const sealed = new MemorySealedStore();
  gw = await startGateway({
    runtime: {
      workers: false,
      trustForwardedFor: true,
      credentials: {
        vault: new TokenVault(ring.value, sealed),
        basic: new BasicCredentialVault(ring.value, sealed),
        env: {},
      },
    },
  });
  app = createHttpApp({
    ...gw.runtime,
    managedHosts: managedHostsDouble(store),
    console: { ...gw.runtime.console!, ownerCaps: { drafts: 3, hosts: 5 } },
  });
}, 120_000);
afterAll(async () => {
  await gw?.close();
});

const draft = (
  id: string,
  owner: string,
  state: ManagedHostRecord["state"] = "draft",
): ManagedHostRecord => ({
  id,
  owner,
  source: "caldav",
  state,
  config: { id, name: `Business ${id}`, timezone: "Europe/Madrid", kind: "business" },
  createdAt: 1,
  updatedAt: 1,
});

/** A signed-in owner: an account and a session made directly (no password check needed here). */
async function owner(email: string): Promise<{ ownerId: string; cookie: string }> {
  const con = gw.runtime.console!;
  const invited = await con.accounts.invite(email);
  if (!invited.ok) throw new Error(invited.error);
  await con.accounts.store.update({ ...invited.value.account, passwordHash: "scrypt$set" });
  const { id } = await con.sessions.create(ownerViewer(invited.value.account));
  return { ownerId: invited.value.account.ownerId, cookie: `gw_session=${id}` };
}

async function get(path: string, cookie: string) {
  const res = await app.request(`${gw.origin}${path}`, { headers: { cookie } });
  const html = await res.text();
  return { status: res.status, html, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "" };
}

async function addBusiness(cookie: string, csrf: string, hostId: string): Promise<Response> {
  return app.request(`${gw.origin}/console/hosts/new`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
      cookie,
    },
    body: new URLSearchParams({
      csrf,
      name: `Business ${hostId}`,
      host_id: hostId,
      timezone: "Europe/Madrid",
      kind: "business",
      source: "caldav",
    }).toString(),
  });
}

/** Records the store handed to one page request. */
async function readsOf(path: string, cookie: string): Promise<{ reads: number; html: string }> {
  store.read = 0;
  const page = await get(path, cookie);
  expect(page.status).toBe(200);
  return { reads: store.read, html: page.html };
}

describe("an owner's pages do not grow with other owners' records", () => {
  it("A's Operate and setup pages read as many records after B adds 300 drafts as before", async () => {
    const a = await owner("ana@pages.example");
    const b = await owner("bo@pages.example");
    await store.put(draft("ana-one", a.ownerId));
    await store.put(draft("ana-two", a.ownerId));

    const homeBefore = await readsOf("/", a.cookie);
    const setupBefore = await readsOf("/console/hosts/ana-one/setup", a.cookie);
    expect(homeBefore.html).toContain("Business ana-one");
    expect(homeBefore.html).toContain("Business ana-two");

    for (let i = 0; i < 300; i++) await store.put(draft(`bo-${i}`, b.ownerId));

    const homeAfter = await readsOf("/", a.cookie);
    const setupAfter = await readsOf("/console/hosts/ana-one/setup", a.cookie);
    expect(homeAfter.reads).toBe(homeBefore.reads);
    expect(setupAfter.reads).toBe(setupBefore.reads);
    expect(homeAfter.reads).toBeLessThanOrEqual(4);
    expect(homeAfter.html).not.toContain("bo-0");
    // B sees their own drafts; B's page reads B's records, not A's as well.
    const bHome = await readsOf("/", b.cookie);
    expect(bHome.html).toContain("Business bo-299");
    expect(bHome.html).not.toContain("ana-one");
    expect(bHome.reads).toBeLessThanOrEqual(2 * 300);
  });
});

describe("per-owner caps on 'Add a business'", () => {
  it("an owner gets 3 drafts of 10 parallel submissions, and a message for the rest", async () => {
    const c = await owner("cy@pages.example");
    const { csrf } = await get("/console/hosts/new", c.cookie);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => addBusiness(c.cookie, csrf, `cy-draft-${i}`)),
    );
    expect(answers.filter((r) => r.status === 303)).toHaveLength(3);
    const refused = answers.filter((r) => r.status === 409);
    expect(refused).toHaveLength(7);
    expect(await refused[0]!.text()).toContain(
      "You have 3 businesses not yet set up, the most one owner may have at once.",
    );
    expect(await store.listOwnedBy(c.ownerId)).toHaveLength(3);

    // Hosts count every record: with 5 (3 drafts, 2 set up) the next is refused too.
    await store.put(draft("cy-live-1", c.ownerId, "active"));
    await store.put(draft("cy-live-2", c.ownerId, "disconnected"));
    const over = await addBusiness(c.cookie, csrf, "cy-more");
    expect(over.status).toBe(409);
    expect(await over.text()).toContain("You have 5 businesses, the most one owner may have here.");

    // Another owner is not affected.
    const d = await owner("di@pages.example");
    const dPage = await get("/console/hosts/new", d.cookie);
    expect((await addBusiness(d.cookie, dPage.csrf, "di-first")).status).toBe(303);
  });
});
