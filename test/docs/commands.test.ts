/**
 * The docs say only what is so: README.md and every page under docs/ are read here, and what
 * they show a reader to type is checked against the code.
 *
 * - every `npm run <script>` (and `npm start`, `npm test`) names a script in package.json;
 * - every `booking-gateway <command>` names a command the CLI's dispatcher has (cli.ts);
 * - every environment variable listed in docs/settings.md is one the code reads, and every one
 *   the code reads is listed there;
 * - every relative link resolves to a file, and an anchor to a heading in it;
 * - the README stays short and starts with the two set-up commands;
 * - every shell block with `curl` runs, request by request, against an in-process gateway (the
 *   embedded default hosts): the exact bodies, headers and methods the page shows, with the
 *   page's placeholders filled from the answers before them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/gateway/cli/cli.js";
import { startGateway, type E2eGateway } from "../e2e/support/gateway.js";
import { COMMANDS } from "../../src/gateway/cli/cli.js";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (path: string): string => readFileSync(join(ROOT, path), "utf8");

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

interface Fence {
  readonly page: string;
  readonly lang: string;
  readonly body: string;
}

/** Fenced blocks, indented ones (inside list items) too. */
function fences(page: string): Fence[] {
  const out: Fence[] = [];
  for (const m of read(page).matchAll(/^( *)```(\S*)\n([\s\S]*?)\n\1```/gm)) {
    const indent = m[1]!.length;
    out.push({
      page,
      lang: m[2]!,
      body: m[3]!
        .split("\n")
        .map((l) => l.slice(indent))
        .join("\n"),
    });
  }
  return out;
}

/** The page's prose: its text without the fenced blocks. */
const prose = (page: string): string => read(page).replace(/^( *)```\S*\n[\s\S]*?\n\1```/gm, "");

/** Inline code spans of the prose, and every fenced block: where a page shows a command. */
function shown(page: string): string[] {
  const spans = [...prose(page).matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return [...spans, ...fences(page).map((f) => f.body)];
}

const allShown = PAGES.flatMap((page) => shown(page).map((text) => ({ page, text })));

describe("the commands the docs show", () => {
  it("name npm scripts that exist", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    const named: Array<{ page: string; script: string }> = [];
    for (const { page, text } of allShown) {
      for (const m of text.matchAll(/\bnpm run ([\w:.-]+)/g)) named.push({ page, script: m[1]! });
      for (const m of text.matchAll(/\bnpm (start|test)\b/g)) named.push({ page, script: m[1]! });
    }
    expect(named.length).toBeGreaterThan(20);
    const missing = named.filter((n) => scripts[n.script] === undefined);
    expect(missing).toEqual([]);
  });

  it("name booking-gateway commands the CLI has", () => {
    // The CLI's own table of commands (src/gateway/cli/cli.ts), which its dispatcher and help read.
    const commands = new Set(Object.keys(COMMANDS));
    expect(commands).toContain("serve");
    const named: Array<{ page: string; command: string }> = [];
    // `booking-gateway mcp`, `npx booking-gateway a2a-key`, and the argument lists of MCP
    // client snippets ("bin/booking-gateway.js", "mcp").
    const usage = /(?:^|[\s"'`(/])booking-gateway(?:\.js)?["']?(?:,\s*["']|[ \t]+)([a-z][\w-]*)/gm;
    for (const { page, text } of allShown) {
      for (const m of text.matchAll(usage)) named.push({ page, command: m[1]! });
    }
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((n) => !commands.has(n.command))).toEqual([]);
  });
});

/** `- \`NAME\`` entries of docs/settings.md: the variables it documents. */
function documentedVariables(): Set<string> {
  return new Set([...read("docs/settings.md").matchAll(/^- `([A-Z][A-Z0-9_]*)`/gm)].map((m) => m[1]!));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

const ENV_NAME = /"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"/g;

/**
 * What the gateway reads from the environment. The readers are src/gateway/cli/*-env.ts (the
 * only modules handed the environment, by the CLI) and the `*FromEnv` readers they import; in
 * them every name is a string literal. Elsewhere in src a variable is read as `env["NAME"]` or
 * through an exported `*_ENV` / `*_VARIABLE` constant; `NAME_FILE` is read for each name of
 * SECRET_FILE_VARIABLES.
 */
function variablesTheCodeReads(): Set<string> {
  const names = new Set<string>();
  const readers = readdirSync(join(ROOT, "src/gateway/cli"))
    .filter((f) => f.endsWith("-env.ts"))
    .map((f) => `src/gateway/cli/${f}`);
  expect(readers).toContain("src/gateway/cli/serve-env.ts");
  for (const file of readers) {
    const text = read(file);
    for (const m of text.matchAll(/import \{([^}]*)\} from "(\.[^"]+)"/g)) {
      if (!/\b\w+FromEnv\b/.test(m[1]!)) continue;
      const target = relative(ROOT, resolve(ROOT, dirname(file), m[2]!.replace(/\.js$/, ".ts")));
      for (const n of read(target).matchAll(ENV_NAME)) names.add(n[1]!);
    }
    for (const n of text.matchAll(ENV_NAME)) names.add(n[1]!);
    for (const n of text.matchAll(/env\["([A-Z][A-Z0-9_]*)"\]/g)) names.add(n[1]!);
    const secrets = /SECRET_FILE_VARIABLES = \[([^\]]*)\]/.exec(text)?.[1];
    for (const n of secrets?.matchAll(/"([A-Z_]+)"/g) ?? []) names.add(`${n[1]!}_FILE`);
  }
  for (const file of sourceFiles("src")) {
    const text = read(file);
    for (const n of text.matchAll(/export const \w+_(?:ENV|VARIABLE) = "([A-Z][A-Z0-9_]*)"/g))
      names.add(n[1]!);
    for (const n of text.matchAll(/\benv\["([A-Z][A-Z0-9_]*)"\]/g)) names.add(n[1]!);
  }
  return names;
}

/** What the checkout's scripts read (`npm run demo:schcp`, the benchmarks): documented apart. */
function variablesTheScriptsRead(): Set<string> {
  const names = new Set<string>();
  for (const file of [...sourceFiles("scripts"), ...sourceFiles("bench")]) {
    for (const n of read(file).matchAll(/process\.env(?:\.|\[")([A-Z][A-Z0-9_]*)/g)) names.add(n[1]!);
  }
  return names;
}

describe("docs/settings.md", () => {
  const documented = documentedVariables();
  const code = variablesTheCodeReads();

  it("lists every variable the gateway reads", () => {
    expect(code.size).toBeGreaterThan(40);
    expect(code).toContain("REDIS_KEY_PREFIX");
    expect([...code].filter((n) => !documented.has(n)).sort()).toEqual([]);
  });

  it("lists only variables the gateway or the scripts read", () => {
    const known = new Set([...code, ...variablesTheScriptsRead()]);
    expect([...documented].filter((n) => !known.has(n)).sort()).toEqual([]);
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(page).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe("links", () => {
  it("every relative link resolves to a file, and its anchor to a heading there", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      for (const m of prose(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        checked++;
        const [path = "", anchor] = target.split("#");
        const file = path === "" ? page : relative(ROOT, resolve(ROOT, dirname(page), path));
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no file ${file})`);
        else if (anchor !== undefined && file.endsWith(".md") && !anchors(file).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });
});

describe("README.md", () => {
  const readme = read("README.md");

  it("stays under 260 lines", () => {
    expect(readme.split("\n").length).toBeLessThan(260);
  });

  it("starts with the two set-up commands of a fresh machine", () => {
    const first = fences("README.md")[0]!;
    const commands = first.body
      .split("\n")
      .map((l) => l.replace(/#.*$/, "").trim())
      .filter((l) => l !== "");
    expect(commands).toEqual(["npm install && npm start", "npm install && npm run check"]);
    // Nothing but the title and the introduction comes before it.
    expect(readme.slice(0, readme.indexOf("```")).match(/^## /m)).toBeNull();
  });

  it("links every page under docs/", () => {
    const pages = PAGES.filter((p) => p.startsWith("docs/"));
    expect(pages.filter((p) => !readme.includes(`](${p})`))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Shell blocks with curl, run against an in-process gateway.

/** A word of a command: literal text, a $VAR, or a $(command) whose output it takes. */
type Part = { text: string } | { variable: string } | { command: string };
type Word = Part[];

/**
 * Just enough of sh for the docs' blocks: words split on blanks, 'single' and "double" quotes
 * (which may span lines), backslash-newline continuations, comments, $VAR and $(command).
 */
function parseShell(script: string): Word[][] {
  const commands: Word[][] = [];
  let words: Word[] = [];
  let word: Word | undefined;
  const add = (p: Part) => {
    word ??= [];
    const last = word[word.length - 1];
    if ("text" in p && last !== undefined && "text" in last) last.text += p.text;
    else word.push(p);
  };
  const endWord = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  const dollar = (i: number): number => {
    if (script[i + 1] === "(") {
      let depth = 1;
      let j = i + 2;
      for (; depth > 0; j++) {
        if (j >= script.length) throw new Error("unclosed $(");
        if (script[j] === "(") depth++;
        if (script[j] === ")") depth--;
      }
      add({ command: script.slice(i + 2, j - 1) });
      return j;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(script.slice(i + 1))?.[0];
    if (name === undefined) throw new Error(`a bare $ at ${script.slice(i, i + 20)}`);
    add({ variable: name });
    return i + 1 + name.length;
  };
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    if (c === "\\" && script[i + 1] === "\n") i += 2;
    else if (c === "\n") {
      endCommand();
      i++;
    } else if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "#" && word === undefined) {
      while (i < script.length && script[i] !== "\n") i++;
    } else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end < 0) throw new Error("unclosed '");
      add({ text: script.slice(i + 1, end) });
      i = end + 1;
    } else if (c === '"') {
      i++;
      word ??= [];
      while (script[i] !== '"') {
        if (i >= script.length) throw new Error('unclosed "');
        if (script[i] === "$") i = dollar(i);
        else add({ text: script[i++]! });
      }
      i++;
    } else if (c === "$") i = dollar(i);
    else add({ text: script[i++]! });
  }
  endCommand();
  return commands;
}

/** What the docs' placeholders stand for, taken from the answers before them. */
const PLACEHOLDERS: Record<string, (answer: unknown) => unknown> = {
  "<start>": (a) => find(a, (o) => o["start"]),
  "<session id>": (a) => find(a, (o) => (isObject(o["session"]) ? o["session"]["id"] : undefined)),
  "<booking id>": (a) => find(a, (o) => o["booking_id"]),
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The first string `pick` finds, depth first. */
function find(v: unknown, pick: (o: Record<string, unknown>) => unknown): string | undefined {
  if (Array.isArray(v)) {
    for (const x of v) {
      const got = find(x, pick);
      if (got !== undefined) return got;
    }
  } else if (isObject(v)) {
    const here = pick(v);
    if (typeof here === "string") return here;
    for (const x of Object.values(v)) {
      const got = find(x, pick);
      if (got !== undefined) return got;
    }
  }
  return undefined;
}

const DOC_ORIGIN = "http://127.0.0.1:8787";

class BlockRun {
  readonly variables = new Map<string, string>();
  readonly filled = new Map<string, string>();
  readonly answers: Array<{ request: string; status: number; body: unknown }> = [];

  constructor(private readonly gw: E2eGateway) {}

  async word(w: Word): Promise<string> {
    let s = "";
    for (const p of w) {
      if ("text" in p) s += p.text;
      else if ("variable" in p) {
        const v = this.variables.get(p.variable);
        if (v === undefined) throw new Error(`$${p.variable} is used before it is set`);
        s += v;
      } else s += await this.substitute(p.command);
    }
    return s.replace(/<[a-z][a-z -]*>/g, (ph) => {
      if (PLACEHOLDERS[ph] === undefined) return ph;
      const v = this.filled.get(ph);
      if (v === undefined) throw new Error(`${ph} is used before an answer gave it`);
      return v;
    });
  }

  /** $(…): the operator credential's file, or a booking-gateway command run in process. */
  async substitute(command: string): Promise<string> {
    const argv = command.trim().split(/\s+/);
    if (argv.join(" ") === "cat .gateway/operator-token") return this.gw.runtime.operatorToken;
    if (argv[0] === "npx") argv.shift();
    if (argv[0] !== "booking-gateway") throw new Error(`this test cannot run $(${command})`);
    const out: string[] = [];
    const errs: string[] = [];
    const code = await runCli(argv.slice(1), {
      env: { GATEWAY_DATA_DIR: this.gw.dataDir },
      cwd: this.gw.dataDir,
      out: (l) => out.push(l),
      err: (l) => errs.push(l),
    });
    if (typeof code !== "number") throw new Error(`$(${command}) started something long-running`);
    if (code !== 0) throw new Error(`$(${command}) exited ${code}: ${errs.join("\n")}`);
    return out.join("\n").trim();
  }

  async run(command: Word[]): Promise<void> {
    const lead = command[0]![0];
    const assignment = lead !== undefined && "text" in lead ? /^([A-Z_][A-Z0-9_]*)=/.exec(lead.text) : null;
    if (assignment !== null && command.length === 1) {
      const value = await this.word(command[0]!);
      this.variables.set(assignment[1]!, value.slice(assignment[0].length));
      return;
    }
    const first = await this.word(command[0]!);
    if (first !== "curl") throw new Error(`this test cannot run "${first} …"; only curl and VAR=…`);
    let method: string | undefined;
    let url: string | undefined;
    let body: string | undefined;
    const headers = new Headers();
    const args = command.slice(1);
    for (let i = 0; i < args.length; i++) {
      const arg = await this.word(args[i]!);
      const next = async () => {
        const w = args[++i];
        if (w === undefined) throw new Error(`${arg} needs a value`);
        return this.word(w);
      };
      if (arg === "-s") continue;
      if (arg === "-X") method = await next();
      else if (arg === "-H") {
        const h = await next();
        const colon = h.indexOf(":");
        headers.set(h.slice(0, colon).trim(), h.slice(colon + 1).trim());
      } else if (arg === "-d") body = await next();
      else if (arg.startsWith(DOC_ORIGIN)) url = this.gw.origin + arg.slice(DOC_ORIGIN.length);
      else throw new Error(`this test does not know curl's ${arg}`);
    }
    if (url === undefined) throw new Error("a curl without a URL on the docs' origin");
    method ??= body === undefined ? "GET" : "POST";
    if (body !== undefined && !headers.has("content-type"))
      headers.set("content-type", "application/x-www-form-urlencoded");
    const response = await fetch(url, { method, headers, ...(body !== undefined && { body }) });
    const text = await response.text();
    let answer: unknown = text;
    try {
      answer = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    this.answers.push({ request: `${method} ${url}`, status: response.status, body: answer });
    for (const [ph, pick] of Object.entries(PLACEHOLDERS)) {
      const v = pick(answer);
      if (typeof v === "string") this.filled.set(ph, v);
    }
  }
}

/** Failures an answer carries: an HTTP error, a JSON-RPC error, or an intent's failed status. */
function failures(a: BlockRun["answers"][number]): string[] {
  const out: string[] = [];
  if (a.status >= 400) out.push(`${a.request}: HTTP ${String(a.status)}`);
  if (isObject(a.body) && a.body["jsonrpc"] === "2.0") {
    if (a.body["error"] !== undefined) out.push(`${a.request}: ${JSON.stringify(a.body["error"])}`);
    const parts = isObject(a.body["result"]) ? a.body["result"]["parts"] : undefined;
    for (const part of Array.isArray(parts) ? parts : []) {
      const data = isObject(part) && isObject(part["data"]) ? part["data"] : undefined;
      if (typeof data?.["http_status"] === "number" && data["http_status"] >= 400)
        out.push(`${a.request}: ${data["intent"] as string} answered ${JSON.stringify(data["result"])}`);
    }
  }
  return out;
}

const curlBlocks = PAGES.flatMap((page) =>
  fences(page)
    .filter((f) => /^(sh|bash|shell)$/.test(f.lang) && /^curl /m.test(f.body))
    .map((f, i) => ({ ...f, name: `${page}, curl block ${String(i + 1)}` })),
);

describe("curl examples, against an in-process gateway", () => {
  let gw: E2eGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it("the README and the A2A and operator pages have some", () => {
    const pages = new Set(curlBlocks.map((b) => b.page));
    for (const page of ["README.md", "docs/a2a.md", "docs/operator-api.md"]) expect(pages).toContain(page);
  });

  it.each(curlBlocks.map((b) => [b.name, b] as const))(
    "%s runs as shown",
    { timeout: 30_000 },
    async (_name, block) => {
      gw = await startGateway();
      const run = new BlockRun(gw);
      for (const command of parseShell(block.body)) await run.run(command);
      expect(run.answers.length).toBeGreaterThan(0);
      expect(run.answers.flatMap(failures)).toEqual([]);
    },
  );

  it("the README's A2A walk-through books and cancels a session", async () => {
    gw = await startGateway();
    const block = curlBlocks.find((b) => b.page === "README.md" && b.body.includes("cancel_session"))!;
    const run = new BlockRun(gw);
    for (const command of parseShell(block.body)) await run.run(command);
    const intents = run.answers.map((a) => find(a.body, (o) => (o["http_status"] ? o["intent"] : undefined)));
    expect(intents).toEqual(["list_services", "check_availability", "book_session", "cancel_session"]);
    const result = (answer: unknown) =>
      find(answer, (o) => (o["http_status"] !== undefined ? JSON.stringify(o["result"]) : undefined));
    const booked = JSON.parse(result(run.answers[2]!.body)!) as { session: { id: string; status: string } };
    expect(booked.session.status).toBe("agendado");
    expect(JSON.parse(result(run.answers[3]!.body)!)).toMatchObject({
      sessionId: booked.session.id,
      status: "cancelled",
    });
  });

  it("the operator page's requests approve and then cancel the pending booking", async () => {
    gw = await startGateway();
    const block = curlBlocks.find((b) => b.page === "docs/operator-api.md")!;
    const run = new BlockRun(gw);
    for (const command of parseShell(block.body)) await run.run(command);
    const statuses = run.answers.slice(-2).map((a) => find(a.body, (o) => o["status"]));
    expect(statuses).toEqual(["confirmed", "cancelled"]);
    const listed = run.answers.find((a) => a.request.includes("status=pending_host"))!;
    expect(find(listed.body, (o) => o["status"])).toBe("pending_host");
  });
});
