import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { useTempDirs } from '../helpers/temp-dir';
import { closeBrowser, openApp } from './harness';

const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

describe('first run: the demo organisation', () => {
  it('opens the demo from the first screen and syncs it at once', async () => {
    const core = createCore({ dataDir: tempDir(), secrets, demoSandbox: { transactions: 600 } });
    const app = await openApp(core);
    const { page } = app;
    try {
      await page.getByRole('heading', { level: 1, name: 'Welcome to Satchel' }).waitFor();
      await app.screenshot('first-run-light');
      await page.getByRole('button', { name: 'Try the demo organisation' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      // The welcome screen went with the button pressed: the keys go on in the list shown.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Transactions');
      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      await page.getByTestId('sync-history').getByText('succeeded').waitFor({ timeout: 60_000 });
      const [profile] = core.profiles.list();
      expect(profile).toMatchObject({ name: 'Demo organisation', demo: true });
      expect(profile?.baseUrl).toBe(core.demo.url());
    } finally {
      await app.close();
      await core.close();
    }
  });
});
