import type { Reporter, TestModule } from "vitest/node";

/** Prints one plain closing line, `Tests: N passed, N failed, N skipped`, that any CI can read. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      let failedHere = 0;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failedHere += 1;
        else skipped += 1;
      }
      // A file that failed to load, or whose beforeAll failed (its tests then count as skipped),
      // must still count as a failure.
      if (testModule.state() === "failed" && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    failed += unhandledErrors.length;
    console.log(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
