import { describe, expect, it } from "vitest";
import { readHostMessageEnv } from "../../../src/gateway/cli/serve-env.js";

describe("approval-message transports from the environment", () => {
  it("none configured: the file transport is used (undefined here)", () => {
    expect(readHostMessageEnv({})).toEqual({ ok: true, value: undefined });
  });
  it("SMTP with STARTTLS required by default, and Twilio", () => {
    const r = readHostMessageEnv({
      SMTP_HOST: "smtp.example.com",
      SMTP_USER: "gw",
      SMTP_PASSWORD: "pw",
      SMTP_FROM: "gateway@example.com",
      TWILIO_ACCOUNT_SID: "AC1",
      TWILIO_AUTH_TOKEN: "t",
      TWILIO_FROM: "+15555550100",
    });
    expect(r).toEqual({
      ok: true,
      value: {
        smtp: {
          host: "smtp.example.com",
          port: 587,
          secure: false,
          requireTls: true,
          from: "gateway@example.com",
          user: "gw",
          password: "pw",
        },
        sms: { accountSid: "AC1", authToken: "t", from: "+15555550100" },
      },
    });
  });
  it.each([
    [{ SMTP_HOST: "h" }, /SMTP_FROM/],
    [{ SMTP_HOST: "h", SMTP_FROM: "a@b.c", SMTP_PORT: "70000" }, /SMTP_PORT/],
    [{ TWILIO_ACCOUNT_SID: "AC1" }, /TWILIO_AUTH_TOKEN/],
  ])("refuses an incomplete setting (%#)", (env, message) => {
    const r = readHostMessageEnv(env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });
});
