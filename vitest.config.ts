import { defineConfig } from 'vitest/config';
import { summaryReporter } from './test/summary-reporter.ts';

// Three projects, one command (`npm test`). Everything runs in plain Node against real parts:
// real SQLite files in temporary folders, the real sandbox over HTTP, the real keychain (the
// test script starts gnome-keyring inside dbus-run-session), Debian's Chromium for e2e.
export default defineConfig({
  test: {
    reporters: ['default', summaryReporter()],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/e2e/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // A condition the page reaches through the core (a count from the totals thread, a
          // row found again) may take seconds on a busy machine: polls wait up to 10 s for it
          // and still fail when it never holds.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
