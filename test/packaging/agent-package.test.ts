/**
 * The agent SDK as its own package (packages/agent): `npm pack` builds it, an empty project
 * installs the tarball from its declared dependencies alone, and a plain ESM script there, which
 * imports nothing but the package name, books an appointment on a running gateway over HTTP and
 * verifies the host-signed receipt (SchCP §5.2–§5.3).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type E2eGateway } from "../e2e/support/gateway.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What an agent developer would write: the package's name, its exports, nothing of this repository. */
const SCRIPT = `
import { KeyApp, SchcpClient, createAgentKey, describeAgentError, verifyBookingReceipt, verifyHoldOffer } from "@booking-gateway/agent";

const need = (what, r) => {
  if (!r.ok) { console.error(what + ": " + describeAgentError(r.error)); process.exit(1); }
  return r.value;
};
const agentKey = createAgentKey();
const contact = { name: "Sam R.", phone: "+1-416-555-0100" };
const keyApp = new KeyApp({ principalKey: createAgentKey(), contact });
const client = new SchcpClient({ agentKey });

const op = need("operator", await client.discoverOperator(process.argv[2]));
const listing = op.document.hosts.find((h) => h.id === "maple-street-auto");
const host = need("host", await client.discoverHost(listing.discovery));
const service = host.document.services[0];
const open = await keyApp.issueMandate({
  agent: agentKey, audience: host.hostId, scope: ["hold"], constraints: { services: [service.id] },
  ttlSec: 1800, consent: { mode: "human_present", statement: "Find me a time this week." },
});
const day = 86_400_000;
const window = { start: new Date(Date.now() + day).toISOString(), end: new Date(Date.now() + 8 * day).toISOString() };
const slots = need("availability", await client.availability(host, { service_id: service.id, window, limit: 3 }, { mandate: open.compact }));
const held = need("hold", await client.hold(host, { service_id: service.id, start: slots.body.slots[0].start, ttl: "PT5M" }, { mandate: open.compact }));
const { offer } = need("offer", await verifyHoldOffer(held.body, host));
const closed = need("consent", await keyApp.closedMandate(held.body.offer, host, { agent: agentKey }));
const confirmed = need("confirm", await client.confirm(host, held.body.hold_id, { offer_sha256: offer.sha256, contact }, { mandate: closed.compact }));
const booked = need("receipt", await verifyBookingReceipt(confirmed.body, host, { offerSha256: offer.sha256, mandateJti: closed.jti }));
console.log(JSON.stringify({ status: booked.booking.status, booking_id: booked.booking.booking_id, start: booked.booking.start, consent: closed.consentText }));
`;

let gw: E2eGateway;
let dir = "";
beforeAll(async () => {
  gw = await startGateway();
  dir = await mkdtemp(join(tmpdir(), "gw-agent-package-"));
});
afterAll(async () => {
  await gw?.close();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("@booking-gateway/agent, packed and installed into an empty project", () => {
  it(
    "installs with its own dependencies and books through its public exports",
    { timeout: 180_000 },
    async () => {
      const packs = join(dir, "packs");
      await mkdir(packs);
      await run("npm", ["pack", "-w", "packages/agent", "--pack-destination", packs, "--silent"], {
        cwd: ROOT,
      });
      const [tarball] = await readdir(packs);
      expect(tarball).toMatch(/^booking-gateway-agent-\d+\.\d+\.\d+\.tgz$/);

      const { stdout: listing } = await run("tar", ["tzf", join(packs, tarball!)]);
      const files = listing.trim().split("\n");
      expect(files).toContain("package/dist/agent/index.js");
      expect(files).toContain("package/dist/agent/index.d.ts");
      expect(files).toContain("package/README.md");
      // The SDK and the pure protocol modules it uses; nothing of the gateway, no source maps.
      expect(
        files.filter((f) => !/^package\/(dist\/(agent|protocol)\/|README\.md$|package\.json$)/.test(f)),
      ).toEqual([]);
      expect(files.some((f) => f.endsWith(".map") || (f.endsWith(".ts") && !f.endsWith(".d.ts")))).toBe(
        false,
      );

      const project = join(dir, "project");
      await mkdir(project);
      await writeFile(
        join(project, "package.json"),
        JSON.stringify({ name: "probe", version: "1.0.0", type: "module", private: true }),
      );
      await run(
        "npm",
        ["install", join(packs, tarball!), "--prefer-offline", "--no-audit", "--no-fund", "--silent"],
        { cwd: project },
      );
      await writeFile(join(project, "book.mjs"), SCRIPT);
      const { stdout } = await run(process.execPath, ["book.mjs", gw.origin], { cwd: project });
      const booked = JSON.parse(stdout) as {
        status: string;
        booking_id: string;
        start: string;
        consent: string;
      };
      expect(booked.status).toBe("confirmed");
      expect(booked.booking_id).toMatch(/^b_/);
      expect(booked.consent).toContain("Maple Street Auto");
      // The gateway holds the same booking.
      const res = await fetch(`${gw.origin}/operator/v0/maple-street-auto/bookings`, {
        headers: gw.operatorAuth,
      });
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain(booked.booking_id);
    },
  );
});
