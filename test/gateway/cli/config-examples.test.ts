/**
 * The config file format (docs/settings.md "Config file"): every example under examples/config loads
 * with the real reader and parser once its placeholders are filled in (as they are, each
 * `"<…>"` is refused, naming its setting), its connector settings are accepted by the real
 * connector factory (no network: building a connector sends nothing), and a calendar host's
 * section by the calendar parser. `.jsonc` takes comments and trailing commas; `.json` stays
 * strict, and one with a comment is told to take the `.jsonc` extension. A misspelt setting,
 * made in the real examples, is answered with the setting it was meant to be.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
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

/** Where each example still reads "<…>": the settings a user fills in. */
const PLACEHOLDERS: Readonly<Record<string, readonly string[]>> = {
  square: ["/hosts/0/connector/settings/accessToken", "/hosts/0/connector/settings/webhookSignatureKey"],
  caldav: ["/hosts/0/connector/settings/password"],
  servicialo: ["/hosts/0/connector/settings/apiKey"],
};

/** An example's text with its placeholders filled in, written to the temp dir; its path. */
async function filled(name: string, edit: (text: string) => string = (t) => t): Promise<string> {
  const text = await readFile(join(EXAMPLES, `${name}.jsonc`), "utf8");
  const path = join(dir, `${name}.jsonc`);
  await writeFile(path, edit(text.replace(/"<[^"<>]+>"/g, '"stand-in-value"')));
  return path;
}

const deps = () => ({
  clock: { now: () => Date.now() },
  syntheticBackend: new MemorySyntheticBackend(),
  dataDir: dir,
});

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

  it.each(Object.entries(PLACEHOLDERS))(
    "%s.jsonc as it is: refused, naming each placeholder's setting",
    async (name, fields) => {
      const loaded = await loadHostsConfigFile(join(EXAMPLES, `${name}.jsonc`));
      expect(loaded.ok).toBe(false);
      if (loaded.ok) return;
      expect(loaded.error).toMatch(
        new RegExp(
          `${name}\\.jsonc: ${fields[0]}: "<[^"]+>" is a placeholder: the examples in examples/config/ write "<…>" where your own value goes`,
        ),
      );
      for (const field of fields) expect(loaded.error).toContain(field);
    },
  );

  it("has no placeholder in the other examples", async () => {
    for (const name of CONNECTORS.filter((c) => PLACEHOLDERS[c] === undefined)) {
      const text = await readFile(join(EXAMPLES, `${name}.jsonc`), "utf8");
      expect(text.replace(/\/\/.*$/gm, "")).not.toMatch(/"<[^"<>]+>"/);
    }
  });

  it.each(CONNECTORS)(
    "%s.jsonc, filled in, loads, and its connector and calendar settings are accepted",
    async (name) => {
      const loaded = await loadHostsConfigFile(await filled(name));
      if (!loaded.ok) throw new Error(loaded.error);
      expect(loaded.value.length).toBeGreaterThan(0);
      loaded.value.forEach((host, i) => {
        expect(host.connector.type).toBe(name);
        const made = connectorFor(host, `/hosts/${i}`, deps());
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

describe("a misspelt setting in an example names the one it was meant to be", () => {
  it("a host's setting: timeZone", async () => {
    const path = await filled("synthetic", (t) => t.replace('"timezone"', '"timeZone"'));
    const loaded = await loadHostsConfigFile(path);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok)
      expect(loaded.error).toBe(`${path}: /hosts/0/timeZone: unknown setting; did you mean \`timezone\`?`);
  });

  it("a policy: retension", async () => {
    const path = await filled("square", (t) => t.replace('"retention"', '"retension"'));
    const loaded = await loadHostsConfigFile(path);
    expect(!loaded.ok && loaded.error).toMatch(
      /\/hosts\/0\/policies\/retension: unknown setting; did you mean `retention`\?$/,
    );
  });

  it.each([
    [
      "square",
      '"locationId"',
      '"locationID"',
      /Square settings have no "locationID"; did you mean `locationId`\?/,
    ],
    [
      "google",
      '"pageSize"',
      '"page_size"',
      /unknown Google Calendar setting "page_size"; did you mean `pageSize`\?/,
    ],
    [
      "google",
      '"accessTokenFile"',
      '"accesTokenFile"',
      /settings\/accesTokenFile: unknown setting; did you mean `accessTokenFile`\?/,
    ],
    [
      "caldav",
      '"calendarPath"',
      '"calendar_path"',
      /unknown CalDAV setting "calendar_path"; did you mean `calendarPath`\?/,
    ],
  ])("a connector setting: %s %s written %s", async (name, right, wrong, message) => {
    const loaded = await loadHostsConfigFile(await filled(name, (t) => t.replace(right, wrong)));
    if (!loaded.ok) throw new Error(loaded.error);
    const made = connectorFor(loaded.value[0]!, "/hosts/0", deps());
    expect(!made.ok && made.error.message).toMatch(message);
  });

  it("a calendar setting: syncEvery", async () => {
    const loaded = await loadHostsConfigFile(
      await filled("google", (t) => t.replace('"sync_every"', '"syncEvery"')),
    );
    if (!loaded.ok) throw new Error(loaded.error);
    const section = (loaded.value[0] as unknown as { calendar?: unknown }).calendar;
    const cal = parseCalendarSection(section, "/hosts/0/calendar");
    expect(!cal.ok && cal.error.message).toBe(
      "/hosts/0/calendar/syncEvery: is not a calendar setting; did you mean `sync_every`?",
    );
  });
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

  it(".json stays strict: the same text is refused, and told to take the .jsonc extension", async () => {
    await writeFile(join(dir, "strict.json"), body);
    const loaded = await loadHostsConfigFile(join(dir, "strict.json"));
    expect(loaded.ok).toBe(false);
    if (!loaded.ok)
      expect(loaded.error).toBe(
        `${join(dir, "strict.json")}:2:3: a comment, which a .json file cannot carry (it is strict JSON): rename the file to strict.jsonc, JSON with comments, as the examples in examples/config/ are`,
      );
  });

  it("an example copied to a .json file is told to take the .jsonc extension", async () => {
    const text = await readFile(join(EXAMPLES, "synthetic.jsonc"), "utf8");
    await writeFile(join(dir, "hosts.json"), text);
    const loaded = await loadHostsConfigFile(join(dir, "hosts.json"));
    expect(!loaded.ok && loaded.error).toMatch(
      /hosts\.json:1:1: a comment, .*rename the file to hosts\.jsonc/,
    );
  });

  it("a .json file whose only JSONC is a trailing comma is told so", async () => {
    await writeFile(join(dir, "comma.json"), '{\n  "hosts": [],\n}\n');
    const loaded = await loadHostsConfigFile(join(dir, "comma.json"));
    expect(!loaded.ok && loaded.error).toMatch(
      /comma\.json:3:1: a trailing comma, .*rename the file to comma\.jsonc/,
    );
  });

  it("a .json file that is not JSON with comments either keeps the JSON error", async () => {
    await writeFile(join(dir, "broken.json"), "{ hosts: [] }");
    const loaded = await loadHostsConfigFile(join(dir, "broken.json"));
    expect(!loaded.ok && loaded.error).toMatch(/broken\.json: not valid JSON/);
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
