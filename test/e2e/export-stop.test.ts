import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { loadTransactions } from '../bench/search.bench';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { closeBrowser, openApp } from './harness';

// Stopping a CSV export from its dialog in Chromium, on an organisation of 120,000 transactions
// (written into the cache as a finished first sync leaves them; the API is never contacted): the
// dialog counts the rows as they are written, "Stop export" ends the export between two batches
// of a thousand, no file is written, last week's file of that name stays, and no temporary is
// left beside it. The export takes seconds, the click a fraction of one.
const ROWS = 120_000;
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

describe('stopping a CSV export from the window', () => {
  it('stops a large export part-way and leaves the old file as it was', async () => {
    const folder = tempDir();
    const target = path.join(folder, 'All transactions.csv');
    writeFileSync(target, 'last week’s export');
    const core = createCore({
      dataDir: tempDir(),
      secrets,
      pickFile: () => Promise.resolve(target),
    });
    const profile = await core.profiles.add({
      name: 'Big GmbH',
      baseUrl: 'http://127.0.0.1:9',
      auth: { kind: 'client', clientId: 'kid_big', clientSecret: 'sk_big' },
    });
    loadTransactions(core.cacheOf(profile.id), ROWS);
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(30_000);
    try {
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      await bulk.getByRole('button', { name: 'Export as CSV…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export as CSV' });
      await dialog.getByText('All 120,000 transactions of this search').waitFor();
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => dialog.getByLabel('File', { exact: true }).inputValue()).toBe(target);
      await dialog.getByRole('button', { name: 'Export', exact: true }).click();
      await dialog.getByText(/^Exporting [\d,]+ of 120,000…$/).waitFor();
      await dialog.getByRole('button', { name: 'Stop export' }).click();
      await dialog.getByRole('status').getByText('The export was cancelled; no file was written.').waitFor();
      // The dialog stays, ready for another try; the status bar no longer counts the export.
      await dialog.getByRole('button', { name: 'Export', exact: true }).waitFor();
      expect(await dialog.getByRole('button', { name: 'Stop export' }).count()).toBe(0);
      await expect.poll(() => page.getByTestId('running-export').count()).toBe(0);
      expect(readFileSync(target, 'utf8')).toBe('last week’s export');
      expect(readdirSync(folder)).toEqual([path.basename(target)]);
      await checkScreen(app, 'export-stopped');
    } finally {
      await app.close();
      await core.close();
    }
  }, 240_000);
});
