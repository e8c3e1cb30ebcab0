import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { SMTPServer } from "smtp-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createHostMessenger,
  fileTransport,
  smsTransport,
  smtpTransport,
  type HostMessage,
} from "../../../src/jobs/outbox/index.js";
import { silentLogger, type Logger } from "../../../src/protocol/logger.js";

const message: HostMessage = {
  to: { email: "owner@example.test", phone: "+15555550100" },
  subject: "Approve a booking: Consultation, Thu 3 Dec 10:00",
  text: "Open https://gw.example/approve/abc to approve or decline.",
  key: "approval:h1:b_1",
  hostId: "h1",
};

describe("SMTP transport against a real SMTP server on loopback", () => {
  const received: Array<{ from: string; to: string[]; data: string; user?: string }> = [];
  let server: SMTPServer;
  let port = 0;
  let reject = false;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onAuth(auth, _session, cb) {
        if (auth.username === "relay" && auth.password === "s3cret") cb(null, { user: "relay" });
        else cb(new Error("bad credentials"));
      },
      onData(stream, session, cb) {
        let data = "";
        stream.on("data", (c: Buffer) => (data += c.toString("utf8")));
        stream.on("end", () => {
          if (reject) {
            const e = new Error("mailbox unavailable") as Error & { responseCode: number };
            e.responseCode = 550;
            cb(e);
            return;
          }
          received.push({
            from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((r) => r.address),
            data,
            ...(typeof session.user === "string" && { user: session.user }),
          });
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("delivers the message with the configured sender and credentials", async () => {
    const t = smtpTransport({
      host: "127.0.0.1",
      port,
      from: "gateway@example.test",
      user: "relay",
      password: "s3cret",
    });
    await t.send(message);
    const got = received.at(-1);
    expect(got?.from).toBe("gateway@example.test");
    expect(got?.to).toEqual(["owner@example.test"]);
    expect(got?.user).toBe("relay");
    expect(got?.data).toContain("Subject: Approve a booking");
    expect(got?.data).toContain("https://gw.example/approve/abc");
  });

  it("reports a refusal by its SMTP code, never with the password", async () => {
    reject = true;
    const t = smtpTransport({
      host: "127.0.0.1",
      port,
      from: "gateway@example.test",
      user: "relay",
      password: "s3cret",
    });
    const failure = await t.send(message).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    reject = false;
    expect(failure?.message).toMatch(/SMTP 550/);
    expect(failure?.message).not.toContain("s3cret");
  });

  it("wrong credentials are an error that names no secret", async () => {
    const t = smtpTransport({
      host: "127.0.0.1",
      port,
      from: "g@example.test",
      user: "relay",
      password: "wrong-pw",
    });
    const failure = await t.send(message).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure?.message).not.toContain("wrong-pw");
  });
});

describe("SMS transport (Twilio Messages API, recorded shape)", () => {
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());

  it("posts To, From and Body with basic auth and accepts 201", async () => {
    let form: URLSearchParams | undefined;
    let authHeader: string | undefined;
    nock("https://api.twilio.com")
      .post("/2010-04-01/Accounts/AC123/Messages.json", (body: unknown) => {
        form = new URLSearchParams(body as Record<string, string>);
        return true;
      })
      .reply(function () {
        authHeader = this.req.headers.authorization;
        // Shape: https://www.twilio.com/docs/messaging/api/message-resource (create response)
        return [201, { sid: "SM1", status: "queued", to: "+15555550100" }];
      });
    await smsTransport({ accountSid: "AC123", authToken: "tok-xyz", from: "+15555550199" }).send(message);
    expect(form?.get("To")).toBe("+15555550100");
    expect(form?.get("From")).toBe("+15555550199");
    expect(form?.get("Body")).toContain("approve");
    expect(authHeader).toBe(`Basic ${Buffer.from("AC123:tok-xyz").toString("base64")}`);
  });

  it("a refusal names the status and Twilio's code, not the token", async () => {
    nock("https://api.twilio.com")
      .post("/2010-04-01/Accounts/AC123/Messages.json")
      .reply(400, { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 });
    const failure = await smsTransport({ accountSid: "AC123", authToken: "tok-xyz", from: "+15555550199" })
      .send(message)
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(failure?.message).toBe("the SMS provider refused the message: HTTP 400, error 21211");
    expect(failure?.message).not.toContain("tok-xyz");
  });

  it("does not accept a message without a phone number", () => {
    const t = smsTransport({ accountSid: "AC1", authToken: "t", from: "+1" });
    expect(t.accepts({ ...message, to: { email: "a@b.test" } })).toBe(false);
  });
});

describe("file transport and the messenger", () => {
  it("appends one JSON line per message and prints its text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "host-messages-"));
    try {
      const printed: string[] = [];
      const path = join(dir, "nested", "host-messages.jsonl");
      await fileTransport(path, (l) => printed.push(l)).send(message);
      const line = JSON.parse(readFileSync(path, "utf8").trim()) as HostMessage;
      expect(line.key).toBe("approval:h1:b_1");
      expect(printed.join("\n")).toContain("https://gw.example/approve/abc");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("retries a failing transport with backoff, then succeeds; a key is sent once", async () => {
    let calls = 0;
    const delays: number[] = [];
    const messenger = createHostMessenger({
      transports: [
        {
          name: "flaky",
          accepts: () => true,
          send: () => (++calls < 3 ? Promise.reject(new Error("down")) : Promise.resolve()),
        },
      ],
      logger: silentLogger,
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    });
    messenger.send(message);
    messenger.send(message);
    await messenger.idle();
    expect(calls).toBe(3);
    expect(delays).toEqual([1000, 2000]);
  });

  it("gives up after the last attempt and logs it as an error", async () => {
    const errors: string[] = [];
    const logger: Logger = { ...silentLogger, error: (m) => errors.push(m) };
    const messenger = createHostMessenger({
      transports: [{ name: "down", accepts: () => true, send: () => Promise.reject(new Error("down")) }],
      logger,
      maxAttempts: 3,
      sleep: () => Promise.resolve(),
    });
    messenger.send(message);
    await messenger.idle();
    expect(errors).toEqual(["host message abandoned"]);
  });

  it("picks the first transport that can reach the recipient", async () => {
    const used: string[] = [];
    const messenger = createHostMessenger({
      transports: [
        {
          name: "smtp",
          accepts: (m) => m.to.email !== undefined,
          send: () => (used.push("smtp"), Promise.resolve()),
        },
        {
          name: "sms",
          accepts: (m) => m.to.phone !== undefined,
          send: () => (used.push("sms"), Promise.resolve()),
        },
      ],
      logger: silentLogger,
    });
    messenger.send({ ...message, key: "k2", to: { phone: "+1555" } });
    await messenger.idle();
    expect(used).toEqual(["sms"]);
  });
});
