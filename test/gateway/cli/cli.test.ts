import { describe, expect, it } from "vitest";
import { runCli, type RunningServer } from "../../../src/gateway/cli/cli.js";

function io(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { env, out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

describe("booking-gateway CLI", () => {
  it("serves over real HTTP on loopback and prints where discovery lives", async () => {
    const t = io({ PORT: "0" });
    const server = (await runCli(["serve"], t.io)) as RunningServer;
    try {
      expect(typeof server).toBe("object");
      const res = await fetch(`${server.url}/.well-known/scheduling.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("schcp-version")).toBe("0.4");
      expect(t.out.join("\n")).toMatch(/\/\.well-known\/scheduling\.json/);
    } finally {
      await server.close();
    }
  });

  it("refuses a bad PORT and an unknown command with exit code 2", async () => {
    const bad = io({ PORT: "eighty" });
    expect(await runCli(["serve"], bad.io)).toBe(2);
    expect(bad.err.join("\n")).toMatch(/PORT must be an integer/);
    const unknown = io();
    expect(await runCli(["launch"], unknown.io)).toBe(2);
    expect(unknown.err.join("\n")).toMatch(/unknown command "launch"/);
  });

  it("prints usage for help", async () => {
    const t = io();
    expect(await runCli(["help"], t.io)).toBe(0);
    expect(t.out.join("\n")).toMatch(/Usage: booking-gateway/);
  });
});
