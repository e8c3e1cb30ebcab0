/**
 * Prints one plain closing line, "N passed, N failed, N skipped", after vitest's own
 * report, so CI systems that read a run's last line (rather than vitest's styled
 * summary) count the tests that actually ran.
 */
import type { Reporter, SerializedError, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failedHere += 1;
        else skipped += 1;
      }
      // A file that failed with no test failing (it did not load, or a hook such as afterAll
      // failed) must still count as a failure.
      failed += failedHere > 0 ? failedHere : module.state() === "failed" ? 1 : 0;
    }
    // An error outside any test (an unhandled rejection) fails the run: it counts too.
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
