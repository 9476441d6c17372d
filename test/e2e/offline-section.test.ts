import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { useAppTests } from './harness';

// The Files area's "Kept offline" section in Chromium against a real core and sandbox: it
// follows a fill from the core's events, and asks the core nothing while nothing changes.
const { openConnected } = useAppTests();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('kept offline', () => {
  it('follows the fill by its events, without asking the core on a timer', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 40, control: true });
    const commands: string[] = [];
    const app = await openConnected({
      sandbox,
      // The first sync's fill, with nothing to keep.
      beforeOpen: (core, profile) => core.files.fillOffline(profile.id),
      onCommand: (command) => commands.push(command),
      timeout: 20_000,
    });
    const { page, core, profile } = app;
    const usageReads = () => commands.filter((command) => command === 'files.offlineScope.get').length;
    try {
      await page.keyboard.press('Control+4');
      const usage = page.getByTestId('offline-usage');
      await usage.getByText('Up to date').waitFor();

      // The fill's first two requests are slow: for a while it runs and nothing lands (long
      // enough that a loaded machine still ends the quiet window below well before).
      const slow = sandbox.control!.addFault({ match: 'getFileContent', latencyMs: 20_000, times: 2 });
      const offline = page.getByRole('form', { name: 'Kept offline' });
      await offline.getByRole('radio', { name: 'Every file' }).check();
      await offline.getByRole('button', { name: 'Save' }).click();
      await offline.getByText('Saved.').waitFor();
      await usage.getByText('Fetching the missing files…').waitFor();
      await expect.poll(() => sandbox.control!.faultFired(slow)).toBeGreaterThan(0);
      const wanted = core.files.offlineScope(profile.id).wantedFiles;
      expect(wanted).toBeGreaterThan(4);
      const count = new Intl.NumberFormat('en-US').format(wanted);
      await usage.getByText(`0 of ${count} files on this computer`).waitFor();

      // Running, nothing new: the section asks nothing (it used to read the usage every second).
      const before = usageReads();
      await pause(2_500);
      // Still nothing landed (else a read would be due), and nothing was asked.
      expect(core.files.offlineScope(profile.id)).toMatchObject({ filling: true, wantedCached: 0 });
      expect(usageReads()).toBe(before);

      // Files land: the section follows them to the end.
      await usage.getByText(`${count} of ${count} files on this computer`).waitFor({ timeout: 60_000 });
      await usage.getByText('Up to date').waitFor();
      expect(usageReads()).toBeGreaterThan(before);

      // Idle: nothing asked at all.
      const idle = commands.length;
      await pause(2_500);
      expect(commands.slice(idle)).toEqual([]);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('says another window or command is filling, then fills once that one is done', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 40, control: true });
    const app = await openConnected({
      sandbox,
      fillLease: { heartbeatMs: 100 },
      // The first sync's fill, with nothing to keep.
      beforeOpen: (core, profile) => core.files.fillOffline(profile.id),
      timeout: 20_000,
    });
    const { page, core, profile } = app;
    const { sqlite } = core.cacheOf(profile.id);
    try {
      await page.keyboard.press('Control+4');
      const usage = page.getByTestId('offline-usage');
      await usage.getByText('Up to date').waitFor();

      // The command line fills this organisation's cache now (its lease, as its process writes
      // it; the test runner's parent stands in for that live process).
      const stamp = new Date().toISOString();
      sqlite
        .prepare(
          `INSERT INTO offline_fill_lease (id, owner, pid, host, taken_at, heartbeat_at) VALUES (1, 'the command line', ?, ?, ?, ?)`,
        )
        .run(process.ppid, hostname(), stamp, stamp);
      const offline = page.getByRole('form', { name: 'Kept offline' });
      await offline.getByRole('radio', { name: 'Every file' }).check();
      await offline.getByRole('button', { name: 'Save' }).click();
      await offline.getByText('Saved.').waitFor();
      await usage.getByText('Another Satchel window or command is filling the offline files.').waitFor();
      expect(await usage.getByText(/stopped|could not be fetched/).count()).toBe(0);
      expect(sandbox.control!.requests('getFileContent')).toEqual([]);

      // It is done and gives the lease back: this window fills what the new setting asks.
      sqlite.prepare('DELETE FROM offline_fill_lease').run();
      await usage.getByText('Up to date').waitFor({ timeout: 60_000 });
      expect(core.files.offlineScope(profile.id)).toMatchObject({ fillingElsewhere: false });
      expect(sandbox.control!.requests('getFileContent').length).toBe(
        core.files.offlineScope(profile.id).wantedFiles,
      );
    } finally {
      await app.close();
    }
  }, 120_000);
});
