import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { startSandbox } from '../../src-sandbox';
import type { EventPayload } from '../../src-shared/ipc';
import { openApp, useAppTests } from './harness';
import { connectSandbox, fillConnectForm } from './steps';

const { tempDir, secrets, openConnected } = useAppTests();

/** The Sync screen opened with Ctrl+5, once its one run so far is listed; its history rows. */
async function openSyncScreen(page: Page): Promise<Locator> {
  await page.keyboard.press('Control+5');
  await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
  const history = page.getByTestId('sync-history').locator('tbody tr');
  await expect.poll(() => history.count()).toBe(1); // the history arrives after the heading
  return history;
}

describe('sync screen against the real sandbox', () => {
  it('connects, syncs at once and again with live progress, and shows the runs in the history', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 1500, control: true });
    sandbox.control?.addFault({ match: '*', latencyMs: 30 });
    const core = createCore({ dataDir: tempDir(), secrets });
    const app = await openApp(core);
    const { page } = app;
    try {
      await fillConnectForm(page, 'Demo organisation', sandbox);
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();

      // The first sync starts by itself: the lists do not wait for a background round.
      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      const history = page.getByTestId('sync-history');
      await expect
        .poll(() => history.locator('tbody tr td.outcome').allTextContents(), { timeout: 60_000 })
        .toEqual(['Succeeded']);
      const records = Number((await history.locator('tbody tr td.number').textContent())?.replace(/\D/g, ''));
      expect(records).toBeGreaterThan(1500);

      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.getByTestId('sync-progress').waitFor();
      await app.screenshot('sync-running-light');
      await expect
        .poll(() => history.locator('tbody tr td.outcome').allTextContents(), { timeout: 60_000 })
        .toEqual(['Succeeded', 'Succeeded']);
      await app.screenshot('sync-done-light');
      expect(await page.content()).not.toContain(sandbox.clientSecret);
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  });

  it('keeps the focus on its buttons while a run starts, is cancelled and ends', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300, control: true });
    const app = await openConnected({ sandbox });
    const { page } = app;
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? null);
    try {
      const history = await openSyncScreen(page);

      // Sync now from the keyboard: the focus is back on it once the run is over.
      await page.getByRole('button', { name: 'Sync now' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => history.count(), { timeout: 60_000 }).toBe(2);
      await page.getByRole('button', { name: 'Sync now' }).and(page.locator(':enabled')).waitFor();
      await expect.poll(focused).toBe('Sync now');

      // A slow repair: Cancel takes the focus while it runs, Repair takes it back after.
      sandbox.control?.addFault({ match: '*', latencyMs: 300 });
      await page.keyboard.press('Tab');
      await expect.poll(focused).toBe('Repair (read everything again)');
      await page.keyboard.press('Enter');
      await expect.poll(focused).toBe('Cancel');
      await page.keyboard.press('Enter');
      await expect.poll(() => history.count(), { timeout: 60_000 }).toBe(3);
      await page.getByRole('button', { name: 'Cancel' }).waitFor({ state: 'detached' });
      await expect.poll(focused).toBe('Repair (read everything again)');
    } finally {
      await app.close();
    }
  });

  it('says how each run ended in words, in the history and the status bar', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300, control: true });
    const app = await openConnected({ sandbox });
    const { page, core, profile } = app;
    try {
      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      // Suppliers answer 500 every time: the other resources are read, the run is partly done.
      sandbox.control?.addFault({ match: '/v1/suppliers', status: 500, retryAfterSeconds: 0 });
      await page.getByRole('button', { name: 'Sync now' }).click();
      const newest = page.getByTestId('sync-history').locator('tbody tr').first();
      await expect
        .poll(() => newest.locator('td.outcome').textContent(), { timeout: 60_000 })
        .toBe('Partly done');
      await expect.poll(() => page.getByTestId('sync-last').textContent()).toContain('Partly done');
      await expect.poll(() => page.getByTestId('last-synced').textContent()).toMatch(/\(partly done\)$/);
      await expect(page.getByTestId('sync-history').locator('td.outcome').allTextContents()).resolves.toEqual(
        ['Partly done', 'Succeeded'],
      );

      // The API drops every connection of the first resource: the run failed, and the status bar
      // says so and since when the cache is complete, never "Last synced … (failed)".
      sandbox.control?.clearFaults();
      sandbox.control?.addFault({ match: '/v1/bank-accounts', drop: true });
      await page.getByRole('button', { name: 'Sync now' }).click();
      await expect.poll(() => newest.locator('td.outcome').textContent(), { timeout: 60_000 }).toBe('Failed');
      const [failed, , succeeded] = core.sync.history(profile.id);
      const time = (iso: string | null | undefined) =>
        page.evaluate(
          (at) =>
            new Intl.DateTimeFormat(navigator.language, { dateStyle: 'medium', timeStyle: 'short' }).format(
              new Date(at),
            ),
          iso ?? '',
        );
      await expect
        .poll(() => page.getByTestId('last-synced').textContent())
        .toBe(
          `Sync failed at ${await time(failed?.finishedAt)} · last complete ${await time(succeeded?.finishedAt)}`,
        );
      await expect(page.getByTestId('sync-last').textContent()).resolves.toContain('Failed');
      await page.getByTestId('sync-failure').waitFor();
    } finally {
      await app.close();
    }
  }, 120_000);

  it('ends a run the cache refused to record: not left syncing, Sync now back, and why it failed', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300, control: true });
    const app = await openConnected({ sandbox });
    const { page, core, profile } = app;
    try {
      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      // The real cache file refuses the run's last write to the history, as a full disk would.
      const sqlite = core.cacheOf(profile.id).sqlite;
      sqlite.exec(
        `CREATE TRIGGER refuse_history BEFORE UPDATE OF finished_at ON sync_runs
         WHEN NEW.finished_at IS NOT NULL BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
      );
      let progressed = 0;
      core.events.subscribe((name) => {
        if (name === 'sync.progress') progressed += 1;
      });
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page
        .getByTestId('sync-failure')
        .getByText("could not write to this organisation's cache (database or disk is full)", {
          exact: false,
        })
        .waitFor({ timeout: 60_000 });
      expect(progressed).toBeGreaterThan(0); // it failed after reading, not before
      await page.getByRole('button', { name: 'Sync now' }).and(page.locator(':enabled')).waitFor();
      await expect(page.getByRole('button', { name: 'Cancel' }).count()).resolves.toBe(0);
      await expect(page.getByTestId('running-work').count()).resolves.toBe(0);
      await expect
        .poll(() => page.getByTestId('last-synced').textContent())
        .toMatch(/^Sync failed at .+ · last complete .+$/);

      // Fixed: the next run goes ahead and the failure goes.
      sqlite.exec('DROP TRIGGER refuse_history');
      await page.getByRole('button', { name: 'Sync now' }).click();
      const newest = page.getByTestId('sync-history').locator('tbody tr').first();
      await expect
        .poll(() => newest.locator('td.outcome').textContent(), { timeout: 60_000 })
        .toBe('Succeeded');
      await expect.poll(() => page.getByTestId('sync-failure').count()).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('ends the run it saw going on when a later run fails before its first page (no run id)', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300, control: true });
    const app = await openConnected({ sandbox });
    const { page, core, profile } = app;
    try {
      const history = await openSyncScreen(page);
      // A background round the screen watches: its progress names its run, its end too.
      const seen: Array<EventPayload<'sync.finished'>> = [];
      core.events.subscribe((name, payload) => {
        if (name === 'sync.finished') seen.push(payload as EventPayload<'sync.finished'>);
      });
      sandbox.control?.addFault({ match: '*', latencyMs: 20 });
      const round = core.sync.sync(profile.id);
      await page.getByTestId('sync-progress').waitFor();
      expect((await round).outcome).toBe('succeeded');
      await expect.poll(() => history.count(), { timeout: 60_000 }).toBe(2);
      await page.getByRole('button', { name: 'Sync now' }).and(page.locator(':enabled')).waitFor();

      // The next round fails before its first page: the real cache file refuses the run's row,
      // as a full disk would, so the run has no id. Its end still ends "syncing" on the screen.
      const sqlite = core.cacheOf(profile.id).sqlite;
      sqlite.exec(
        `CREATE TRIGGER refuse_runs BEFORE INSERT ON sync_runs
         BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
      );
      await expect(core.sync.sync(profile.id)).rejects.toMatchObject({ code: 'INTERNAL' });
      expect(seen.at(-1)).toMatchObject({ runId: null, outcome: 'failed' });
      await page.getByTestId('sync-failure').waitFor();
      await page.getByRole('button', { name: 'Sync now' }).and(page.locator(':enabled')).waitFor();
      await expect(page.getByRole('button', { name: 'Cancel' }).count()).resolves.toBe(0);
      await expect(page.getByTestId('sync-progress').count()).resolves.toBe(0);
      await expect(page.getByText('Starting…').count()).resolves.toBe(0);
      await expect(page.getByTestId('running-work').count()).resolves.toBe(0);
    } finally {
      await app.close();
    }
  });

  it('tells the user, not the status bar, that another Satchel process is syncing', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300, control: true });
    const dataDir = tempDir();
    const core = createCore({ dataDir, secrets });
    const profile = await connectSandbox(core, sandbox);
    // Another process on the same data folder (a scheduled `satchel sync`) holds the lease: its
    // sync waits on a suppliers page meanwhile.
    const other = createCore({ dataDir, secrets });
    const app = await openApp(core);
    const { page } = app;
    try {
      const history = await openSyncScreen(page);
      const lastSynced = await page.getByTestId('last-synced').textContent();
      const held = sandbox.control!.addFault({ match: 'listSuppliers', latencyMs: 60_000, times: 1 });
      const elsewhere = other.sync.sync(profile.id);
      await expect.poll(() => sandbox.control!.faultFired(held), { timeout: 30_000 }).toBe(1);

      // A background round meets it: nothing to show, it tries again at the next round.
      await expect(core.sync.sync(profile.id)).rejects.toMatchObject({ code: 'BUSY' });
      // The user's Sync now: the reason in words, Sync now back, no failure anywhere.
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page
        .getByRole('alert')
        .getByText('This organisation is syncing in another Satchel window or command', { exact: false })
        .waitFor();
      await page.getByRole('button', { name: 'Sync now' }).and(page.locator(':enabled')).waitFor();
      await expect(page.getByTestId('sync-failure').count()).resolves.toBe(0);
      await expect(page.getByTestId('sync-progress').count()).resolves.toBe(0);
      await expect(page.getByTestId('running-work').count()).resolves.toBe(0);
      await expect(page.getByTestId('last-synced').textContent()).resolves.toBe(lastSynced);
      // The other process's run may be listed (running); no failed run is.
      expect(await history.locator('td.outcome').allTextContents()).not.toContain('Failed');

      other.sync.cancel(profile.id);
      await expect(elsewhere).resolves.toMatchObject({ outcome: 'cancelled' });
    } finally {
      await app.close();
      await other.close();
      await core.close();
      await sandbox.stop();
    }
  }, 120_000);

  it('says at once that there is no network, and forgets it once a sync has run', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300, control: true });
    const app = await openConnected({ sandbox });
    const { page, core, profile } = app;
    try {
      const history = await openSyncScreen(page);
      core.connectivity.setNetwork(false);
      await page.getByTestId('sync-online').getByText('no network').waitFor();
      sandbox.control?.clearRequests();
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.getByRole('alert').getByText('There is no network', { exact: false }).waitFor();
      await page.getByRole('button', { name: 'Sync now' }).and(page.locator(':enabled')).waitFor();
      expect(sandbox.control?.requests()).toEqual([]);
      await expect(history.count()).resolves.toBe(1);

      // Back on the network, the sync that follows (the background's, on reconnect) ends: the
      // refusal no longer holds and goes.
      core.connectivity.setNetwork(true);
      await page.getByTestId('sync-online').getByText('Online').waitFor();
      await expect(page.getByRole('alert').count()).resolves.toBe(1);
      expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
      await expect.poll(() => history.count(), { timeout: 60_000 }).toBe(2);
      await expect.poll(() => page.getByRole('alert').count()).toBe(0);
    } finally {
      await app.close();
    }
  });
});
