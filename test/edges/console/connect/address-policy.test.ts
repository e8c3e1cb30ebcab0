/**
 * The one outbound address policy (src/protocol/net/policy.ts) at the CalDAV connect form, the
 * console's real route (POST /console/hosts/:id/caldav) on the real runtime: every URL that
 * would make the gateway reach its own network — a loopback or private literal, the cloud
 * metadata address, a name resolving to loopback, a public-looking server redirecting to
 * loopback — is answered with one and the same message, whatever listens there (an HTTP
 * server, a non-HTTP service, nothing), and nothing is sent: the loopback listeners count
 * zero connections. docs/ARCHITECTURE.md, Hostile inputs; SchCP §5.8 for the address rules.
 */
import { randomBytes } from "node:crypto";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BasicCredentialVault } from "../../../../src/edges/console/connect/basic-vault.js";
import { MemorySealedStore } from "../../../../src/gateway/credentials/store.js";
import { parseKeyRing } from "../../../../src/gateway/credentials/key-ring.js";
import { TokenVault } from "../../../../src/gateway/credentials/vault.js";
import { systemResolver, type Resolver } from "../../../../src/protocol/net/guarded-lookup.js";
import { UNIFORM_REFUSAL } from "../../../../src/protocol/net/policy.js";
import { startGateway, type E2eGateway } from "../../../e2e/support/gateway.js";

/** Counts every TCP connection a listener accepts. */
interface Counted {
  readonly port: number;
  connections: number;
  close(): Promise<void>;
}

async function listen(server: NetServer | HttpServer, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

async function counted(server: NetServer | HttpServer, host: string): Promise<Counted> {
  const c = { connections: 0 };
  server.on("connection", () => {
    c.connections++;
  });
  const port = await listen(server, host);
  return Object.assign(c, {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        (server as HttpServer).closeAllConnections?.();
        server.close(() => resolve());
      }),
  });
}

// An HTTP server, a non-HTTP service (it writes a banner and hangs up) and a closed port, on
// loopback: an attacker would like to tell them apart.
let httpVictim: Counted;
let rawVictim: Counted;
let v6Victim: Counted | undefined;
let closedPort: number;
// The first hop of the redirect case: a "public" server (the test's resolver names it and the
// policy is told to allow exactly its address, 127.0.0.2) redirecting to the loopback victim.
let redirector: Counted;
let gw: E2eGateway;
let basic: BasicCredentialVault;

const FAKE_PUBLIC = "calendar.example.com";
const REBINDING = "dav.example.net";
const resolver: Resolver = (hostname) => {
  if (hostname === FAKE_PUBLIC) return Promise.resolve([{ address: "127.0.0.2", family: 4 }]);
  if (hostname === REBINDING) return Promise.resolve([{ address: "127.0.0.1", family: 4 }]);
  return systemResolver(hostname); // localhost: the system's own answer (127.0.0.1 / ::1)
};

beforeAll(async () => {
  httpVictim = await counted(
    createHttpServer((_req, res) => {
      res.writeHead(207, { "content-type": "application/xml" }).end("<multistatus xmlns='DAV:'/>");
    }),
    "127.0.0.1",
  );
  rawVictim = await counted(
    createNetServer((socket) => socket.end("SSH-2.0-OpenSSH_9.6\r\n")),
    "127.0.0.1",
  );
  try {
    v6Victim = await counted(
      createHttpServer((_req, res) => res.end("ok")),
      "::1",
    );
  } catch {
    v6Victim = undefined; // no IPv6 loopback here: [::1] is still refused, by its text
  }
  const closing = createNetServer();
  closedPort = await listen(closing, "127.0.0.1");
  await new Promise<void>((resolve) => closing.close(() => resolve()));
  redirector = await counted(
    createHttpServer((_req, res) => {
      res.writeHead(301, { location: `http://127.0.0.1:${httpVictim.port}/dav/` }).end();
    }),
    "127.0.0.2",
  );

  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  const store = new MemorySealedStore();
  basic = new BasicCredentialVault(ring.value, store);
  gw = await startGateway({
    runtime: {
      workers: false,
      managedHostsReconcileMs: false,
      credentials: {
        vault: new TokenVault(ring.value, store),
        basic,
        env: {},
      },
      // Not the tests' usual allowance: only the redirector's one address, and plain http so
      // that every refusal below is the address's, not the scheme's.
      upstreamPolicy: { allowAddresses: ["127.0.0.2"], allowHttp: true },
      upstreamResolver: resolver,
    },
  });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([httpVictim?.close(), rawVictim?.close(), v6Victim?.close(), redirector?.close()]);
});

const post = (path: string, form: URLSearchParams, cookie: string) =>
  fetch(`${gw.origin}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: gw.origin,
      "sec-fetch-site": "same-origin",
      cookie,
    },
    body: form.toString(),
  });

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const res = await post(
    "/console/sign-in",
    new URLSearchParams({ credential: gw.runtime.operatorToken }),
    "",
  );
  const cookie = /gw_session=[^;]*/.exec(res.headers.get("set-cookie") ?? "")![0];
  const html = await (await fetch(`${gw.origin}/`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]! };
}

/** The text of the server URL field's error on the answered page. */
function fieldMessage(html: string): string | undefined {
  const m = /<p class="error" id="server_url-error">([^<]*)<\/p>/.exec(html);
  return m?.[1]?.trim();
}

describe("CalDAV connect: one address policy, one answer, nothing sent", () => {
  // Twelve console round trips in sequence (each a page render and a refused discovery): about
  // 2 s on a quiet machine, near the default 20 s on a loaded one.
  it(
    "refuses loopback, private, link-local and resolved-to-loopback servers, and a redirect to loopback, alike",
    { timeout: 60_000 },
    async () => {
      const { cookie, csrf } = await signIn();
      const add = await post(
        "/console/hosts/new",
        new URLSearchParams({ csrf, name: "Probe Studio", timezone: "Europe/Madrid", source: "caldav" }),
        cookie,
      );
      expect(add.status).toBe(303);
      const at = add.headers.get("location")!;
      expect(at).toMatch(/^\/console\/hosts\/[^/]+\/caldav$/);

      const targets = [
        `http://127.0.0.1:${httpVictim.port}/dav/`, // HTTP answers there
        `https://127.0.0.1:${httpVictim.port}/dav/`,
        `http://127.0.0.1:${rawVictim.port}/`, // a non-HTTP service
        `http://127.0.0.1:${closedPort}/`, // nothing
        `http://[::1]:${v6Victim?.port ?? httpVictim.port}/`,
        `http://[::ffff:127.0.0.1]:${httpVictim.port}/`,
        "http://169.254.169.254/latest/meta-data/", // cloud metadata
        "http://10.0.0.1/dav/",
        "https://[fd00::1]/dav/",
        `http://localhost:${httpVictim.port}/dav/`, // a name resolving to loopback
        `http://${REBINDING}:${httpVictim.port}/dav/`, // a public-looking name resolving to loopback
        `http://${FAKE_PUBLIC}:${redirector.port}/dav/`, // allowed, but redirects to loopback
      ];
      const answers: Array<{ target: string; status: number; message: string | undefined }> = [];
      for (const target of targets) {
        const res = await post(
          at,
          new URLSearchParams({ csrf, server_url: target, username: "owner", password: "owner-Pa55word" }),
          cookie,
        );
        answers.push({ target, status: res.status, message: fieldMessage(await res.text()) });
      }
      for (const a of answers)
        expect(a, a.target).toEqual({ target: a.target, status: 400, message: UNIFORM_REFUSAL });

      // Nothing reached the loopback services; the redirector did answer (the case is real).
      expect(httpVictim.connections).toBe(0);
      expect(rawVictim.connections).toBe(0);
      expect(v6Victim?.connections ?? 0).toBe(0);
      expect(redirector.connections).toBeGreaterThan(0);
      // And no password was kept for the host.
      expect(await basic.get(decodeURIComponent(at.split("/")[3]!))).toBeUndefined();
    },
  );
});
