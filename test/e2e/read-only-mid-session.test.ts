import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useImmutableFiles } from '../helpers/read-only';
import { useTempDirs } from '../helpers/temp-dir';
import { closeBrowser, openApp } from './harness';
import { connectSandbox } from './steps';

// An offline copy that cannot be written any more while the window is open (its file made
// immutable: test/helpers/read-only.ts): the first refused save turns the organisation
// read-only (the banner, with Check again) and keeps what the user typed, its Save off until then.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});
const makeImmutable = useImmutableFiles();

describe('a copy that becomes read-only while the window is open', () => {
  it('shows the banner at the first refused save, keeps the typed text, and saves it after Check again', async (context) => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 60, control: true });
    const core = createCore({ dataDir: tempDir(), secrets });
    const profile = await connectSandbox(core, sandbox);
    const file = core.profiles.cacheFile(profile.id);
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      const supplier = sandbox.state.suppliers.find((candidate) => candidate.status === 'ACTIVE');
      if (!supplier) throw new Error('the demo data has no active supplier');
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      await page.keyboard.press('/');
      await page.keyboard.type(supplier.number);
      await grid.locator('tbody tr').filter({ hasText: supplier.name }).first().waitFor();
      await grid.getByRole('button', { name: `Edit ${supplier.name}` }).click();
      const editor = page.getByRole('form', { name: `Edit ${supplier.name}` });
      const typed = 'Kaffeerösterei Nord GmbH, typed while the disk went read-only';
      await editor.getByLabel('Name').fill(typed);

      // The copy cannot be written from now on (an open file is not stopped by a read-only mount
      // or changed permissions; an immutable one is).
      const undo = makeImmutable([file, `${file}-wal`]);
      if (!undo) return context.skip();
      await editor.getByRole('button', { name: 'Save' }).click();

      const banner = page.getByTestId('read-only-banner');
      await banner.waitFor();
      const message = `The offline copy of "Sandbox GmbH" is read-only: Satchel may not write to the file ${file} (its permissions or owner changed, or it is locked). You can search and read; sync, edits, review marks and downloads into the copy are off until ${file} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`;
      expect(await banner.locator('p').textContent()).toBe(message);
      // The form is still open with what was typed, and says why it was not saved.
      expect(await editor.getByLabel('Name').inputValue()).toBe(typed);
      await editor.getByText(message).waitFor();
      // The other writing controls are off with the reason now, as for a copy opened read-only.
      const create = page.getByRole('button', { name: 'New supplier' });
      expect(await create.isDisabled()).toBe(true);
      expect(await create.getAttribute('title')).toBe(message);
      // The form's own Save too: clicking it again could only be refused in the same words.
      const save = editor.getByRole('button', { name: 'Save' });
      expect(await save.isDisabled()).toBe(true);
      expect(await save.getAttribute('title')).toBe(message);
      expect(await save.getAttribute('aria-describedby')).toBe('read-only-reason');
      await app.screenshot('read-only-mid-session');

      // Fixed: Check again, and the same form saves what was typed.
      undo();
      await banner.getByRole('button', { name: 'Check again' }).click();
      await banner.waitFor({ state: 'detached' });
      expect(await editor.getByLabel('Name').inputValue()).toBe(typed);
      expect(await save.isDisabled()).toBe(false);
      expect(await save.getAttribute('title')).toBeNull();
      await save.click();
      await page.getByTestId('supplier-saved').waitFor();
      const name = core
        .cacheOf(profile.id)
        .sqlite.prepare('SELECT name FROM suppliers WHERE id = ?')
        .pluck()
        .get(supplier.id);
      expect(name).toBe(typed);
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 120_000);
});
