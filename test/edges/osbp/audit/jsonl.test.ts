/**
 * The JSONL audit log (OSBP "Audit", "Security and Privacy Considerations": audit events are
 * redacted before writing; input_hash and result_hash are hex SHA-256 digests of the
 * redacted snapshots).
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AUDIT_ID_PATTERN } from "../../../../src/edges/osbp/audit/ids.js";
import { AuditLogError, createJsonlAuditLog, readAuditLog } from "../../../../src/edges/osbp/audit/jsonl.js";
import type { AuditEntry, AuditLog } from "../../../../src/edges/osbp/audit/port.js";
import {
  canonicalJson,
  sha256Hex,
  type BookingCreateInput,
  type BookingMandate,
} from "../../../../src/protocol/osbp/index.js";

const NOW = Date.parse("2026-05-05T20:00:00.000Z");
const clock = { now: () => NOW };

const dirs: string[] = [];
const logs: AuditLog[] = [];
afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempPath(...parts: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "osbp-audit-"));
  dirs.push(dir);
  return join(dir, ...(parts.length > 0 ? parts : ["events.jsonl"]));
}

async function openLog(
  path: string,
  extra: { source?: string; newId?: () => string } = {},
): Promise<AuditLog> {
  const log = await createJsonlAuditLog({ path, clock, ...extra });
  logs.push(log);
  return log;
}

const CUSTOMER = {
  given_name: "Marisol",
  family_name: "Quintanilla",
  display_name: "Marisol Quintanilla",
  phone: "+14155550123",
  email: "marisol.q@example.com",
};
const TOKEN = "apv_7f3c9a1e5b2d4c6e8f0a1b3c5d7e9f21";
const CODE = "482913";

const MANDATE: BookingMandate = {
  id: "mnd_2026_05_01_001",
  expires_at: "2026-05-01T23:59:59-07:00",
  allowed_actions: ["booking.create"],
  organization_id: "org_1",
  earliest_start: "2026-05-01T09:00:00",
  latest_end: "2026-05-14T18:00:00",
  max_price: { amount_minor: 10000, currency: "USD" },
};

const CREATE_INPUT: BookingCreateInput = {
  mandate: MANDATE,
  idempotency_key: "idem_2026_05_01_001",
  service_id: "service_123",
  schedule_id: "schedule_123",
  provider_id: "provider_123",
  date: "2026-05-05",
  time: "13:00",
  customer: CUSTOMER,
  approval: { confirmed: true, token: TOKEN },
  verification_code: CODE,
};

function createEntry(): AuditEntry {
  return {
    tool_name: "booking.create",
    mandate_id: MANDATE.id,
    input: structuredClone(CREATE_INPUT),
    result: {
      ok: true,
      value: {
        receipt: {
          id: "rcpt_1",
          booking_id: "bk_1",
          text: "Booked: Haircut for Marisol Quintanilla on Tue May 5 at 1:00 PM.",
        },
        message: `Earlier challenge: approval.token="${TOKEN}" (now confirmed).`,
      },
    },
    platform: { vendor: "synthetic", api_version: "2026-01-01" },
    upstream: { call: "POST /appointments", status: 201, request_id: "req_42" },
  };
}

describe("createJsonlAuditLog", () => {
  it('"Audit": a booking.create event carries no customer data, token or code, anywhere in the line', async () => {
    const path = await tempPath();
    const log = await openLog(path);
    await log.record(createEntry());
    const text = await readFile(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(text.split("\n").filter(Boolean)).toHaveLength(1);
    for (const secret of [
      "Marisol",
      "Quintanilla",
      "+14155550123",
      "4155550123",
      "marisol.q@example.com",
      TOKEN,
      CODE,
    ]) {
      expect(text).not.toContain(secret);
    }
    // Still useful: the correlation ids and the shape survive.
    expect(text).toContain("idem_2026_05_01_001");
    expect(text).toContain("[redacted:token]");
    expect(text).toContain("rcpt_1");
  });

  it('"Audit": the event has the spec\'s fields, and its hashes are SHA-256 of the redacted snapshots', async () => {
    const path = await tempPath();
    const log = await openLog(path);
    const event = await log.record(createEntry());
    expect(event).toMatchObject({
      mandate_id: "mnd_2026_05_01_001",
      tool_name: "booking.create",
      created_at: "2026-05-05T20:00:00.000Z",
      source: "osbp-local-mcp",
      platform: { vendor: "synthetic", api_version: "2026-01-01" },
      upstream: { call: "POST /appointments", status: 201, request_id: "req_42" },
    });
    expect(event.id).toMatch(AUDIT_ID_PATTERN);
    expect(event.input_hash).toBe(sha256Hex(canonicalJson(event.input)));
    expect(event.result_hash).toBe(sha256Hex(canonicalJson(event.result)));
    expect(event.input_hash).not.toBe(sha256Hex(canonicalJson(CREATE_INPUT)));

    // What is on disk is what record() returned.
    const [read] = await readAuditLog(path);
    expect(read).toEqual(event);
    expect(read?.input_hash).toBe(sha256Hex(canonicalJson(read?.input)));
    expect(read?.result_hash).toBe(sha256Hex(canonicalJson(read?.result)));
  });

  it("omits mandate_id, platform and upstream when not given (a locally answered call)", async () => {
    const path = await tempPath();
    const log = await openLog(path);
    const event = await log.record({
      tool_name: "handoff.request",
      input: { reason: "customer_request", message: "Needs a human." },
      result: { ok: true, value: { status: "requires_human" } },
    });
    expect(Object.keys(event).sort()).toEqual(
      ["created_at", "id", "input", "input_hash", "result", "result_hash", "source", "tool_name"].sort(),
    );
  });

  it("uses the given source and id generator", async () => {
    const path = await tempPath();
    let n = 0;
    const log = await openLog(path, { source: "osbp-test", newId: () => `aud_fixed_${++n}` });
    const event = await log.record(createEntry());
    expect(event).toMatchObject({ id: "aud_fixed_1", source: "osbp-test" });
  });

  it("does not change the caller's input or result", async () => {
    const path = await tempPath();
    const log = await openLog(path);
    const entry = createEntry();
    const before = structuredClone(entry);
    await log.record(entry);
    expect(entry).toEqual(before);
  });

  it("100 concurrent records: 100 valid lines in call order, unique ids", async () => {
    const path = await tempPath();
    const log = await openLog(path);
    const events = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        log.record({ tool_name: "booking.status", input: { booking_id: `bk_${i}` }, result: { ok: true } }),
      ),
    );
    const lines = (await readFile(path, "utf8")).split("\n").filter(Boolean);
    expect(lines).toHaveLength(100);
    const read = lines.map((line) => JSON.parse(line) as { id: string; input: { booking_id: string } });
    expect(read.map((e) => e.input.booking_id)).toEqual(events.map((_, i) => `bk_${i}`));
    expect(read.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(new Set(read.map((e) => e.id)).size).toBe(100);
    // Same millisecond throughout: the monotonic ids still sort in line order.
    expect([...read.map((e) => e.id)].sort()).toEqual(read.map((e) => e.id));
  });

  it("appends to an existing log and creates missing directories with a 0600 file", async () => {
    const path = await tempPath("nested", "audit", "events.jsonl");
    const first = await openLog(path);
    await first.record(createEntry());
    await first.close();
    const second = await openLog(path);
    await second.record(createEntry());
    expect(await readAuditLog(path)).toHaveLength(2);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("an unwritable path rejects record() with an error naming the path", async () => {
    const path = await tempPath();
    await mkdir(path); // a directory where the file should be
    const log = await openLog(path);
    const recording = log.record(createEntry());
    await expect(recording).rejects.toBeInstanceOf(AuditLogError);
    await expect(recording).rejects.toThrow(path);
  });

  it("a directory that cannot be created rejects createJsonlAuditLog", async () => {
    const blocker = await tempPath("a-file");
    await writeFile(blocker, "");
    await expect(createJsonlAuditLog({ path: join(blocker, "events.jsonl"), clock })).rejects.toThrow(
      /cannot create the directory/,
    );
  });

  it("after a failed write, the next event still starts on its own line", async () => {
    const path = await tempPath();
    const log = await openLog(path);
    await mkdir(path);
    await expect(log.record(createEntry())).rejects.toThrow();
    await rm(path, { recursive: true });
    await writeFile(path, '{"id":"aud_x","tool_name":"booking.status","partial":'); // as if torn
    await log.record(createEntry());
    const lines = (await readFile(path, "utf8")).split("\n");
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ tool_name: "booking.create" });
  });

  it("close() waits for pending lines; record() after close rejects", async () => {
    const path = await tempPath();
    const log = await createJsonlAuditLog({ path, clock });
    const pending = log.record(createEntry());
    await log.close();
    await expect(pending).resolves.toMatchObject({ tool_name: "booking.create" });
    await expect(log.record(createEntry())).rejects.toThrow(/closed/);
    expect(await readAuditLog(path)).toHaveLength(1);
  });
});

describe("readAuditLog", () => {
  it("names the file and line of something that is not an event", async () => {
    const path = await tempPath();
    await writeFile(path, '{"id":"aud_1","tool_name":"booking.status"}\nnot json\n');
    await expect(readAuditLog(path)).rejects.toThrow(`${path} line 2`);
  });

  it("a missing file is an error, not an empty log", async () => {
    const path = await tempPath();
    await expect(readAuditLog(path)).rejects.toThrow(/cannot read audit log/);
  });
});
