import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import buildRenderer from '../e2e/global-setup';
import { closeBrowser, openApp } from '../e2e/harness';
import { loadTransactions } from './search.bench';

/**
 * The transaction table on 1,000,000 cached transactions, in Debian's Chromium with the built
 * renderer bridged to a real core (the end-to-end harness):
 * - time to first rows: from the page's navigation start to the first data row in the grid,
 *   the app opening on Transactions (cold: a reload, nothing cached in the page);
 * - rows in the DOM while scrolling: the most `role=row` elements seen while the grid is
 *   scrolled through in steps, by page and by jumps (top, middle, end).
 * Targets: first rows under 300 ms; fewer than 200 rows in the DOM.
 *
 * Run: `bash scripts/with-keyring.sh npx tsx test/bench/run.ts ui` (the connection's secret
 * goes to the real keychain). `UI_BENCH_ROWS` makes the cache smaller for a quick try.
 */

const ROWS = Number(process.env['UI_BENCH_ROWS'] ?? 1_000_000);
const OPENS = 7;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const round = (value: number) => Math.round(value * 10) / 10;

export default async function run(): Promise<Record<string, number | string>> {
  const secrets = createKeychainSecrets({ service: `Satchel-bench-${randomUUID()}` });
  const keychain = await secrets.status();
  if (!keychain.available)
    throw new Error(
      `No keychain (${keychain.message}). Run: bash scripts/with-keyring.sh npx tsx test/bench/run.ts ui`,
    );
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-ui-bench-'));
  const core = createCore({ dataDir: dir, secrets });
  try {
    await buildRenderer();
    // Never contacted: the cache is filled directly, as a finished first sync would leave it.
    const profile = await core.profiles.add({
      name: 'Bench GmbH',
      baseUrl: 'http://127.0.0.1:9',
      auth: { kind: 'client', clientId: 'kid_bench', clientSecret: 'sk_bench' },
    });
    const building = performance.now();
    loadTransactions(core.cacheOf(profile.id), ROWS);
    console.log(
      `  built ${ROWS.toLocaleString('en')} rows in ${Math.round((performance.now() - building) / 1000)} s`,
    );

    const app = await openApp(core);
    const { page } = app;
    // Records when the first data row appears, from navigation start, on every load.
    // A string, not a function: tsx names functions with a helper the page does not have.
    await page.addInitScript(`(() => {
      const selector = '[role="grid"] [role="row"][aria-rowindex="2"] [role="gridcell"] .amount';
      const check = () => {
        if (document.querySelector(selector)) window.__firstRows = performance.now();
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    })();`);
    const opens: number[] = [];
    for (let i = 0; i < OPENS; i++) {
      await page.reload();
      const deadline = Date.now() + 30_000;
      while ((await page.evaluate('window.__firstRows')) === undefined) {
        if (Date.now() > deadline) {
          await app.screenshot('ui-bench-failed');
          throw new Error('The table showed no rows within 30 s.');
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      opens.push((await page.evaluate('window.__firstRows')) as number);
    }

    // Scrolling: page by page through the first 2,000 rows, then jumps across the million.
    const grid = page.getByRole('grid', { name: 'Transactions' });
    await grid.focus();
    let maxRows = 0;
    let scrollSteps = 0;
    const sample = async () => {
      const count = (await page.evaluate(
        `new Promise((resolve) => requestAnimationFrame(() => resolve(document.querySelectorAll('[role="grid"] [role="row"]').length)))`,
      )) as number;
      maxRows = Math.max(maxRows, count);
      scrollSteps += 1;
    };
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('PageDown');
      await sample();
    }
    for (const fraction of [0.25, 0.5, 0.75, 0.999, 0.1, 0]) {
      await page.evaluate(
        `(() => { const grid = document.querySelector('[role="grid"]'); grid.scrollTop = (grid.scrollHeight - grid.clientHeight) * ${fraction}; })()`,
      );
      for (let i = 0; i < 5; i++) {
        await page.mouse.wheel(0, 600);
        await sample();
      }
    }
    await page.keyboard.press('End');
    const last = `[role="row"][aria-rowindex="${ROWS + 1}"] [role="gridcell"] .amount`;
    const endStarted = performance.now();
    await page.locator(last).waitFor({ timeout: 30_000 });
    const endMs = performance.now() - endStarted;
    await sample();
    await app.close();

    const figures = {
      rows: ROWS,
      firstRowsMedianMs: round(median(opens)),
      firstRowsMaxMs: round(Math.max(...opens)),
      firstRowsTargetMs: 300,
      maxRowsInDom: maxRows,
      maxRowsTarget: 200,
      scrollSamples: scrollSteps,
      lastRowAfterEndMs: round(endMs),
    };
    return figures;
  } finally {
    await closeBrowser();
    await core.close();
    for (const account of await secrets.list()) await secrets.delete(account);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await run();
  for (const [key, value] of Object.entries(figures)) console.log(`  ${key.padEnd(24)} ${value}`);
}
