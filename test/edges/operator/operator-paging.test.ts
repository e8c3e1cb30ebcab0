/** /operator/v0/hosts a page at a time, and the operator document's ETag (SchCP §2.3). */
import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { etagMatches } from "../../../src/gateway/app/app.js";
import { DEFAULT_HOSTS_PAGE } from "../../../src/edges/operator/operator-hosts.js";
import { cachedOperatorDocument } from "../../../src/edges/schcp/discovery/operator-document.js";
import { OPERATOR_TOKEN, edgeFixture, hostConfig, hostDirectory } from "../../gateway/support/fakes.js";

const auth = { authorization: `Bearer ${OPERATOR_TOKEN}` };
const ids = (n: number) => Array.from({ length: n }, (_, i) => `host-${String(i).padStart(4, "0")}`);

function app(n: number) {
  const f = edgeFixture({ hosts: ids(n).map((id) => hostConfig(id)) });
  return createHttpApp(f.deps);
}

async function page(a: ReturnType<typeof app>, query = "") {
  const res = await a.request(`/operator/v0/hosts${query}`, { headers: auth });
  return {
    status: res.status,
    json: (await res.json()) as { hosts: { host_id: string }[]; next_cursor: string | null },
  };
}

describe("GET /operator/v0/hosts paging", () => {
  it("answers every host on one page by default, as callers did before paging", async () => {
    const { status, json } = await page(app(3));
    expect(status).toBe(200);
    expect(json.hosts.map((h) => h.host_id)).toEqual(ids(3));
    expect(json.next_cursor).toBeNull();
  });

  it("walks every host once, in order, following next_cursor", async () => {
    const a = app(23);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { json } = await page(a, `?limit=5${cursor === null ? "" : `&cursor=${cursor}`}`);
      expect(json.hosts.length).toBeLessThanOrEqual(5);
      seen.push(...json.hosts.map((h) => h.host_id));
      cursor = json.next_cursor;
      pages++;
    } while (cursor !== null);
    expect(seen).toEqual(ids(23));
    expect(pages).toBe(5);
  });

  it("caps the default page", async () => {
    const { json } = await page(app(DEFAULT_HOSTS_PAGE + 2));
    expect(json.hosts).toHaveLength(DEFAULT_HOSTS_PAGE);
    expect(json.next_cursor).not.toBeNull();
  });

  it.each(["?limit=0", "?limit=abc", "?limit=1001", "?cursor=nonsense"])("refuses %s with 400", async (q) => {
    const { status } = await page(app(3), q);
    expect(status).toBe(400);
  });

  it("still needs the operator credential", async () => {
    const res = await app(3).request("/operator/v0/hosts?limit=1");
    expect(res.status).toBe(401);
  });
});

describe("operator document cache and ETag", () => {
  it("builds the document once per set of hosts, and again when the set changes", () => {
    let list = hostDirectory([hostConfig("a"), hostConfig("b")]).list();
    let builds = 0;
    const doc = cachedOperatorDocument(
      () => {
        builds++;
        return list;
      },
      { publicOrigin: "https://gw.example", operatorName: "Op" },
    );
    const first = doc();
    expect(doc()).toBe(first);
    const hostsOf = (body: string) => (JSON.parse(body) as { hosts: { id: string }[] }).hosts;
    expect(hostsOf(first.body).map((h) => h.id)).toEqual(["a", "b"]);
    list = hostDirectory([hostConfig("a")]).list();
    const second = doc();
    expect(second.etag).not.toBe(first.etag);
    expect(hostsOf(second.body)).toHaveLength(1);
    expect(builds).toBe(3);
  });

  it("answers 304 to If-None-Match with the current ETag, 200 with the body otherwise", async () => {
    const f = edgeFixture();
    const entity = cachedOperatorDocument(() => f.deps.hosts.list(), {
      publicOrigin: "https://gw.example",
      operatorName: "Op",
    });
    const a = createHttpApp({ ...f.deps, documents: { ...f.deps.documents, operatorEntity: entity } });
    const first = await a.request("/.well-known/scheduling.json");
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(await first.text()).toBe(entity().body);
    const again = await a.request("/.well-known/scheduling.json", { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
    const stale = await a.request("/.well-known/scheduling.json", { headers: { "if-none-match": '"old"' } });
    expect(stale.status).toBe(200);
  });

  it("compares If-None-Match as RFC 9110 §13.1.2 says", () => {
    expect(etagMatches(undefined, '"x"')).toBe(false);
    expect(etagMatches("*", '"x"')).toBe(true);
    expect(etagMatches('"y", W/"x"', '"x"')).toBe(true);
    expect(etagMatches('"y"', '"x"')).toBe(false);
  });
});
