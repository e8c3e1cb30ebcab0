/**
 * A person's calendar in the console (people-routes.ts), in process through app.request() on
 * the real runtime: who may see its Contacts and Rules pages (the operator for a config-file
 * host; another owner gets 404 and changes nothing; a business has no such pages), the contact
 * form (SchCP §7.8), and what the server does with a posted rule (§7.9): nothing signed, a rule
 * by someone other than the calendar's owner, and the owner's rule, kept and listed by label.
 * The key app's script is served from the console's origin, and only the signing pages may run it.
 */
import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import { parseKeyRing } from "../../../src/gateway/credentials/key-ring.js";
import { MemorySealedStore } from "../../../src/gateway/credentials/store.js";
import { TokenVault } from "../../../src/gateway/credentials/vault.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerViewer } from "../../../src/edges/console/accounts.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { EMBEDDED_CALENDAR_CONFIG, EMBEDDED_DEFAULT_CONFIG } from "../../../src/booking/hosts/index.js";
import { generateEd25519KeyPair, jwkThumbprint, principalUrn } from "../../../src/protocol/jose/jwk.js";
import { signCompactJws } from "../../../src/protocol/jose/jws.js";
import { startGateway, type E2eGateway } from "../../e2e/support/gateway.js";

const HOST = "priya-calendar";
const person = generateEd25519KeyPair();
const owner = principalUrn(jwkThumbprint(person.publicJwk));
const stranger = generateEd25519KeyPair();
const contact = principalUrn(jwkThumbprint(generateEd25519KeyPair().publicJwk));

let gw: E2eGateway;
let app: Hono;

beforeAll(async () => {
  const [calendar] = structuredClone(EMBEDDED_CALENDAR_CONFIG).hosts as unknown as Record<string, unknown>[];
  const config = structuredClone(EMBEDDED_DEFAULT_CONFIG) as unknown as { hosts: unknown[] };
  config.hosts.push({
    ...calendar,
    id: HOST,
    name: "Priya <Shah>",
    owner,
    policies: { retention: "P365D", access: "contacts" },
    connector: {
      type: "google",
      settings: {
        credentials: "vault",
        clientIdEnv: "GOOGLE_CLIENT_ID",
        clientSecretEnv: "GOOGLE_CLIENT_SECRET",
      },
    },
  });
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  gw = await startGateway({
    config,
    runtime: {
      workers: false,
      credentials: {
        vault: new TokenVault(ring.value, new MemorySealedStore()),
        env: { GOOGLE_CLIENT_ID: "google-client", GOOGLE_CLIENT_SECRET: "google-secret" },
      },
    },
  });
  app = createHttpApp(gw.runtime);
}, 120_000);
afterAll(async () => {
  await gw?.close();
});

async function operatorCookie(): Promise<string> {
  const { id } = await gw.runtime.console!.sessions.create();
  return `gw_session=${id}`;
}

async function ownerCookie(email: string): Promise<string> {
  const con = gw.runtime.console!;
  const invited = await con.accounts.invite(email);
  if (!invited.ok) throw new Error(invited.error);
  await con.accounts.store.update({ ...invited.value.account, passwordHash: "scrypt$set" });
  const { id } = await con.sessions.create(ownerViewer(invited.value.account));
  return `gw_session=${id}`;
}

async function get(path: string, cookie: string) {
  const res = await app.request(`${gw.origin}${path}`, { headers: { cookie } });
  const html = await res.text();
  return { res, html, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "" };
}

async function post(path: string, cookie: string, form: Record<string, string>) {
  const res = await app.request(`${gw.origin}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
      cookie,
    },
    body: new URLSearchParams(form).toString(),
  });
  await res.arrayBuffer();
  return res;
}

const flashOf = (html: string) => /<p class="flash[^"]*" role="status">([^<]*)<\/p>/.exec(html)?.[1];

function rule(key = person, over: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(gw.clock.now() / 1000);
  const host = gw.runtime.hosts.get(HOST)!;
  return signCompactJws(
    { alg: "EdDSA", typ: "schcp-rule+jwt" },
    {
      iss: principalUrn(jwkThumbprint(key.publicJwk)),
      principal_jwk: key.publicJwk,
      iat: now,
      exp: now + 86_400,
      jti: "r-lessons",
      cnf: { jkt: jwkThumbprint(host.keys[0]!.publicJwk) },
      label: "Saturday lessons for <my> contacts",
      services: ["lesson"],
      weekdays: ["sat"],
      tz: "America/Toronto",
      ...over,
    },
    key.privateKey,
  );
}

describe("a person's calendar in the console", () => {
  it("the operator adds and removes a contact; the list shows escaped names and never the refusal's reason", async () => {
    const cookie = await operatorCookie();
    const page = await get(`/console/hosts/${HOST}/contacts`, cookie);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain("<h1>Contacts of Priya &lt;Shah&gt;</h1>");
    expect(
      (await post(`/console/hosts/${HOST}/contacts`, cookie, { csrf: page.csrf, principal: "x", name: "X" }))
        .status,
    ).toBe(303);
    expect(flashOf((await get(`/console/hosts/${HOST}/contacts`, cookie)).html)).toContain(
      "That is not a principal",
    );
    await post(`/console/hosts/${HOST}/contacts`, cookie, {
      csrf: page.csrf,
      principal: contact,
      name: "Ellis <M>",
    });
    const listed = await get(`/console/hosts/${HOST}/contacts`, cookie);
    expect(flashOf(listed.html)).toBe("Added Ellis &lt;M&gt;.");
    expect(listed.html).toContain(`<code>${contact}</code>`);
    expect(await gw.runtime.contacts!.has(HOST, contact)).toBe(true);
    await post(`/console/hosts/${HOST}/contacts/remove`, cookie, { csrf: page.csrf, principal: contact });
    expect(await gw.runtime.contacts!.has(HOST, contact)).toBe(false);
  });

  it("another owner gets 404 and changes nothing; a business has no such pages", async () => {
    const cookie = await ownerCookie("someone-else@example.org");
    for (const path of ["contacts", "rules"])
      expect((await get(`/console/hosts/${HOST}/${path}`, cookie)).res.status).toBe(404);
    const { csrf } = await get("/", cookie);
    expect(
      (await post(`/console/hosts/${HOST}/contacts`, cookie, { csrf, principal: contact, name: "E" })).status,
    ).toBe(404);
    expect((await post(`/console/hosts/${HOST}/rules`, cookie, { csrf, rule: await rule() })).status).toBe(
      404,
    );
    expect(await gw.runtime.contacts!.has(HOST, contact)).toBe(false);
    const operator = await operatorCookie();
    expect((await get("/console/hosts/maple-street-auto/contacts", operator)).res.status).toBe(404);
  });

  it("a rule is kept only when its calendar's owner signed it; it is listed by label and removable", async () => {
    const cookie = await operatorCookie();
    const page = await get(`/console/hosts/${HOST}/rules`, cookie);
    expect(page.res.status).toBe(200);
    // The key app may run here, from this origin only.
    expect(page.res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.html).toContain('<script src="/console/key-app.js" defer></script>');
    expect(page.html).toContain(`data-owner="${owner}"`);
    expect(page.html).toContain(
      `data-jkt="${jwkThumbprint(gw.runtime.hosts.get(HOST)!.keys[0]!.publicJwk)}"`,
    );
    const path = `/console/hosts/${HOST}/rules`;

    await post(path, cookie, { csrf: page.csrf, rule: "" });
    expect(flashOf((await get(path, cookie)).html)).toContain("Nothing was signed");
    await post(path, cookie, { csrf: page.csrf, rule: await rule(stranger) });
    expect(flashOf((await get(path, cookie)).html)).toContain(
      "The rule was not kept: the rule is not signed by this calendar",
    );
    await post(path, cookie, { csrf: page.csrf, rule: "not.a.jws" });
    expect(flashOf((await get(path, cookie)).html)).toContain("The rule was not kept");

    await post(path, cookie, { csrf: page.csrf, rule: await rule() });
    const kept = await get(path, cookie);
    expect(flashOf(kept.html)).toBe("Signed and kept: “Saturday lessons for &lt;my&gt; contacts”.");
    expect(kept.html).toContain('<th scope="row">Saturday lessons for &lt;my&gt; contacts</th>');
    expect(kept.html).toContain("Sat (America/Toronto) · from anyone who may book");
    await post(`${path}/remove`, cookie, { csrf: page.csrf, jti: "r-lessons" });
    const gone = await get(path, cookie);
    expect(flashOf(gone.html)).toContain("Removed the rule");
    expect(gone.html).toContain("No rules: your calendar asks you every time.");
  });

  it("serves the key app's script as JavaScript; the console's other pages still run none", async () => {
    const js = await app.request(`${gw.origin}/console/key-app.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const body = await js.text();
    expect(body).toContain('generateKey({ name: "Ed25519" }, false, ["sign", "verify"])');
    const home = await get("/", await operatorCookie());
    expect(home.res.headers.get("content-security-policy")).not.toContain("script-src");
    expect(home.html).not.toContain("<script");
  });
});
