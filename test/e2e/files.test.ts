import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scopedFiles } from '../../src-main/files/scope';
import { startSandbox } from '../../src-sandbox';
import { fixedFolderDialog, newFolderDialog } from '../helpers/dialogs';
import { readManifest, sha256Of } from '../helpers/files';
import { checkScreen } from './axe';
import { useAppTests } from './harness';

// The Files area in Chromium against a real core and the real sandbox: a bulk download set up
// in the dialog (folder from the folder picker only, a template error shown on its field), followed
// live, paused and resumed from the keyboard, a failing file retried, the result checked on disk
// against the sandbox's hashes and the manifest, another download cancelled; the keep-offline
// setting; a download of a selection from the Transactions bulk bar. Every screen is checked with axe-core in both themes.
const { tempDir, connect } = useAppTests();

describe('files area', () => {
  it('downloads in bulk with live progress, pause, resume, retry and cancel; keeps files offline; downloads a selection', async () => {
    // The screen is under test here, not the rate limit. Its downloads and the keep-offline fill
    // fetch the organisation's 110 files three times over (about 400 reads in all), which under
    // the real 180 reads a minute meant waiting for a fresh window at steps that had 60 s each:
    // the wait alone could take all of it. With room for every read in one window, no step waits
    // on the clock. Downloads and the fill under a real limit are tested in
    // integration/files/rate-limit.test.ts, and measured by the benchmark.
    const sandbox = await startSandbox({
      port: 0,
      seed: 7,
      transactions: 200,
      readLimit: 1_000,
      control: true,
    });
    const folderDialog = newFolderDialog(tempDir, 'Audit');
    const destinations = folderDialog.made;
    const { core, profile, open } = await connect({
      sandbox,
      // The system folder dialog, answered by the test: a new empty folder each time, as if the
      // user made one in it.
      pickFolder: folderDialog.pick,
      timeout: 20_000,
    });
    const files = scopedFiles(core.cacheOf(profile.id), { by: 'all' });
    expect(files.length).toBeGreaterThan(20);
    const failing = files[3];
    if (!failing) throw new Error('no file to fail');

    const app = await open();
    const { page } = app;
    try {
      await page.keyboard.press('Control+4');
      await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
      await page.getByText('No download yet').waitFor();
      await page.getByTestId('offline-usage').waitFor();
      await checkScreen(app, 'files-area');

      // The dialog: modal, labelled, focus inside it.
      const opener = page.getByRole('button', { name: 'Download files…' });
      await opener.click();
      const dialog = page.getByRole('dialog', { name: 'Download files' });
      await dialog.waitFor();
      expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
      await checkScreen(app, 'files-dialog');

      // A template error is shown on the field, with the core's own words.
      const template = dialog.getByLabel('File names');
      await template.fill('{bookingDate}_{receipt}');
      await expect.poll(() => template.getAttribute('aria-invalid')).toBe('true');
      await dialog.getByText('Unknown token {receipt}').waitFor();
      await dialog.getByTestId('example-name').getByText('fix the file names first').waitFor();
      await dialog.getByRole('button', { name: 'Start download' }).click();
      await dialog.waitFor(); // refused: still open
      // So is text no file name can hold, rather than changed in every name.
      await template.fill('{bookingDate}/{originalName}');
      await dialog.getByText('A file name cannot contain /; the folders come from the layout.').waitFor();
      await expect.poll(() => template.getAttribute('aria-invalid')).toBe('true');
      await template.fill('');
      await dialog.getByRole('button', { name: 'Insert {bookingDate}: booking date' }).click();
      await template.press('End');
      await template.pressSequentially('_');
      await dialog.getByRole('button', { name: 'Insert {originalName}: name as uploaded' }).click();
      await expect.poll(() => template.inputValue()).toBe('{bookingDate}_{originalName}');
      await expect.poll(() => template.getAttribute('aria-invalid')).toBeNull();

      // Keyboard: Tab stays inside the modal dialog.
      for (let i = 0; i < 25; i += 1) {
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
      }

      await dialog.getByRole('radio', { name: /By month/ }).check();
      await dialog.getByTestId('example-name').getByText('2026-03/2026-03-01_Hotel invoice.pdf').waitFor();
      // The folder is chosen, never typed: the field takes no keys, and none chosen is said on
      // it; Choose… (from the keyboard) fills it and clears the message.
      const folderField = dialog.getByLabel('Destination folder');
      expect(await folderField.isEditable()).toBe(false);
      await folderField.focus();
      await page.keyboard.type('/home/me/.config/autostart');
      expect(await folderField.inputValue()).toBe('');
      await dialog.getByRole('button', { name: 'Start download' }).click();
      await dialog.getByText('Choose the folder the files go to.').waitFor();
      await expect.poll(() => folderField.getAttribute('aria-invalid')).toBe('true');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-field')))
        .toBe('destination');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Choose…');
      await page.keyboard.press('Enter');
      const destination = destinations[0] ?? '';
      await expect.poll(() => folderField.inputValue()).toBe(destination);
      await expect.poll(() => folderField.getAttribute('aria-invalid')).toBeNull();
      // A page that names another folder itself is refused by the core, which writes nothing there.
      const unpicked = path.join(tempDir(), 'not picked');
      const refused = await page.evaluate(
        ([profileId, folder]) =>
          (
            window as unknown as {
              satchel: { invoke(command: string, input: unknown): Promise<unknown> };
            }
          ).satchel.invoke('downloads.start', { profileId, scope: { by: 'all' }, destination: folder }),
        [profile.id, unpicked] as const,
      );
      expect(JSON.stringify(refused)).toContain('Satchel writes only where you picked.');
      expect(existsSync(unpicked)).toBe(false);

      // Slow file bodies so the download can be watched and paused; one file stays corrupted
      // (whenever the pause lands) until the test lifts the fault, so it fails.
      sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 150 });
      sandbox.control?.addFault({ match: `/v1/files/${failing.fileId}/content`, corruptBody: true });
      await dialog.getByRole('button', { name: 'Start download' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Download files…');

      const job = page.getByTestId('download-job');
      const bar = job.getByRole('progressbar');
      await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
      expect(Number(await bar.getAttribute('aria-valuemax'))).toBe(files.length);
      await expect.poll(() => job.getByTestId('job-figures').textContent()).toMatch(/\/s/); // the rate

      // From the keyboard: focus stays with the job's controls when Pause becomes Resume.
      await job.getByRole('button', { name: 'Pause' }).focus();
      await page.keyboard.press('Enter');
      await job.and(page.locator('[data-status="paused"]')).waitFor();
      const atPause = core.files.list(profile.id)[0];
      expect(atPause?.files.pending).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(core.files.list(profile.id)[0]?.files.done).toBe(atPause?.files.done); // really stopped
      await checkScreen(app, 'files-paused');
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Resume');
      await page.keyboard.press('Enter');

      await job.and(page.locator('[data-status="completed"]')).waitFor({ timeout: 60_000 });
      const summary = job.getByTestId('job-summary');
      await summary.waitFor();
      await job.getByText('1 file failed').waitFor();
      await job
        .getByText(/arrived damaged .*\(gave up after 3 attempts\)\.$/)
        .first()
        .waitFor(); // the attempts said once
      await checkScreen(app, 'files-finished-with-error');

      // Retry the failed file with the fault lifted: it arrives this time.
      sandbox.control?.clearFaults();
      await job
        .getByRole('button', { name: `Retry ${readManifestRow(destination, failing.fileId)}` })
        .click();
      await expect
        .poll(() => core.files.list(profile.id)[0]?.files, { timeout: 30_000 })
        .toMatchObject({ done: files.length, failed: 0 });
      await job
        .getByText(`${new Intl.NumberFormat('en-US').format(files.length)} of`)
        .first()
        .waitFor();
      await expect.poll(() => job.getByText('1 file failed').count()).toBe(0);
      const stored = core.files.list(profile.id)[0];
      await summary.getByText(String(stored?.files.fetched)).first().waitFor();
      await summary.getByTestId('manifest-path').getByText(path.join(destination, 'manifest.csv')).waitFor();

      // On disk: every file of the scope, whole, where the manifest says.
      const manifest = readManifest(path.join(destination, 'manifest.csv'));
      expect(manifest).toHaveLength(files.length);
      const bySandbox = new Map(sandbox.state.files.map((file) => [file.id, file]));
      for (const row of manifest) {
        expect(row['status']).toBe('done');
        expect(row['file']).toMatch(/^(\d{4}-\d{2}|undated)\//);
        const file = path.join(destination, ...(row['file'] ?? '').split('/'));
        expect(sha256Of(file)).toBe(sandbox.state.fileRecord(bySandbox.get(row['file_id'] ?? '')!).sha256);
      }
      expect(readdirSync(destination).filter((name) => name.startsWith('.'))).toEqual([]);

      // Cancel asks first; the finished files stay, the partial folder goes.
      sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 300 });
      await page.getByRole('button', { name: 'Download files…' }).click();
      const third = page.getByRole('dialog', { name: 'Download files' });
      // The folder picked last is offered again (the core keeps it, not the page).
      await expect.poll(() => third.getByLabel('Destination folder').inputValue()).toBe(destination);
      await third.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => third.getByLabel('Destination folder').inputValue()).toBe(destinations[1]);
      await third.getByRole('radio', { name: 'Every file of the organisation' }).check();
      await third.getByRole('button', { name: 'Start download' }).click();
      await third.waitFor({ state: 'detached' });
      const newest = page.getByTestId('download-job').first();
      await newest.getByRole('heading', { name: destinations[1] }).waitFor();
      // From the keyboard: when the last control goes with the job, focus stays on its card.
      await newest.getByRole('button', { name: 'Cancel…' }).focus();
      await page.keyboard.press('Enter');
      await newest.getByRole('group', { name: 'Confirm cancelling the download' }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, cancel it');
      await page.keyboard.press('Enter');
      await newest.and(page.locator('[data-status="cancelled"]')).waitFor();
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(destinations[1]);
      await newest.getByTestId('job-summary').getByText('Not downloaded').waitFor();
      const cancelled = core.files.list(profile.id)[0];
      expect(cancelled?.status).toBe('cancelled');
      expect(cancelled?.files.pending).toBeGreaterThan(0);
      expect(readdirSync(destinations[1] ?? '').filter((name) => name.startsWith('.'))).toEqual([]);

      // The connection goes away in the middle of a download: the card says so and why, and
      // Resume finishes it once the server answers again.
      sandbox.control?.clearFaults();
      sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 200 });
      const cutFolder = path.join(destinations[1] ?? '', 'cut');
      const cut = await core.files.start(profile.id, { scope: { by: 'all' }, destination: cutFolder });
      await expect.poll(() => core.files.status(profile.id, cut.job.id).files.done).toBeGreaterThan(0);
      await sandbox.setReachable(false);
      expect((await core.files.wait(profile.id, cut.job.id)).error?.code).toBe('OFFLINE');
      const cutCard = page.getByTestId('download-job').filter({ hasText: cutFolder });
      await cutCard.getByText('Interrupted').waitFor();
      await cutCard
        .getByTestId('job-problem')
        .getByText(/^Stopped: Could not reach /)
        .waitFor();
      await sandbox.setReachable(true);
      sandbox.control?.clearFaults();
      await cutCard.getByRole('button', { name: 'Resume' }).click();
      await cutCard.and(page.locator('[data-status="completed"]')).waitFor({ timeout: 60_000 });
      expect(await cutCard.getByTestId('job-problem').count()).toBe(0);

      // Keep every file offline: the usage fills up.
      sandbox.control?.clearFaults();
      const offline = page.getByRole('form', { name: 'Kept offline' });
      await offline.getByRole('radio', { name: 'Every file' }).check();
      await offline.getByRole('button', { name: 'Save' }).click();
      await offline.getByText('Saved.').waitFor();
      const count = new Intl.NumberFormat('en-US').format(files.length);
      await page
        .getByTestId('offline-usage')
        .getByText(`${count} of ${count} files on this computer`)
        .waitFor({ timeout: 60_000 });
      expect(core.files.offlineScope(profile.id)).toMatchObject({
        scope: { mode: 'all' },
        wantedFiles: files.length,
        wantedCached: files.length,
      });
      await checkScreen(app, 'files-area-done');

      // From the Transactions bulk bar: the files of one selected transaction.
      const target = files.find((file) => file.transactionId !== null);
      if (!target?.transactionId) throw new Error('no file with a transaction');
      const ofTarget = files.filter((file) => file.transactionId === target.transactionId);
      await page.keyboard.press('Control+1');
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      await grid.focus();
      await page.keyboard.press('/');
      await page.keyboard.type(target.transactionId);
      await page.getByTestId('totals').getByText('1', { exact: true }).waitFor();
      await grid.focus();
      await page.keyboard.press('x');
      await page
        .getByRole('toolbar', { name: 'Bulk review' })
        .getByRole('button', { name: 'Download files…' })
        .click();
      const fromBulk = page.getByRole('dialog', { name: 'Download files' });
      await expect
        .poll(() => fromBulk.getByRole('radio', { name: 'The selected transaction' }).isChecked())
        .toBe(true);
      await fromBulk.getByRole('button', { name: 'Choose…' }).click();
      const second = destinations[2] ?? '';
      await expect.poll(() => fromBulk.getByLabel('Destination folder').inputValue()).toBe(second);
      await fromBulk.getByRole('radio', { name: /One folder/ }).check();
      await fromBulk.getByRole('button', { name: 'Start download' }).click();
      await fromBulk.waitFor({ state: 'detached' });
      await page.getByText(`Downloading ${ofTarget.length} file`).waitFor();
      await expect.poll(() => existsSync(path.join(second, 'manifest.csv')), { timeout: 30_000 }).toBe(true);
      const selection = readManifest(path.join(second, 'manifest.csv'));
      expect(selection.map((row) => row['file_id']).sort()).toEqual(
        ofTarget.map((file) => file.fileId).sort(),
      );
      for (const row of selection) expect(row['transaction_id']).toBe(target.transactionId);
      // Copied from the offline cache, not fetched again.
      expect(core.files.list(profile.id)[0]?.files.copied).toBe(ofTarget.length);

      // A download the app was closed in the middle of says it goes on by itself, and Resume works.
      sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 200 });
      const halted = await core.files.start(profile.id, {
        scope: { by: 'all' },
        destination: path.join(second, 'halted'),
      });
      await core.files.stopAll();
      expect(core.files.status(profile.id, halted.job.id)).toMatchObject({
        status: 'pending',
        active: false,
      });
      await page.keyboard.press('Control+4');
      const haltedCard = page.getByTestId('download-job').filter({ hasText: path.join(second, 'halted') });
      await haltedCard.getByText('Interrupted').waitFor();
      await haltedCard
        .getByText('Goes on by itself when Satchel is online again, or now with Resume.')
        .waitFor();
      sandbox.control?.clearFaults();
      await haltedCard.getByRole('button', { name: 'Resume' }).click();
      await expect
        .poll(() => core.files.status(profile.id, halted.job.id).status, { timeout: 60_000 })
        .toBe('completed');
    } finally {
      await app.close();
    }
  }, 240_000);

  it('makes a download started with no network wait for it, and says so', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 60, control: true });
    const folder = path.join(tempDir(), 'Audit offline');
    const { core, profile, open } = await connect({
      sandbox,
      pickFolder: fixedFolderDialog(folder),
      timeout: 20_000,
    });
    const total = scopedFiles(core.cacheOf(profile.id), { by: 'all' }).length;
    const app = await open();
    const { page } = app;
    try {
      await page.keyboard.press('Control+4');
      await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
      core.connectivity.setNetwork(false);
      sandbox.control?.clearRequests();
      await page.getByRole('button', { name: 'Download files…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Download files' });
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => dialog.getByLabel('Destination folder').inputValue()).toBe(folder);
      await dialog.getByRole('button', { name: 'Start download' }).click();
      await dialog.waitFor({ state: 'detached' });

      // Made at once, not tried: it waits for the network and says so.
      await page
        .getByRole('status')
        .getByText(`waits for the network; it starts by itself when the network is back`, { exact: false })
        .waitFor();
      const card = page.getByTestId('download-job');
      await card.getByText('Interrupted', { exact: true }).waitFor();
      await card
        .getByTestId('job-problem')
        .getByText('There is no network; the download waits for it.')
        .waitFor();
      expect(sandbox.control?.requests()).toEqual([]);

      // The network is back: the background's reconnect round starts it again.
      core.connectivity.setNetwork(true);
      core.files.resumeInterrupted(profile.id);
      await card.getByText(`${total} of ${total} files`, { exact: false }).waitFor({ timeout: 60_000 });
      await expect.poll(() => card.getAttribute('data-status'), { timeout: 60_000 }).toBe('completed');
      await expect(card.getByTestId('job-problem').count()).resolves.toBe(0);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('follows the keep-offline fill a background sync starts while the Files area is open', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 60, control: true });
    const { core, profile, open } = await connect({ sandbox, timeout: 20_000 });
    // Every file wanted and none on disk yet: the setting saved, its fill still to come (once
    // the fill the first sync started, with nothing to keep, is over: it would take it in).
    await core.files.fillOffline(profile.id);
    core.files.setOfflineScope(profile.id, { mode: 'all' });
    expect(core.files.offlineScope(profile.id)).toMatchObject({ filling: false, wantedCached: 0 });
    const wanted = core.files.offlineScope(profile.id).wantedFiles;
    expect(wanted).toBeGreaterThan(5);
    const count = new Intl.NumberFormat('en-US').format(wanted);
    const app = await open();
    const { page } = app;
    try {
      await page.keyboard.press('Control+4');
      const usage = page.getByTestId('offline-usage');
      await usage.getByText(`0 of ${count} files on this computer`).waitFor();
      await usage.getByText('The rest comes with the next sync.').waitFor();
      // The next sync comes (the background scheduler's, here the test's) and starts the fill;
      // one file keeps arriving damaged.
      const damaged = sandbox.state.files[0];
      if (!damaged) throw new Error('no file in the sandbox');
      sandbox.control?.addFault({ match: `/v1/files/${damaged.id}/content`, corruptBody: true });
      expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
      const rest = new Intl.NumberFormat('en-US').format(wanted - 1);
      await usage.getByText(`${rest} of ${count} files on this computer`).waitFor({ timeout: 60_000 });
      await usage
        .getByText(
          '1 file could not be fetched (the download broke off, the file came damaged, or the server refused it); the next sync tries again.',
        )
        .waitFor();
      // Fetched by a later fill once it arrives whole.
      sandbox.control?.clearFaults();
      expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
      await usage.getByText(`${count} of ${count} files on this computer`).waitFor({ timeout: 60_000 });
      await usage.getByText('Up to date').waitFor();
    } finally {
      await app.close();
    }
  }, 120_000);
});

/** The relative path the job gave a file (the failed-file list names files by it). */
function readManifestRow(destination: string, fileId: string): string {
  const row = readManifest(path.join(destination, 'manifest.csv')).find(
    (entry) => entry['file_id'] === fileId,
  );
  if (!row?.['file']) throw new Error(`${fileId} is not in the manifest`);
  return row['file'];
}
