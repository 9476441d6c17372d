import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { startSandbox } from '../../src-sandbox';
import { useImmutableFiles } from '../helpers/read-only';
import { testFileUrl, useAppTests } from './harness';
import { loneReceipts, openTransaction } from './receipts';

// An offline copy that cannot be written any more while the window is open (its file made
// immutable: test/helpers/read-only.ts): the first refused save turns the organisation
// read-only (the banner, with Check again) and keeps what the user typed, its Save off until then;
// a preview's Try again and Fetch it again, which would fetch and record a copy, go off too; and
// a preview whose record of the receipt it fetched is the first write refused turns it so too.
const { connect } = useAppTests();
const makeImmutable = useImmutableFiles();

describe('a copy that becomes read-only while the window is open', () => {
  it('shows the banner at the first refused save, keeps the typed text, and saves it after Check again', async (context) => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 60, control: true });
    const { core, profile, open } = await connect({ sandbox, timeout: 20_000 });
    const file = core.profiles.cacheFile(profile.id);
    const app = await open();
    const { page } = app;
    try {
      const supplier = sandbox.state.suppliers.find((candidate) => candidate.status === 'ACTIVE');
      if (!supplier) throw new Error('the demo data has no active supplier');
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
    }
  }, 120_000);

  it("turns the preview's Try again and Fetch it again off with the reason, and on after Check again", async (context) => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 60, control: true });
    const [failing, kept] = loneReceipts(sandbox, 2);
    if (!failing || !kept) throw new Error('the demo data has too few lone receipts');
    const { core, profile, open } = await connect({
      sandbox,
      fileUrl: testFileUrl,
      serveFiles: true,
      timeout: 20_000,
    });
    const file = core.profiles.cacheFile(profile.id);
    const control = sandbox.control!;
    const app = await open();
    const { page } = app;
    try {
      // One receipt shown (so kept on this computer), then its copy gone from the disk.
      let pane = await openTransaction(app, kept.id);
      await pane.getByRole('button', { name: `Show preview of ${kept.fileName}` }).click();
      await pane.getByRole('group', { name: `Zoom of ${kept.fileName}` }).waitFor();
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      const localName = core
        .cacheOf(profile.id)
        .sqlite.prepare('SELECT local_path FROM expense_files WHERE id = ?')
        .pluck()
        .get(kept.fileId) as string;
      rmSync(path.join(core.files.filesRoot(profile.id), localName));

      // Another the server fails: the pane says so, and its Try again may ask again.
      control.addFault({ match: `/v1/files/${failing.fileId}/content`, status: 503 });
      pane = await openTransaction(app, failing.id);
      await pane.getByRole('button', { name: `Show preview of ${failing.fileName}` }).click();
      const problem = pane.getByRole('alert');
      await problem.getByText('answered with a server error', { exact: false }).waitFor();
      const tryAgain = problem.getByRole('button', { name: 'Try again' });
      expect(await tryAgain.isDisabled()).toBe(false);

      // The copy cannot be written from now on, and the first write refused (a note) says so.
      const undo = makeImmutable([file, `${file}-wal`]);
      if (!undo) return context.skip();
      const refused = await dispatch(createHandlers(core), 'review.apply', {
        profileId: profile.id,
        target: { by: 'ids', kind: 'transaction', ids: [failing.id] },
        change: { action: 'setNote', note: 'Refused' },
      });
      expect(refused).toMatchObject({ ok: false, error: { code: 'READ_ONLY' } });
      const banner = page.getByTestId('read-only-banner');
      await banner.waitFor();
      const message = (await banner.locator('p').textContent()) ?? '';
      expect(message).toContain('is read-only');
      // Asking again would fetch the file and record its copy: off, with the banner's reason.
      await expect.poll(() => tryAgain.isDisabled()).toBe(true);
      expect(await tryAgain.getAttribute('title')).toBe(message);
      expect(await tryAgain.getAttribute('aria-describedby')).toBe('read-only-reason');
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      // So is fetching again a copy that went away.
      pane = await openTransaction(app, kept.id);
      await pane.getByRole('alert').getByText('could not be read', { exact: false }).waitFor();
      const fetchAgain = pane.getByRole('button', { name: 'Fetch it again' });
      expect(await fetchAgain.isDisabled()).toBe(true);
      expect(await fetchAgain.getAttribute('title')).toBe(message);

      // Fixed: Check again, and the copy is fetched again and shown.
      undo();
      await banner.getByRole('button', { name: 'Check again' }).click();
      await banner.waitFor({ state: 'detached' });
      // (Check again reads everything again, this copy too: the button waits for that.)
      await expect.poll(() => fetchAgain.isDisabled()).toBe(false);
      expect(await fetchAgain.getAttribute('title')).toBeNull();
      await fetchAgain.click();
      await pane.getByRole('group', { name: `Zoom of ${kept.fileName}` }).waitFor();
    } finally {
      await app.close();
    }
  }, 120_000);

  it('turns the copy read-only when a preview could not record the receipt it would fetch, and says why in the pane', async (context) => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 60, control: true });
    const [receipt] = loneReceipts(sandbox, 1);
    if (!receipt) throw new Error('the demo data has too few lone receipts');
    const { core, profile, open } = await connect({
      sandbox,
      fileUrl: testFileUrl,
      serveFiles: true,
      timeout: 20_000,
    });
    const file = core.profiles.cacheFile(profile.id);
    const app = await open();
    const { page } = app;
    try {
      // The copy cannot be written from now on; the preview is the first to write to it, and
      // finds so before it asks for the receipt.
      const undo = makeImmutable([file, `${file}-wal`]);
      if (!undo) return context.skip();
      const pane = await openTransaction(app, receipt.id);
      const asked = sandbox.control?.requests('getFileContent').length;
      await pane.getByRole('button', { name: `Show preview of ${receipt.fileName}` }).click();
      const banner = page.getByTestId('read-only-banner');
      await banner.waitFor();
      expect(sandbox.control?.requests('getFileContent').length).toBe(asked);
      const message = `The offline copy of "Sandbox GmbH" is read-only: Satchel may not write to the file ${file} (its permissions or owner changed, or it is locked). You can search and read; sync, edits, review marks and downloads into the copy are off until ${file} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`;
      expect(await banner.locator('p').textContent()).toBe(message);
      // The pane says the same, not a disk error, and its Try again is off with the reason.
      const problem = pane.getByRole('alert');
      await problem.getByText(message).waitFor();
      const tryAgain = problem.getByRole('button', { name: 'Try again' });
      await expect.poll(() => tryAgain.isDisabled()).toBe(true);
      expect(await tryAgain.getAttribute('title')).toBe(message);
    } finally {
      await app.close();
    }
  }, 120_000);
});
