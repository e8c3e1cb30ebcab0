/**
 * Layer boundaries (docs/ARCHITECTURE.md, Layers), as boundaries.config.js gives them to ESLint:
 * an import of each forbidden kind, planted with `lintText` at a path in the layer, fails with
 * its rule's message; the tree lints clean, with no exception listed. Only the boundary rules
 * run here (no type information), so no server and no TypeScript program are needed.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

interface Exception {
  readonly rule: string;
  readonly file: string;
  readonly imports: readonly string[];
}
interface BoundariesModule {
  boundaryBlocks(options?: { withExceptions?: boolean }): Linter.Config[];
  readonly EXCEPTIONS: readonly Exception[];
  readonly EDGE_FOLDERS: readonly string[];
  layerOf(rel: string): string;
}

const ROOT = path.resolve(import.meta.dirname, "../..");
const parserBlock: Linter.Config = {
  files: ["**/*.ts"],
  languageOptions: { parser: tseslint.parser },
};

let boundaries: BoundariesModule;
let lint: ESLint;

beforeAll(async () => {
  boundaries = (await import(
    pathToFileURL(path.join(ROOT, "boundaries.config.js")).href
  )) as BoundariesModule;
  lint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [parserBlock, ...boundaries.boundaryBlocks({ withExceptions: true })],
  });
});

/** Every .ts file under a folder, recursively. */
function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

async function messagesOf(file: string, code: string): Promise<string[]> {
  const [result] = await lint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).map((m) => m.message);
}

describe("a planted import that crosses a layer fails with its rule's message", () => {
  const cases = [
    {
      what: "an edge importing a connector implementation",
      file: "src/edges/schcp/http/planted.ts",
      code: `import { x } from "../../../connectors/google/channels.js";\nvoid x;\n`,
      message:
        "an edge must not import a connector or its port (the core's types stand between) [edge-no-connector-impl]: see docs/ARCHITECTURE.md, Layers",
    },
    {
      what: "an edge importing the connector port",
      file: "src/edges/osbp/adapter/planted.ts",
      code: `import type { Catalog } from "../../../connectors/port.js";\nexport type C = Catalog;\n`,
      message: "[edge-no-connector-impl]",
    },
    {
      what: "an edge importing a per-role connector port",
      file: "src/edges/a2a/intents/planted.ts",
      code: `import type { ConnectorError } from "../../../connectors/ports/result.js";\nexport type E = ConnectorError;\n`,
      message: "[edge-no-connector-impl]",
    },
    {
      what: "the OSBP edge importing a connector implementation",
      file: "src/edges/osbp/adapter/planted.ts",
      code: `export { x } from "../../../connectors/square/index.js";\n`,
      message: "[edge-no-connector-impl]",
    },
    {
      what: "the inbound edge importing a vendor's push notification check",
      file: "src/edges/inbound/calendar-push.ts",
      code: `import { checkNotification } from "../../connectors/google/channels.js";\nvoid checkNotification;\n`,
      message: "[edge-no-connector-impl]",
    },
    {
      what: "the inbound edge importing Square's webhook primitives",
      file: "src/edges/inbound/square-webhooks.ts",
      code: `import { verifySquareSignature } from "../../connectors/square/webhooks.js";\nvoid verifySquareSignature;\n`,
      message: "[edge-no-connector-impl]",
    },
    {
      what: "Connect's CalDAV check importing the CalDAV connector",
      file: "src/edges/console/connect/caldav.ts",
      code: `import { createCaldavConnector } from "../../../connectors/caldav/index.js";\nvoid createCaldavConnector;\n`,
      message: "[edge-no-connector-impl]",
    },
    {
      what: "the setup page's choices importing a connector's upstream client",
      file: "src/edges/console/setup/choices.ts",
      code: `import { createGoogleUpstream } from "../../../connectors/google/http.js";\nvoid createGoogleUpstream;\n`,
      message: "[edge-no-connector-impl]",
    },
    {
      what: "the core importing an edge",
      file: "src/booking/holds/planted.ts",
      code: `import { createApp } from "../../gateway/app/app.js";\nvoid createApp;\n`,
      message: "core must not import an edge [core-no-edge]: see docs/ARCHITECTURE.md, Layers",
    },
    {
      what: "the core importing the SchCP edge",
      file: "src/booking/planted.ts",
      code: `import type { X } from "../edges/schcp/edge.js";\nexport type Y = X;\n`,
      message: "core must not import an edge [core-no-edge]",
    },
    {
      what: "the core importing protocol/osbp",
      file: "src/booking/confirm/planted.ts",
      code: `import type { X } from "../../protocol/osbp/index.js";\nexport type Y = X;\n`,
      message:
        "core must not import an edge's wire protocol (protocol/schcp, protocol/osbp) [core-no-edge-protocol]: see docs/ARCHITECTURE.md, Layers",
    },
    {
      what: "the core importing a Redis store",
      file: "src/booking/holds/planted.ts",
      code: `import { createRedisGatewayStore } from "../../holds/redis/index.js";\nvoid createRedisGatewayStore;\n`,
      message: "[core-no-redis-store]",
    },
    {
      what: "a connector importing a store",
      file: "src/connectors/google/planted.ts",
      code: `import { createRedisGatewayStore } from "../../holds/redis/index.js";\nvoid createRedisGatewayStore;\n`,
      message:
        "a connector must not import a store (holds) [connector-no-store]: see docs/ARCHITECTURE.md, Layers",
    },
    {
      what: "a connector importing the core",
      file: "src/connectors/planted.ts",
      code: `import { x } from "../booking/api.js";\nvoid x;\n`,
      message: "[connector-no-core]",
    },
    {
      what: "a connector importing an edge",
      file: "src/connectors/square/planted.ts",
      code: `import { x } from "../../edges/a2a/port.js";\nvoid x;\n`,
      message: "[connector-no-edge]",
    },
    {
      what: "an edge importing another edge",
      file: "src/edges/schcp/planted.ts",
      code: `import { x } from "../console/pages.js";\nvoid x;\n`,
      message:
        "an edge must not import another edge's files [edge-no-other-edge]: see docs/ARCHITECTURE.md, Layers",
    },
    {
      what: "the MCP server importing the A2A edge",
      file: "src/edges/osbp/mcp/planted.ts",
      code: `import { x } from "../../a2a/port.js";\nvoid x;\n`,
      message: "[edge-no-other-edge]",
    },
    {
      what: "the shared HTTP kit importing an edge",
      file: "src/edges/http/planted.ts",
      code: `import { x } from "../schcp/http/respond.js";\nvoid x;\n`,
      message:
        "the shared HTTP kit (edges/http) must import no edge, core, connector or store (only edges/http and protocol/) [edge-kit-is-a-leaf]: see docs/ARCHITECTURE.md, Layers",
    },
    {
      what: "the shared HTTP kit importing the core",
      file: "src/edges/http/planted.ts",
      code: `import type { X } from "../../booking/api.js";\nexport type Y = X;\n`,
      message: "[edge-kit-is-a-leaf]",
    },
    {
      what: "the shared HTTP kit importing the A2A edge",
      file: "src/edges/http/planted.ts",
      code: `import type { X } from "../a2a/port.js";\nexport type Y = X;\n`,
      message: "[edge-kit-is-a-leaf]",
    },
    {
      what: "the core importing the shared HTTP kit",
      file: "src/booking/holds/planted.ts",
      code: `import { x } from "../../edges/http/body.js";\nvoid x;\n`,
      message: "[core-no-edge]",
    },
    {
      what: "a path that steps out and back in, past the layer rules' reading",
      file: "src/booking/planted.ts",
      code: `import { x } from "../holds/../gateway/app/app.js";\nvoid x;\n`,
      message: "[canonical-import]",
    },
    {
      what: "protocol importing the core",
      file: "src/protocol/time/planted.ts",
      code: `import { x } from "../../booking/api.js";\nvoid x;\n`,
      message: "[protocol-is-a-leaf]",
    },
    {
      what: "calendar importing a connector",
      file: "src/calendar/recurrence/planted.ts",
      code: `import { x } from "../../connectors/port.js";\nvoid x;\n`,
      message: "[calendar-is-a-leaf]",
    },
    {
      what: "redis/ importing a store",
      file: "src/redis/planted.ts",
      code: `import { x } from "../holds/port.js";\nvoid x;\n`,
      message: "[redis-is-a-leaf]",
    },
  ];
  for (const c of cases) {
    it(c.what, async () => {
      const messages = await messagesOf(c.file, c.code);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toContain(c.message);
    });
  }

  it("every edge may import the shared HTTP kit, and the kit protocol/", async () => {
    const kit = (prefix: string) =>
      `import { a } from "${prefix}edges/http/body.js";\nimport type { B } from "${prefix}edges/http/types.js";\nvoid a;\nexport type C = B;\n`;
    for (const [file, prefix] of [
      ["src/edges/schcp/http/planted.ts", "../../../"],
      ["src/edges/schcp/planted.ts", "../../"],
      ["src/edges/a2a/jsonrpc/planted.ts", "../../../"],
      ["src/edges/console/planted.ts", "../../"],
      ["src/edges/osbp/planted.ts", "../../"],
      ["src/edges/operator/planted.ts", "../../"],
      ["src/edges/approval/planted.ts", "../../"],
      ["src/edges/inbound/planted.ts", "../../"],
    ] as const) {
      expect(await messagesOf(file, kit(prefix))).toEqual([]);
    }
    expect(
      await messagesOf(
        "src/edges/http/planted.ts",
        `import { a } from "./body.js";\nimport { b } from "../../protocol/result.js";\nvoid a;\nvoid b;\n`,
      ),
    ).toEqual([]);
  });

  it("what a layer may import passes: an edge the core's types, the core the ports, calendar protocol", async () => {
    expect(
      await messagesOf(
        "src/edges/schcp/http/planted.ts",
        `import type { A } from "../../../booking/catalog.js";\nimport type { B } from "../../../booking/upstream.js";\nexport type C = A | B;\n`,
      ),
    ).toEqual([]);
    expect(
      await messagesOf(
        "src/booking/hosts/planted.ts",
        `import type { A } from "../../connectors/port.js";\nimport type { B } from "../../connectors/ports/slots.js";\nexport type C = A | B;\n`,
      ),
    ).toEqual([]);
    expect(
      await messagesOf(
        "src/booking/holds/planted.ts",
        `import type { A } from "../../holds/port.js";\nimport type { B } from "../../protocol/time/index.js";\nexport type C = A | B;\n`,
      ),
    ).toEqual([]);
    expect(
      await messagesOf(
        "src/calendar/planted.ts",
        `import type { A } from "../protocol/time/index.js";\nexport type C = A;\n`,
      ),
    ).toEqual([]);
  });

  it("an edge reaching into the composition root's wiring fails", async () => {
    const messages = await messagesOf(
      "src/edges/a2a/planted.ts",
      `import { a } from "../../gateway/runtime/redis-rate-limit.js";\nvoid a;\n`,
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("[edge-no-root]");
  });

  it("an edge importing the root's wiring fails (the booking service, the in-process core, the runtime); its stores pass", async () => {
    for (const [file, code] of [
      [
        "src/edges/a2a/jsonrpc/planted.ts",
        `import type { BookingService } from "../../../gateway/booking-service.js";\nexport type B = BookingService;\n`,
      ],
      [
        "src/edges/schcp/http/planted.ts",
        `import { x } from "../../../gateway/in-process-core.js";\nvoid x;\n`,
      ],
      [
        "src/edges/console/planted.ts",
        `import { x } from "../../gateway/runtime/console-wiring.js";\nvoid x;\n`,
      ],
      ["src/edges/osbp/planted.ts", `import { x } from "../../gateway/express.js";\nvoid x;\n`],
    ] as const) {
      const messages = await messagesOf(file, code);
      expect(messages, file).toHaveLength(1);
      expect(messages[0]).toContain(
        "an edge must not import the composition root's wiring (gateway/): the root hands it what it needs [edge-no-root]",
      );
    }
    // The gateway's own stores the console manages (boundaries.config.js ROOT_STORES).
    for (const [file, code] of [
      [
        "src/edges/console/planted.ts",
        `import type { TokenVault } from "../../gateway/credentials/vault.js";\nexport type V = TokenVault;\n`,
      ],
      [
        "src/edges/console/planted.ts",
        `import { FileManagedHostStore } from "../../gateway/managed-hosts/file-store.js";\nvoid FileManagedHostStore;\n`,
      ],
    ] as const) {
      expect(await messagesOf(file, code), file).toEqual([]);
    }
  });

  it("the operator API and the console import no other edge: each states what it needs", async () => {
    for (const [file, code] of [
      [
        "src/edges/operator/planted.ts",
        `import { edgeRefusal } from "../schcp/http/refusal-map.js";\nvoid edgeRefusal;\n`,
      ],
      [
        "src/edges/console/planted.ts",
        `import type { A2aApiKeys } from "../a2a/api-keys.js";\nexport type K = A2aApiKeys;\n`,
      ],
    ] as const) {
      const messages = await messagesOf(file, code);
      expect(messages, file).toHaveLength(1);
      expect(messages[0]).toContain("[edge-no-other-edge]");
    }
  });

  it("the edges are the folders under src/edges, less the shared kit", () => {
    expect([...boundaries.EDGE_FOLDERS].sort()).toEqual(
      ["a2a", "approval", "console", "inbound", "operator", "osbp", "schcp"].map((e) => `edges/${e}/`),
    );
    expect(boundaries.layerOf("edges/osbp/mcp")).toBe("edge:osbp");
    expect(boundaries.layerOf("edges/http")).toBe("edge-kit");
    expect(boundaries.layerOf("gateway/app")).toBe("other");
  });
});

describe("the tree", () => {
  // What the rules read of a file is its import and export-from specifiers, so each file is linted
  // as those declarations alone (read with TypeScript's pre-processor, which scans rather than
  // parses): the same rule on the same specifiers at the same path, in a second where parsing every
  // file whole took ten. `npm run lint` still lints every file whole with these blocks (the
  // last test below shows it carries them).
  it("lints clean under the boundary rules, with the listed exceptions", async () => {
    const files = listSources(path.join(ROOT, "src"));
    const broken: string[] = [];
    for (const file of files) {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
      const code = importedFiles.map((i) => `import ${JSON.stringify(i.fileName)};`).join("\n");
      const [result] = await lint.lintText(code, { filePath: file });
      for (const m of result?.messages ?? []) broken.push(`${path.relative(ROOT, file)}: ${m.message}`);
    }
    expect(broken).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });

  it("reads a file's imports as the rules do: a crossing import in a file of the tree is found", async () => {
    const file = path.join(ROOT, "src/booking/planted.ts");
    const source =
      'import type { A } from "../edges/schcp/edge.js";\nexport { b } from "../protocol/osbp/x.js";\n';
    const { importedFiles } = ts.preProcessFile(source, true, false);
    const code = importedFiles.map((i) => `import ${JSON.stringify(i.fileName)};`).join("\n");
    const [result] = await lint.lintText(code, { filePath: file });
    expect(result?.messages).toHaveLength(2);
  });

  it("no exceptions: every import in src keeps every rule", () => {
    // The list (boundaries.config.js EXCEPTIONS) may name a file and the imports it may still make
    // against a rule; it is empty, and "lints clean" above shows the tree needs none.
    expect(boundaries.EXCEPTIONS).toEqual([]);
  });

  it("eslint.config.js (what `npm run lint` and `npm run check` run) carries the boundary rules", async () => {
    const config = (
      (await import(pathToFileURL(path.join(ROOT, "eslint.config.js")).href)) as {
        default: Linter.Config[];
      }
    ).default;
    const names = config.map((block) => block.name);
    expect(names).toContain("boundaries/booking");
    expect(names).toContain("boundaries/edges/console");
  });
});
