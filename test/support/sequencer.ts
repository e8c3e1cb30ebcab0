/**
 * The order `vitest run` starts test files in (vitest.config.ts `sequence.sequencer`): the
 * longest first, so that no long file starts last while the other workers sit idle, and each
 * shared-module project's files one after another, since a worker of `<lane>` (isolate: false)
 * is kept for the next file only when that file is of the same project.
 *
 * Projects go in BLOCKS order: first the browser pages that need no build (they run while the
 * processes lanes' `npm run build` does, test/support/gateway-build.ts), then the processes and
 * cluster lanes (the longest files: gateway processes, failovers), then Redis, and the unit
 * files, short and many, last. Within a project, files vitest's cache does not know (all of
 * them in a clean checkout) go first, largest first, then the ones it says took longest.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import type { Project } from "./lanes.js";

const BLOCKS: readonly Project[] = [
  "caldav-browser-isolated",
  "processes",
  "processes-nock",
  "processes-isolated",
  "cluster",
  "cluster-nock",
  "cluster-isolated",
  "caldav-browser",
  "caldav-browser-nock",
  "redis-isolated",
  "redis-nock",
  "redis",
  "unit-isolated",
  "unit-nock",
  "unit",
  // groupOrder 1: after all of the above, one at a time (vitest.config.ts).
  "processes-alone",
  "cluster-alone",
  "caldav-browser-alone",
  "redis-alone",
  "unit-alone",
];

export default class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const block = (spec: TestSpecification): number => {
      const at = BLOCKS.indexOf(spec.project.name as Project);
      return at < 0 ? BLOCKS.length : at;
    };
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(config.root, spec.moduleId)}`;
    const took = (spec: TestSpecification) => cache.getFileTestResults(key(spec))?.duration;
    const size = (spec: TestSpecification) => cache.getFileStats(key(spec))?.size ?? 0;
    return Promise.resolve(
      [...files].sort((a, b) => {
        const byBlock = block(a) - block(b);
        if (byBlock !== 0) return byBlock;
        const [ta, tb] = [took(a), took(b)];
        if (ta !== undefined && tb !== undefined) return tb - ta;
        if (ta !== undefined || tb !== undefined) return ta === undefined ? -1 : 1;
        return size(b) - size(a);
      }),
    );
  }
}
