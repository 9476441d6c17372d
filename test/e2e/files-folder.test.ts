import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { contentRequests, readManifest, sha256Of } from '../helpers/files';
import type { Core, CoreOptions } from '../../src-main/core';
import { startSandbox } from '../../src-sandbox';
import { useAppTests, type ConnectedApp } from './harness';
import { holdAnswers } from './steps';

// "Open folder" on a download's card in Chromium, against a real core and sandbox: the core is
// given a recording function where the Electron shell gives shell.openPath.
const { tempDir, connect } = useAppTests();

/** A download of `ids` into `destination`, run to its end through the core (no window yet). */
async function finishedDownload(
  core: Core,
  profileId: string,
  ids: string[],
  destination: string,
): Promise<{ id: string }> {
  const { job } = await core.files.start(profileId, { scope: { by: 'ids', kind: 'file', ids }, destination });
  expect((await core.files.wait(profileId, job.id)).status).toBe('completed');
  return job;
}

/**
 * A sandbox of its own (40 transactions, fault control) and a core connected to it, the page's
 * timeout 20 s; `ids` are the sandbox's first `count` files.
 */
async function connectWithFiles(count: number, options: Pick<CoreOptions, 'openFolder'> = {}) {
  const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 40, control: true });
  const connected = await connect({ sandbox, timeout: 20_000, ...options });
  return { ...connected, sandbox, ids: sandbox.state.files.slice(0, count).map((file) => file.id) };
}

/** Opens the window, goes to Files (Ctrl+4) and runs `body`; the window is closed after, whatever happened. */
async function onFilesView(open: () => Promise<ConnectedApp>, body: (app: ConnectedApp) => Promise<void>) {
  const app = await open();
  try {
    await app.page.keyboard.press('Control+4');
    await body(app);
  } finally {
    await app.close();
  }
}

/** The card of the download into `folder`. */
const downloadCard = (page: Page, folder: string) =>
  page.getByTestId('download-job').filter({ hasText: folder });

describe('a download card', () => {
  it('opens its own folder from the keyboard, and says when the folder is gone', async () => {
    const opened: string[] = [];
    const { core, profile, open, ids } = await connectWithFiles(3, {
      openFolder: (folder) => {
        opened.push(folder);
        return Promise.resolve('');
      },
    });
    const kept = path.join(tempDir(), 'Audit kept');
    const removed = path.join(tempDir(), 'Audit removed');
    for (const destination of [kept, removed]) {
      await finishedDownload(core, profile.id, ids, destination);
    }
    rmSync(removed, { recursive: true });

    await onFilesView(open, async (app) => {
      const { page } = app;
      const card = (folder: string) => downloadCard(page, folder);
      const open = card(kept).getByRole('button', { name: 'Open folder' });
      await open.waitFor();

      // From the card's title, Tab reaches the button; Enter opens the job's own folder.
      await card(kept).getByRole('heading', { name: kept }).focus();
      await page.keyboard.press('Tab');
      expect(await open.evaluate((button) => button === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(() => opened).toEqual([kept]);

      // A folder removed before the list was read: the button is disabled, and the card says why.
      const gone = card(removed).getByRole('button', { name: 'Open folder' });
      expect(await gone.isDisabled()).toBe(true);
      await card(removed)
        .getByTestId('folder-gone')
        .getByText('This folder is no longer there: it was moved, renamed or deleted.')
        .waitFor();
      expect(await gone.getAttribute('aria-describedby')).toBe(
        await card(removed).getByTestId('folder-gone').getAttribute('id'),
      );

      // Removed while the list is shown: the press says so, and the button is disabled then.
      rmSync(kept, { recursive: true });
      await open.focus();
      await page.keyboard.press('Enter');
      await card(kept)
        .getByRole('alert')
        .getByText(`The folder ${kept} is no longer there: it was moved, renamed or deleted.`)
        .waitFor();
      await expect.poll(() => open.isDisabled()).toBe(true);
      await card(kept).getByTestId('folder-gone').waitFor();
      expect(opened).toEqual([kept]);
      await app.screenshot('files-open-folder');
    });
  }, 120_000);

  it("checks a finished download's folder from the keyboard and fetches what was removed", async () => {
    const { sandbox, core, profile, open, ids } = await connectWithFiles(6);
    const destination = path.join(tempDir(), 'Audit checked');
    const job = await finishedDownload(core, profile.id, ids, destination);
    const manifestFile = path.join(destination, 'manifest.csv');
    const [first, second] = readManifest(manifestFile);

    await onFilesView(open, async (app) => {
      const { page } = app;
      const card = downloadCard(page, destination);
      const check = card.getByRole('button', { name: 'Check folder' });
      await check.waitFor();
      const focused = () => check.evaluate((button) => button === document.activeElement);

      // Nothing missing: said so, nothing fetched, and focus stays on the button.
      sandbox.control?.clearRequests();
      await check.focus();
      await page.keyboard.press('Enter');
      await card.getByRole('status').getByText('All 6 files are in the folder.').waitFor();
      expect(await focused()).toBe(true);
      expect(contentRequests(sandbox).size).toBe(0);

      // Two removed: exactly those two are fetched again, and the manifest claims every file.
      for (const row of [first, second]) rmSync(path.join(destination, row?.['file'] ?? ''));
      await page.keyboard.press('Enter');
      await card
        .getByRole('status')
        .getByText('2 files were not in the folder as downloaded: they are fetched again.')
        .waitFor();
      await expect.poll(() => core.files.status(profile.id, job.id).status).toBe('completed');
      await check.waitFor();
      expect([...contentRequests(sandbox).keys()].sort()).toEqual(
        [first?.['file_id'], second?.['file_id']].sort(),
      );
      for (const row of readManifest(manifestFile)) {
        expect(row['status']).toBe('done');
        expect(sha256Of(path.join(destination, row['file'] ?? ''))).toBe(row['sha256']);
      }
      // The button went while the job ran (Pause had focus), and has it again once it ended.
      await expect.poll(focused).toBe(true);
      await app.screenshot('files-check-folder');
    });
  }, 120_000);

  it('offers Retry only while a file has failed, the list read again or not', async () => {
    const { sandbox, core, profile, open, ids } = await connectWithFiles(3);
    // One file arrives damaged every time: the download completes with it failed.
    sandbox.control?.addFault({ match: `/v1/files/${ids[0]}/content`, corruptBody: true });
    const destination = path.join(tempDir(), 'Audit retried');
    const job = await finishedDownload(core, profile.id, ids, destination);
    expect(core.files.status(profile.id, job.id).files.failed).toBe(1);

    await onFilesView(open, async ({ page }) => {
      const card = downloadCard(page, destination);
      const retryAll = card.getByRole('button', { name: 'Retry all failed' });
      await retryAll.waitFor();

      // Retried from elsewhere (the same download retried by a background resume, another view)
      // while the list is being read again: the card's count says nothing failed before its
      // list of failures is read again, and Retry, with nothing to retry, is not offered.
      const held = await holdAnswers(page, 'downloads.status');
      sandbox.control?.clearFaults();
      core.files.retry(profile.id, job.id);
      expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
      await card.getByTestId('job-figures').getByText('3 of 3 files', { exact: false }).waitFor();
      await expect.poll(() => held.waiting()).toBeGreaterThan(0);
      expect(await retryAll.count()).toBe(0);
      expect(await card.getByRole('button', { name: /^Retry / }).count()).toBe(0);
      await card.getByRole('button', { name: 'Check folder' }).waitFor();

      await held.release();
      await card.getByText('1 file failed').waitFor({ state: 'detached' });
      expect(await retryAll.count()).toBe(0);
    });
  }, 120_000);

  it('gives focus back to Check folder when a slow check ends, unless the user moved it', async () => {
    const { sandbox, core, profile, open, ids } = await connectWithFiles(4);
    const destination = path.join(tempDir(), 'Audit slow');
    const job = await finishedDownload(core, profile.id, ids, destination);
    const [first, second] = readManifest(path.join(destination, 'manifest.csv'));

    await onFilesView(open, async ({ page }) => {
      const card = downloadCard(page, destination);
      const check = card.getByRole('button', { name: 'Check folder' });
      const pause = card.getByRole('button', { name: 'Pause' });
      const open = card.getByRole('button', { name: 'Open folder' });
      await check.waitFor();
      const hasFocus = (button: typeof check) => () =>
        button.evaluate((element) => element === document.activeElement);
      const removeSlowly = (row: Record<string, string> | undefined) => {
        rmSync(path.join(destination, row?.['file'] ?? ''));
        // Its file answers after six seconds: the job ends well after the press.
        sandbox.control?.addFault({ match: `/v1/files/${row?.['file_id']}/content`, latencyMs: 6_000 });
      };

      // However long the job it started takes, focus comes back to the button when it ends.
      removeSlowly(first);
      await check.focus();
      await page.keyboard.press('Enter');
      await expect.poll(hasFocus(pause)).toBe(true);
      await expect
        .poll(() => core.files.status(profile.id, job.id).status, { timeout: 20_000 })
        .toBe('completed');
      await expect.poll(hasFocus(check)).toBe(true);

      // The user moves focus elsewhere while the job runs: it stays there when the job ends.
      removeSlowly(second);
      await page.keyboard.press('Enter');
      await expect.poll(hasFocus(pause)).toBe(true);
      await page.keyboard.press('Shift+Tab');
      expect(await hasFocus(open)()).toBe(true);
      await expect
        .poll(() => core.files.status(profile.id, job.id).status, { timeout: 20_000 })
        .toBe('completed');
      await check.waitFor();
      expect(await hasFocus(open)()).toBe(true);
      expect(await hasFocus(check)()).toBe(false);
    });
  }, 120_000);
});
