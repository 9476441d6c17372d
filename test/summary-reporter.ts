import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `Tests: N passed, N failed, N skipped`, after vitest's own
 * summary, so CI logs end with the figures whatever reads them. A file that failed to load
 * counts as one failure, so a broken import can never read as a clean run.
 */
export function summaryReporter(): Reporter {
  return {
    onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
      const counts = { passed: 0, failed: 0, skipped: 0 };
      for (const module of testModules) {
        let failedInside = 0;
        for (const test of module.children.allTests()) {
          const state = test.result().state;
          if (state === 'passed') counts.passed += 1;
          else if (state === 'failed') failedInside += 1;
          else counts.skipped += 1;
        }
        counts.failed += failedInside === 0 && module.state() === 'failed' ? 1 : failedInside;
      }
      console.log(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
    },
  };
}
