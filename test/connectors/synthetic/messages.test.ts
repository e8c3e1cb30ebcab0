/**
 * The synthetic platform's outgoing verification messages (messages.ts): the sink receives
 * what a real platform would text or email, and the file sink is the customer's phone that
 * another process can read (OSBP "verification.send": the code arrives out of band).
 */
import { execFile } from "node:child_process";
import { appendFile, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  bayviewReferenceStudio,
  codeInMessage,
  fileMessageSink,
  readSyntheticMessages,
  type SyntheticMessage,
} from "../../../src/connectors/synthetic/index.js";
import { BEFORE_MONDAY, connectorFor, failure, value } from "./support.js";

const PHONE = "+15555550100";
const EMAIL = "jane@example.com";

describe("the message sink", () => {
  it("receives the code after it is stored: sent time, host, method, recipient and the platform's wording", async () => {
    const inbox: SyntheticMessage[] = [];
    const { connector } = connectorFor(bayviewReferenceStudio, { messages: (m) => void inbox.push(m) });
    expect(value(await connector.verification.send({ phone: PHONE, email: EMAIL }, "booking:x"))).toEqual({
      method: "sms",
    });
    const code = await connector.lastCodeFor(PHONE);
    expect(code).toMatch(/^\d{6}$/);
    expect(inbox).toEqual([
      {
        sentAt: new Date(BEFORE_MONDAY).toISOString(),
        hostId: "bayview-reference-studio",
        method: "sms",
        to: PHONE,
        text: `Your Bayview Reference Studio code is ${code}. It expires in 10 minutes.`,
      },
    ]);
    expect(codeInMessage(inbox[0]!)).toBe(code);
  });

  it("an email platform's message goes to the email address", async () => {
    const inbox: SyntheticMessage[] = [];
    const { connector } = connectorFor(
      { ...bayviewReferenceStudio, verificationMethod: "email" },
      { messages: (m) => void inbox.push(m) },
    );
    value(await connector.verification.send({ phone: PHONE, email: EMAIL }, "booking:x"));
    expect(inbox.map((m) => [m.method, m.to])).toEqual([["email", EMAIL]]);
  });

  it("a failing sink is the SMS provider failing: HTTP 503 unavailable, never a throw", async () => {
    const { connector } = connectorFor(bayviewReferenceStudio, {
      messages: () => Promise.reject(new Error("provider down")),
    });
    const e = failure(await connector.verification.send({ phone: PHONE }, "booking:x"));
    expect(e.code).toBe("unavailable");
    expect(e.upstream).toMatchObject({ call: "POST /v2/verifications", status: 503 });
    const sync = connectorFor(bayviewReferenceStudio, {
      messages: () => {
        throw new Error("provider down");
      },
    });
    expect(failure(await sync.connector.verification.send({ phone: PHONE }, "booking:x")).code).toBe(
      "unavailable",
    );
  });
});

describe("fileMessageSink and readSyntheticMessages", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "synthetic-messages-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("appends one JSON line per message, creating directories, readable by another process", async () => {
    const path = join(dir, "nested", "phone", "messages.jsonl");
    const { connector, clock } = connectorFor(bayviewReferenceStudio, { messages: fileMessageSink(path) });
    expect(await readSyntheticMessages(path)).toEqual([]);
    value(await connector.verification.send({ phone: PHONE }, "booking:x"));
    clock.advance(60_000);
    value(await connector.verification.send({ phone: "+15555550101" }, "booking:x"));
    const latest = await connector.lastCodeFor("+15555550101");

    const messages = await readSyntheticMessages(path);
    expect(messages.map((m) => m.to)).toEqual([PHONE, "+15555550101"]);
    expect(codeInMessage(messages[1]!)).toBe(latest);
    expect((await readFile(path, "utf8")).split("\n")).toHaveLength(3);
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    // The customer, elsewhere: a separate Node process reads the last line of the log.
    const { stdout } = await promisify(execFile)(process.execPath, [
      "-e",
      `const lines = require("node:fs").readFileSync(process.argv[1], "utf8").trim().split("\\n");
       process.stdout.write(/\\b(\\d{6})\\b/.exec(JSON.parse(lines.at(-1)).text)[1]);`,
      path,
    ]);
    expect(stdout).toBe(latest);
  });

  it("leaves a line still being written for the next read, and refuses a file that is not a message log", async () => {
    const path = join(dir, "messages.jsonl");
    const sink = fileMessageSink(path);
    const m: SyntheticMessage = {
      sentAt: "2026-10-18T16:00:00.000Z",
      hostId: "h",
      method: "sms",
      to: PHONE,
      text: "Your H code is 123456. It expires in 10 minutes.",
    };
    await sink(m);
    await appendFile(path, '{"sentAt":"2026-10-18T16:0');
    expect(await readSyntheticMessages(path)).toEqual([m]);
    await appendFile(path, '0:00.000Z"}\n');
    await expect(readSyntheticMessages(path)).rejects.toThrow(`${path}:2: not a synthetic message`);
  });
});
