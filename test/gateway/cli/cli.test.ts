/** `booking-gateway` over real HTTP on loopback: serve, config errors, environment errors. */
import { mkdtemp, rm, writeFile, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../../src/gateway/cli/cli.js";
import type { RunningServer } from "../../../src/gateway/cli/cli.js";
import { EMBEDDED_DEFAULT_CONFIG } from "../../../src/booking/hosts/index.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { startTestRedis, uniquePrefix } from "../../support/redis.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-cli-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      env: { GATEWAY_DATA_DIR: join(dir, "data"), ...env },
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
      cwd: dir,
    },
    out,
    err,
  };
}

async function serve(args: string[], env: Record<string, string> = {}) {
  const t = io({ PORT: "0", ...env });
  const result = await runCli(["serve", ...args], t.io);
  return { ...t, result };
}

describe("booking-gateway serve", () => {
  it("serves the embedded default over real HTTP and prints discovery and the operator credential", async () => {
    const { result, out } = await serve([]);
    expect(typeof result).toBe("object");
    const server = result as RunningServer;
    try {
      const text = out.join("\n");
      expect(text).toMatch(/operator discovery at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/scheduling\.json/);
      expect(text).toMatch(
        /maple-street-auto: http:\/\/127\.0\.0\.1:\d+\/hosts\/maple-street-auto\/scheduling\.json/,
      );
      const token = /operator credential: ([A-Za-z0-9_-]{43}) \(generated now/.exec(text)?.[1];
      expect(token).toBeDefined();
      expect((await readFile(join(dir, "data", "operator-token"), "utf8")).trim()).toBe(token);

      const op = await fetch(`${server.url}/.well-known/scheduling.json`);
      expect(op.status).toBe(200);
      expect(op.headers.get("schcp-version")).toBe("0.4");
      const doc = (await op.json()) as { hosts: Array<{ id: string; discovery: string }> };
      expect(doc).toMatchObject({ schcp: "0.4", operator: { domain: "127.0.0.1" } });
      expect(doc.hosts.map((h) => h.id)).toEqual([
        "maple-street-auto",
        "harbourview-dental",
        "fades-on-queen",
        "maple-street-auto-east",
        "nora-okafor-tutoring",
        "noor-haddad",
        "ellis-moreau",
        "priya-shah",
        "bellwoods-cafe",
      ]);
      // The default public origin names the port actually bound.
      expect(doc.hosts[0]?.discovery).toBe(`${server.publicOrigin}/hosts/maple-street-auto/scheduling.json`);
      const host = await fetch(doc.hosts[0]?.discovery ?? "");
      expect(host.status).toBe(200);
      expect(await host.json()).toMatchObject({
        endpoint: `${server.publicOrigin}/schcp/v0/maple-street-auto`,
      });

      const listed = await fetch(`${server.url}/operator/v0/maple-street-auto/bookings`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(listed.status).toBe(200);

      // The embedded calendar host: its seeded local calendar is synced at start.
      await expect
        .poll(
          async () => {
            const cal = await fetch(`${server.url}/operator/v0/nora-okafor-tutoring/calendar`, {
              headers: { authorization: `Bearer ${token}` },
            });
            const body = (await cal.json()) as { calendars?: Array<{ last_sync: { outcome: string } }> };
            return body.calendars?.[0]?.last_sync.outcome;
          },
          { timeout: 20_000, interval: 200 },
        )
        .toBe("complete");
    } finally {
      await server.close();
    }
  });

  it("keeps the same keys and credential across a restart on the same data dir", async () => {
    const first = (await serve([])).result as RunningServer;
    const keysBefore = await (await fetch(`${first.url}/hosts/maple-street-auto/scheduling.json`)).json();
    const tokenBefore = first.runtime.operatorToken;
    await first.close();
    const second = await serve([]);
    const server = second.result as RunningServer;
    try {
      const keysAfter = await (await fetch(`${server.url}/hosts/maple-street-auto/scheduling.json`)).json();
      expect((keysAfter as { keys: unknown }).keys).toEqual((keysBefore as { keys: unknown }).keys);
      expect(server.runtime.operatorToken).toBe(tokenBefore);
      expect(second.out.join("\n")).toMatch(/operator credential: \S+ \(kept in/);
    } finally {
      await server.close();
    }
  });

  it("takes OPERATOR_TOKEN and PUBLIC_ORIGIN from the environment, and never prints the token", async () => {
    const { result, out } = await serve([], {
      OPERATOR_TOKEN: "env-token-0123456789abcdef",
      PUBLIC_ORIGIN: "https://gw.example",
    });
    const server = result as RunningServer;
    try {
      expect(out.join("\n")).toMatch(/operator credential: from OPERATOR_TOKEN/);
      expect(out.join("\n")).not.toMatch(/env-token/);
      const doc = (await (await fetch(`${server.url}/.well-known/scheduling.json`)).json()) as {
        operator: { domain: string };
      };
      // With an https origin the documents are valid SchCP (discovery URLs are https, §2.1).
      expect(validateSchcp("OperatorDocument", doc).ok).toBe(true);
      expect(doc.operator.domain).toBe("gw.example");
      const host: unknown = await (await fetch(`${server.url}/hosts/fades-on-queen/scheduling.json`)).json();
      expect(validateSchcp("DiscoveryDocument", host).ok).toBe(true);
      const ok = await fetch(`${server.url}/operator/v0/maple-street-auto/bookings`, {
        headers: { authorization: "Bearer env-token-0123456789abcdef" },
      });
      expect(ok.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("serves the hosts of a --config file", async () => {
    const file = join(dir, "hosts.json");
    await writeFile(file, JSON.stringify({ hosts: [EMBEDDED_DEFAULT_CONFIG.hosts[2]] }));
    const { result } = await serve(["--config", "hosts.json"]);
    const server = result as RunningServer;
    try {
      const doc = (await (await fetch(`${server.url}/.well-known/scheduling.json`)).json()) as {
        hosts: Array<{ id: string }>;
      };
      expect(doc.hosts.map((h) => h.id)).toEqual(["fades-on-queen"]);
    } finally {
      await server.close();
    }
  });
});

describe("booking-gateway serve with REDIS_URL", () => {
  it("uses Redis and BullMQ, and two servers on one Redis and data dir share the credential", async () => {
    const redis = await startTestRedis();
    const env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: uniquePrefix("cli").replace(/:$/, "") };
    const one = await serve([], env);
    const two = await serve([], env);
    try {
      expect(one.out.join("\n")).toMatch(/store: Redis at redis:\/\//);
      const a = one.result as RunningServer;
      const b = two.result as RunningServer;
      expect(b.runtime.operatorToken).toBe(a.runtime.operatorToken);
      for (const s of [a, b]) {
        const res = await fetch(`${s.url}/operator/v0/fades-on-queen/bookings`, {
          headers: { authorization: `Bearer ${a.runtime.operatorToken}` },
        });
        expect(res.status).toBe(200);
      }
    } finally {
      for (const r of [one.result, two.result]) if (typeof r === "object") await r.close();
      await redis.stop();
    }
  });
});

describe("configuration errors exit 2 and name the field", () => {
  const host = () => JSON.parse(JSON.stringify(EMBEDDED_DEFAULT_CONFIG.hosts[0])) as Record<string, unknown>;

  it.each([
    [
      "a bad duration",
      () => ({ hosts: [{ ...host(), policies: { holds: { max_ttl: "10 minutes" } } }] }),
      /\/hosts\/0\/policies\/holds\/max_ttl/,
    ],
    ["an unknown member", () => ({ hosts: [{ ...host(), colour: "red" }] }), /\/hosts\/0\/colour/],
    [
      "an unknown connector type",
      () => ({ hosts: [{ ...host(), connector: { type: "acuity", settings: {} } }] }),
      /\/hosts\/0\/connector\/type/,
    ],
    [
      "a Square host without its settings",
      () => ({ hosts: [{ ...host(), connector: { type: "square", settings: {} } }] }),
      /\/hosts\/0\/connector\/settings\/environment/,
    ],
    [
      "a calendar host without its calendar section",
      () => ({ hosts: [{ ...host(), connector: { type: "ics-dir", settings: { path: "cal" } } }] }),
      /\/hosts\/0\/calendar/,
    ],
    [
      "a calendar section on a platform host",
      () => ({ hosts: [{ ...host(), calendar: { capacity: "me" } }] }),
      /\/hosts\/0\/calendar/,
    ],
    [
      "an unknown synthetic scenario",
      () => ({ hosts: [{ ...host(), connector: { type: "synthetic", settings: { scenario: "nope" } } }] }),
      /\/hosts\/0\/connector\/settings\/scenario/,
    ],
    [
      "a service the catalog lacks",
      () => ({ hosts: [{ ...host(), services: [{ service_id: "tyre-swap" }] }] }),
      /\/hosts\/0\/services\/0\/service_id/,
    ],
    ["no hosts", () => ({ hosts: [] }), /\/hosts/],
  ])("%s", async (_what, config, field) => {
    await writeFile(join(dir, "bad.json"), JSON.stringify(config()));
    const { result, err } = await serve(["--config", "bad.json"]);
    expect(result).toBe(2);
    expect(err.join("\n")).toMatch(field);
  });

  it("refuses duplicate members and unreadable files", async () => {
    await writeFile(join(dir, "dup.json"), '{"hosts":[],"hosts":[]}');
    const dup = await serve(["--config", "dup.json"]);
    expect(dup.result).toBe(2);
    expect(dup.err.join("\n")).toMatch(/dup\.json.*\/hosts.*duplicate|dup\.json.*duplicate/i);
    const missing = await serve(["--config", "missing.json"]);
    expect(missing.result).toBe(2);
    expect(missing.err.join("\n")).toMatch(/missing\.json: cannot read/);
  });

  it.each([
    [{ PORT: "eighty" }, /PORT must be an integer/],
    [{ PUBLIC_ORIGIN: "gateway.example" }, /PUBLIC_ORIGIN must be an http\(s\) origin/],
    [{ PUBLIC_ORIGIN: "https://gw.example/base" }, /PUBLIC_ORIGIN/],
    [{ REDIS_URL: "http://localhost" }, /REDIS_URL must be/],
    [{ OPERATOR_TOKEN: "short" }, /OPERATOR_TOKEN must be/],
  ])("refuses %o", async (env, message) => {
    const { result, err } = await serve([], env);
    expect(result).toBe(2);
    expect(err.join("\n")).toMatch(message);
  });

  it("refuses unknown options and commands, and prints usage for help", async () => {
    expect((await serve(["--port", "1"])).result).toBe(2);
    const unknown = io();
    expect(await runCli(["launch"], unknown.io)).toBe(2);
    expect(unknown.err.join("\n")).toMatch(/unknown command "launch"/);
    const help = io();
    expect(await runCli(["help"], help.io)).toBe(0);
    expect(help.out.join("\n")).toMatch(/Usage: booking-gateway/);
  });
});
