/**
 * Starts a worker thread on a module next to this one. Built, the module is JavaScript and
 * runs as is; from source (tsx in development, vitest in tests) it is TypeScript, and the
 * worker first registers tsx's loader, the same one the process runs under.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type ResourceLimits } from "node:worker_threads";

export function launchWorker(name: string, resourceLimits: ResourceLimits): Worker {
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = new URL(`./${name}${fromSource ? ".ts" : ".js"}`, import.meta.url);
  if (!fromSource) return new Worker(entry, { resourceLimits });
  const tsx = join(
    dirname(createRequire(import.meta.url).resolve("tsx/package.json")),
    "dist/esm/api/index.mjs",
  );
  const boot = `(async () => {
    const { register } = await import(${JSON.stringify(pathToFileURL(tsx).href)});
    register();
    await import(${JSON.stringify(entry.href)});
  })().catch((e) => { process.nextTick(() => { throw e; }); });`;
  return new Worker(boot, { eval: true, resourceLimits });
}
