import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { closeBrowser, openApp } from './harness';
import { connectSandbox, sendWaitingEditUnreachable } from './steps';

// Editing a supplier while the API is unreachable (the sandbox drops every connection), then
// sending the edit once it answers again, all from the Suppliers screen.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

describe('suppliers offline', () => {
  it('keeps an edit made while the sandbox is unreachable and pushes it when it is back', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const core = createCore({ dataDir: tempDir(), secrets });
    const profile = await connectSandbox(core, sandbox);
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      const supplier = sandbox.state.suppliers.find((candidate) => candidate.status === 'ACTIVE');
      if (!supplier) throw new Error('the demo data has no active supplier');
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      await page.keyboard.press('/');
      await page.keyboard.type(supplier.number);
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      await grid.locator('tbody tr').filter({ hasText: supplier.name }).first().waitFor();
      await checkScreen(app, 'suppliers');

      // The network is gone: every request to the sandbox is dropped.
      sandbox.control?.addFault({ match: '*', drop: true });
      await grid.getByRole('button', { name: `Edit ${supplier.name}` }).click();
      const editor = page.getByRole('form', { name: `Edit ${supplier.name}` });
      await editor.getByLabel('Name').fill('');
      await editor.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => editor.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
      await editor.getByLabel('Name').fill('Kaffeerösterei Nord GmbH');
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('supplier-saved').waitFor();

      await sendWaitingEditUnreachable(page, 60_000);
      const edits = page.getByTestId('edits');
      expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe(supplier.name);
      await checkScreen(app, 'suppliers-pending');

      // Back online: the edit goes out and the list empties.
      sandbox.control?.clearFaults();
      await edits.getByRole('button', { name: 'Send now' }).click();
      await edits.getByText('Every edit has been sent.').waitFor({ timeout: 60_000 });
      await page.getByTestId('pending-edits').getByText('No edits waiting').waitFor();
      expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe(
        'Kaffeerösterei Nord GmbH',
      );
      expect(core.outbox.list(profile.id)).toEqual([]);
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 180_000);
});
