/**
 * Everything the gateway writes in its data dir (GATEWAY_DATA_DIR) is owner-only: each file
 * 0600, each directory 0700, whatever the umask, and also when a file or the directory was
 * left wider before the gateway started. An end-to-end run on the embedded default (`npm
 * start`'s hosts, its local calendar seeded): a booking on the calendar host (its TENTATIVE
 * event written as a .ics file, the approver's link appended to host-messages.jsonl), an
 * owner account, an A2A key, a CalDAV password and an OAuth grant in the file vault, a
 * console-created host, the synthetic platform's message log and an OSBP audit record and
 * idempotency file in the data dir. Then every file under the data dir is listed and checked.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EMBEDDED_CALENDAR_DIR,
  EMBEDDED_CALENDAR_HOST,
} from "../../../src/booking/hosts/embedded-default.js";
import { hostsFor } from "../../../src/gateway/cli/config-file.js";
import { openVaultFromEnv } from "../../../src/gateway/cli/credentials.js";
import { fileMessageSink } from "../../../src/connectors/synthetic/index.js";
import { createJsonlAuditLog } from "../../../src/edges/osbp/audit/jsonl.js";
import { FileIdempotencyStore } from "../../../src/edges/osbp/idempotency/file.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { mandateFor, newKey } from "../support/agent.js";
import { agentFetch, startGateway, type TestGateway } from "../support/gateway.js";

let root: string;
let dataDir: string;
let gw: TestGateway | undefined;
let umaskBefore: number | undefined;

/** Every file and directory under `dir` (the dir itself included), with its permission bits. */
function listModes(dir: string): Array<{ path: string; kind: "file" | "dir"; mode: number }> {
  const out: Array<{ path: string; kind: "file" | "dir"; mode: number }> = [
    { path: ".", kind: "dir", mode: statSync(dir).mode & 0o777 },
  ];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      const mode = statSync(full).mode & 0o777;
      out.push({ path: relative(dataDir, full), kind: entry.isDirectory() ? "dir" : "file", mode });
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out;
}

beforeAll(async () => {
  // The widest umask there is: a file created without an explicit mode would be 0666, a
  // directory 0777. (Worker threads cannot change it; the check below then runs under the
  // usual 022, which still turns every missing mode into a readable file.)
  try {
    umaskBefore = process.umask(0o000);
  } catch {
    umaskBefore = undefined;
  }
  root = await mkdtemp(join(tmpdir(), "gw-private-files-"));
  dataDir = join(root, "data");
  // Left wider by an earlier version or by hand: the data dir, and the approval message file.
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, "host-messages.jsonl"), "", { mode: 0o644 });
  chmodSync(join(dataDir, "host-messages.jsonl"), 0o644);
}, 30_000);

afterAll(async () => {
  await gw?.close();
  if (umaskBefore !== undefined) process.umask(umaskBefore);
  await rm(root, { recursive: true, force: true });
});

describe("private files in the data dir", () => {
  it("an end-to-end run leaves only 0600 files in 0700 directories", async () => {
    // The embedded default, as `serve` loads it: the calendar directory is seeded here.
    const hosts = await hostsFor(undefined, root, dataDir);
    if (!hosts.ok) throw new Error(hosts.error);
    const vault = openVaultFromEnv({ TOKEN_KEYS: `k1:${randomBytes(32).toString("base64")}` }, { dataDir });
    if (!vault.ok || vault.value === undefined) throw new Error("vault");
    const v = vault.value;
    gw = await startGateway({
      dataDir,
      hosts: hosts.value,
      credentials: { vault: v.vault, basic: v.basic, refreshLock: v.refreshLock, env: {} },
      syntheticMessages: fileMessageSink(join(dataDir, "synthetic-messages.jsonl")),
      managedHostsReconcileMs: false,
    });
    const runtime = gw.runtime;

    // A booking on the calendar host: TENTATIVE event file, approver's message with its link.
    expect(await runtime.syncCalendarNow(EMBEDDED_CALENDAR_HOST)).toBe(true);
    const agent = newKey();
    const principal = newKey();
    const path = `/schcp/v0/${EMBEDDED_CALENDAR_HOST}`;
    const avail = await agentFetch(gw, agent, {
      method: "POST",
      path: `${path}/availability`,
      body: {
        service_id: "intro-call",
        window: { start: "2026-10-14T15:00:00-04:00", end: "2026-10-14T18:00:00-04:00" },
      },
    });
    expect(avail.status, JSON.stringify(avail.json)).toBe(200);
    const start = (avail.json as { slots: Array<{ start: string }> }).slots[0]?.start;
    expect(start).toBeDefined();
    const mandate = await mandateFor({ principal, agent, aud: EMBEDDED_CALENDAR_HOST, nowSec: gw.clock.sec });
    const hold = await agentFetch(gw, agent, {
      method: "POST",
      path: `${path}/holds`,
      mandate,
      body: { service_id: "intro-call", start, idempotency_key: "hold-1" },
    });
    expect(hold.status, JSON.stringify(hold.json)).toBe(201);
    const h = hold.json as { hold_id: string; offer: string };
    const confirm = await agentFetch(gw, agent, {
      method: "POST",
      path: `${path}/holds/${h.hold_id}/confirm`,
      mandate,
      body: { idempotency_key: "confirm-1", offer_sha256: offerSha256(h.offer) },
    });
    expect(confirm.status, JSON.stringify(confirm.json)).toBe(202);
    await runtime.messenger.idle();

    // An owner account, an A2A key, secrets in the file vault, a console-created host.
    const invited = await runtime.console!.accounts.invite("owner@example.com");
    if (!invited.ok) throw new Error("invite");
    await runtime.console!.accounts.accept(invited.value.token, "a long enough password");
    await runtime.a2aKeys.issue("maple-street-auto");
    await v.basic.put("caldav-host", {
      kind: "basic",
      serverUrl: "https://dav.example.com/",
      username: "owner",
      password: "owner-Pa55word",
    });
    await runtime.managedHosts.store.put({
      id: "draft-host",
      owner: "operator",
      source: "caldav",
      state: "draft",
      config: { id: "draft-host", name: "Draft", timezone: "UTC" },
      createdAt: 1,
      updatedAt: 1,
    } as never);
    // The synthetic platform's "phone" and OSBP's audit and idempotency files, in the data dir.
    await fileMessageSink(join(dataDir, "synthetic-messages.jsonl"))({
      sentAt: new Date().toISOString(),
      hostId: "maple-street-auto",
      method: "sms",
      to: "+15555550100",
      text: "Your code is 123456",
    } as never);
    const audit = await createJsonlAuditLog({
      path: join(dataDir, ".osbp", "audit", "events.jsonl"),
      clock: { now: () => Date.now() },
    });
    await audit.record({
      tool_name: "service.describe",
      input: {},
      result: { ok: true, value: {} },
    } as never);
    await audit.close();
    const idem = await FileIdempotencyStore.open(join(dataDir, ".osbp", "idempotency.json"));
    await idem.close();

    const all = listModes(dataDir);
    const names = all.map((e) => e.path);
    // The run wrote what it should have (so the check below covers them).
    expect(names).toContain("host-messages.jsonl");
    expect(
      names.filter((n) => n.startsWith(EMBEDDED_CALENDAR_DIR) && n.endsWith(".ics")),
      names.join(", "),
    ).toHaveLength(3);
    expect(names).toContain(`${EMBEDDED_CALENDAR_DIR}/dentist.ics`);
    expect(names).toContain("owner-accounts.json");
    expect(names).toContain("a2a-keys.json");
    expect(names).toContain("synthetic-messages.jsonl");
    expect(names).toContain(".osbp/audit/events.jsonl");
    expect(names.some((n) => n.startsWith("hosts/"))).toBe(true);
    expect(names.some((n) => n.startsWith("basic/"))).toBe(true);

    const wrong = all
      .filter((e) => e.mode !== (e.kind === "dir" ? 0o700 : 0o600))
      .map((e) => `${e.path} (${e.kind}) ${e.mode.toString(8)}`);
    expect(wrong, `listed: ${names.join(", ")}`).toEqual([]);
  });
});
