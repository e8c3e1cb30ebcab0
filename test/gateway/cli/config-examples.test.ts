/**
 * The config file format (README "Config files"): every example under examples/config loads
 * with the real reader and parser, its connector settings are accepted by the real connector
 * factory (no network: building a connector sends nothing), and a calendar host's section by
 * the calendar parser. `.jsonc` takes comments and trailing commas; `.json` stays strict.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCalendarSection } from "../../../src/booking/calendar/config.js";
import { loadHostsConfigFile } from "../../../src/gateway/cli/config-file.js";
import { MemorySyntheticBackend } from "../../../src/connectors/synthetic/index.js";
import { connectorFor } from "../../../src/gateway/runtime/connectors.js";

const EXAMPLES = join(import.meta.dirname, "../../../examples/config");
const CONNECTORS = [
  "square",
  "google",
  "microsoft",
  "caldav",
  "openings",
  "servicialo",
  "ics-dir",
  "synthetic",
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-config-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("examples/config", () => {
  it("has one commented example per connector", async () => {
    const files = (await readdir(EXAMPLES)).filter((f) => f.endsWith(".jsonc")).sort();
    expect(files).toEqual(CONNECTORS.map((c) => `${c}.jsonc`).sort());
  });

  it.each(CONNECTORS)(
    "%s.jsonc loads, and its connector and calendar settings are accepted",
    async (name) => {
      const loaded = await loadHostsConfigFile(join(EXAMPLES, `${name}.jsonc`));
      if (!loaded.ok) throw new Error(loaded.error);
      expect(loaded.value.length).toBeGreaterThan(0);
      loaded.value.forEach((host, i) => {
        expect(host.connector.type).toBe(name);
        const made = connectorFor(host, `/hosts/${i}`, {
          clock: { now: () => Date.now() },
          syntheticBackend: new MemorySyntheticBackend(),
          dataDir: dir,
        });
        if (!made.ok) throw new Error(`${name}: ${made.error.message}`);
        const section = (host as unknown as { calendar?: unknown }).calendar;
        if (["google", "microsoft", "caldav", "ics-dir"].includes(name)) {
          expect(section).toBeDefined();
          const cal = parseCalendarSection(section, `/hosts/${i}/calendar`);
          if (!cal.ok) throw new Error(`${name}: ${cal.error.message}`);
        }
      });
    },
  );
});

describe("config file format", () => {
  const body = `{
  // a comment
  "hosts": [
    { "id": "a", "name": "A", "timezone": "America/Toronto",
      "connector": { "type": "synthetic", "settings": { "scenario": "maple-street-auto" } }, },
  ],
}`;

  it(".jsonc takes comments and trailing commas", async () => {
    await writeFile(join(dir, "ok.jsonc"), body);
    const loaded = await loadHostsConfigFile(join(dir, "ok.jsonc"));
    expect(loaded.ok && loaded.value.map((h) => h.id)).toEqual(["a"]);
  });

  it(".json stays strict: the same text is refused", async () => {
    await writeFile(join(dir, "strict.json"), body);
    const loaded = await loadHostsConfigFile(join(dir, "strict.json"));
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error).toMatch(/strict\.json: not valid JSON/);
  });

  it("a .jsonc syntax error names the line and column", async () => {
    await writeFile(
      join(dir, "bad.jsonc"),
      '{\n  // fine\n  "hosts": [\n    { "id": "a" "name": "A" }\n  ]\n}\n',
    );
    const loaded = await loadHostsConfigFile(join(dir, "bad.jsonc"));
    expect(loaded.ok).toBe(false);
    if (!loaded.ok)
      expect(loaded.error).toMatch(/bad\.jsonc:4:17: not valid JSON with comments: CommaExpected/);
  });

  it("a .jsonc duplicate member is refused with its position", async () => {
    await writeFile(join(dir, "dup.jsonc"), '{\n  "hosts": [],\n  "hosts": [],\n}\n');
    const loaded = await loadHostsConfigFile(join(dir, "dup.jsonc"));
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error).toMatch(/dup\.jsonc:3:3: duplicate member "hosts"/);
  });

  it("a field error still names the field", async () => {
    await writeFile(
      join(dir, "field.jsonc"),
      '{ "hosts": [ { "id": "a", "name": "A", "timezone": "Mars/Base", "connector": { "type": "synthetic", "settings": {} } } ] }',
    );
    const loaded = await loadHostsConfigFile(join(dir, "field.jsonc"));
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error).toMatch(/field\.jsonc: .*\/hosts\/0\/timezone/);
  });
});
