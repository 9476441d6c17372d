import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { useCliProfiles } from '../helpers/cli-profile';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { closeBrowser, openApp } from './harness';

// The Files area while `satchel download` runs the same organisation's download in another
// process (files/job-lease.ts): the window shows it as running elsewhere, offers none of its
// controls, follows its count, and shows its end.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);
afterAll(closeBrowser);

describe('a download the command line runs', () => {
  it('is shown running elsewhere, without controls, until it ends', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Elsewhere', { transactions: 600 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 40 });
    const destination = path.join(tempDir(), 'From the command line');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'src-main/cli.ts'), 'download', '--to', destination],
      { cwd: repoRoot, env: { ...process.env, SATCHEL_DATA_DIR: dataDir }, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => resolve(code));
    });
    const deadline = Date.now() + 60_000;
    while ((sandbox.control?.requests('getFileContent').length ?? 0) < 30) {
      if (Date.now() > deadline) throw new Error('the command did not get going');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      await page.keyboard.press('Control+4');
      await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
      const card = page.getByTestId('download-job').filter({ hasText: destination });
      await card.getByText('Running elsewhere').waitFor();
      await card.getByTestId('job-elsewhere').waitFor();
      const controls = card.getByRole('group', { name: 'Download controls' });
      for (const name of ['Pause', 'Resume', 'Cancel…', 'Retry all failed'])
        expect(await controls.getByRole('button', { name }).count()).toBe(0);
      await checkScreen(app, 'files-elsewhere');

      // Its count moves without an event from the other process.
      const progress = card.getByRole('progressbar');
      const first = Number(await progress.getAttribute('aria-valuenow'));
      await expect
        .poll(async () => Number(await progress.getAttribute('aria-valuenow')), { timeout: 20_000 })
        .toBeGreaterThan(first);

      expect(await exited).toBe(0);
      await expect.poll(() => card.getAttribute('data-status'), { timeout: 20_000 }).toBe('completed');
      await card.getByText('Finished').waitFor();
      expect(await card.getByTestId('job-elsewhere').count()).toBe(0);
      await card.getByRole('button', { name: 'Check folder' }).waitFor();
    } finally {
      child.kill();
      await app.close();
      await core.close();
    }
  }, 240_000);
});
