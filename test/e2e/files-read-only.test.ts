import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useReadOnlyFolders } from '../helpers/read-only';
import { useTempDirs } from '../helpers/temp-dir';
import { closeBrowser, openApp } from './harness';
import { loneReceipts, openTransaction } from './receipts';
import { connectSandbox } from './steps';

// The Files area of an organisation whose offline copy is read-only (a real read-only mount,
// test/helpers/read-only.ts): what would write to the copy (a new download records its queue
// there; Resume, Cancel, Check folder change a job's state there; the keep-offline setting is
// kept there) is shown but off, with the banner's reason, and so are the ways into a download
// elsewhere (the Transactions bulk bar, the preview's Save a copy); the job list and Open folder
// work; and everything comes back after Check again once the folder can be written.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

describe('the Files area of a read-only offline copy', () => {
  const makeReadOnly = useReadOnlyFolders();

  it('turns the writing controls off with the reason, keeps reading, and turns them on after Check again', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 40, control: true });
    const dataDir = tempDir();
    const opened: string[] = [];
    // A receipt with no preview, so that its pane offers "Save a copy…" (a download of it).
    const [zip] = loneReceipts(sandbox, 1);
    if (!zip) throw new Error('the demo data has no lone receipt');
    sandbox.control?.replaceFile(zip.fileId, {
      content: Buffer.from('PK\u0003\u0004receipts'),
      mimeType: 'application/zip',
      name: 'receipts.zip',
    });
    let core = createCore({ dataDir, secrets });
    const profile = await connectSandbox(core, sandbox);
    // One download finished, one broken off when the app closed (Interrupted: Resume, Cancel…).
    const finished = path.join(tempDir(), 'Audit finished');
    const ids = sandbox.state.files.slice(0, 3).map((file) => file.id);
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination: finished,
    });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 500 });
    const halted = path.join(tempDir(), 'Audit halted');
    await core.files.start(profile.id, { scope: { by: 'all' }, destination: halted });
    await core.files.stopAll();
    sandbox.control?.clearFaults();
    await core.close();

    const file = core.profiles.cacheFile(profile.id);
    const undo = makeReadOnly(path.dirname(file));
    core = createCore({
      dataDir,
      secrets,
      openFolder: (folder) => {
        opened.push(folder);
        return Promise.resolve('');
      },
    });
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      const banner = page.getByTestId('read-only-banner');
      await banner.waitFor();
      const reason = (await banner.locator('p').textContent()) ?? '';
      expect(reason).toContain('is read-only');
      await page.keyboard.press('Control+4');
      await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
      const card = (folder: string) => page.getByTestId('download-job').filter({ hasText: folder });
      await card(halted).getByText('Interrupted').waitFor();
      await page.getByTestId('offline-usage').waitFor();

      const writing: Locator[] = [
        page.getByRole('button', { name: 'Download files…' }),
        card(halted).getByRole('button', { name: 'Resume' }),
        card(halted).getByRole('button', { name: 'Cancel…' }),
        card(finished).getByRole('button', { name: 'Check folder' }),
        page.getByRole('button', { name: 'Save' }),
      ];
      for (const control of writing) {
        expect(await control.isDisabled()).toBe(true);
        expect(await control.getAttribute('title')).toBe(reason);
        expect(await control.getAttribute('aria-describedby')).toBe('read-only-reason');
      }
      // The keep-offline choices cannot be changed only to be refused.
      expect(await page.getByRole('radio', { name: 'Every file' }).isDisabled()).toBe(true);
      expect(await page.getByLabel('Disk budget (GB)').isDisabled()).toBe(true);
      await app.screenshot('files-read-only');

      // Reading works: the list is there, and Open folder opens the job's folder.
      const open = card(finished).getByRole('button', { name: 'Open folder' });
      expect(await open.isDisabled()).toBe(false);
      await open.click();
      await expect.poll(() => opened).toEqual([finished]);

      // The ways into a download from Transactions are off too, rather than leading to a dialog
      // whose Start download is: the preview's Save a copy and the bulk bar's two.
      const off = async (control: Locator) => {
        expect(await control.isDisabled()).toBe(true);
        expect(await control.getAttribute('title')).toBe(reason);
        expect(await control.getAttribute('aria-describedby')).toBe('read-only-reason');
      };
      await page.keyboard.press('Control+1');
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      let pane = await openTransaction(app, zip.id);
      await pane.getByRole('button', { name: 'Show preview of receipts.zip' }).click();
      const saveCopy = () => pane.getByRole('button', { name: 'Save a copy of receipts.zip…' });
      await saveCopy().waitFor();
      await off(saveCopy());
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      await page.getByRole('grid', { name: 'Transactions' }).focus();
      await page.keyboard.press('x');
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      const bulkDownloads = [
        bulk.getByRole('button', { name: 'Download files…' }),
        bulk.getByRole('button', { name: 'Download files of this result…' }),
      ];
      for (const control of bulkDownloads) {
        await control.waitFor();
        await off(control);
      }

      // Fixed: Check again brings the controls back without a restart.
      undo();
      await banner.getByRole('button', { name: 'Check again' }).click();
      await banner.waitFor({ state: 'detached' });
      for (const control of bulkDownloads) {
        await control.and(page.locator(':enabled')).waitFor();
        expect(await control.getAttribute('title')).toBeNull();
      }
      pane = await openTransaction(app, zip.id);
      await pane.getByRole('button', { name: 'Show preview of receipts.zip' }).click();
      await saveCopy().and(page.locator(':enabled')).waitFor();
      expect(await saveCopy().getAttribute('title')).toBeNull();
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+4');
      await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
      for (const control of writing) {
        await control.and(page.locator(':enabled')).waitFor();
        expect(await control.getAttribute('title')).toBeNull();
      }
      expect(await page.getByRole('radio', { name: 'Every file' }).isDisabled()).toBe(false);
      await page.getByRole('button', { name: 'Download files…' }).click();
      await page.getByRole('dialog', { name: 'Download files' }).waitFor();
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 180_000);
});
