import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';
import { closeBrowser, openApp } from './harness';

const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

describe('sync screen against the real sandbox', () => {
  it('connects, syncs with live progress and shows the run in the history', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 1500, control: true });
    sandbox.control?.addFault({ match: '*', latencyMs: 30 });
    const core = createCore({ dataDir: tempDir(), secrets });
    const app = await openApp(core);
    const { page } = app;
    try {
      const form = page.getByRole('form', { name: 'Connect an organisation' });
      await form.getByLabel('Name').fill('Demo organisation');
      await form.getByLabel('API address').fill(sandbox.url);
      await form.getByLabel('API key id').fill(sandbox.clientId);
      await form.getByLabel('API key secret').fill(sandbox.clientSecret);
      await form.getByRole('button', { name: 'Connect' }).click();
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();

      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      await page.getByText('This organisation has not been synced yet.').waitFor();
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.getByTestId('sync-progress').waitFor();
      await app.screenshot('sync-running-light');
      const history = page.getByTestId('sync-history');
      await history.getByText('succeeded').waitFor({ timeout: 60_000 });
      await expect(history.locator('tbody tr').count()).resolves.toBe(1);
      const records = Number((await history.locator('tbody tr td.number').textContent())?.replace(/\D/g, ''));
      expect(records).toBeGreaterThan(1500);
      await app.screenshot('sync-done-light');
      expect(await page.content()).not.toContain(sandbox.clientSecret);
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  });
});
