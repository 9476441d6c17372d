import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { queuedFileDialog } from '../helpers/dialogs';
import { writeColleagueReview } from '../helpers/review-file';
import { holdThreadPool } from '../helpers/thread-pool';
import { seriousViolations } from './axe';
import { useAppTests } from './harness';

// A colleague's 40,000 review marks imported in the window, then all of them exported: the
// section that started the work says how far it is, as a bar and in words ("Importing 12,000 of
// 40,000 marks…"), until the result. The export is held at its last step, the file's sync to
// the disk, by holding every thread of libuv's pool (where that sync now runs): the window shows
// the whole count meanwhile (late events of another run's workId change nothing), and the
// result once the pool is free.
const { tempDir, openConnected } = useAppTests();

const MARKS = 40_000;

describe('the progress of a review export and import in the window', () => {
  it('shows how many marks are checked, imported and exported, and then the result', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 100 });
    const folder = tempDir();
    const fileDialog = queuedFileDialog();
    const colleague = path.join(folder, 'colleague.json');
    writeColleagueReview(colleague, MARKS, { note: true, tags: true });
    const opened = await openConnected({
      sandbox,
      pickFile: fileDialog.pick,
      timeout: 20_000,
    });
    const { page, core } = opened;
    const profileId = opened.profile.id;
    let pool: { release(): void } | null = null;
    try {
      await page.keyboard.press('Control+7');
      await page.getByRole('heading', { level: 1, name: 'Needs attention' }).waitFor();
      const section = page.getByRole('region', { name: 'Hand the review to a colleague' });
      const result = section.getByTestId('review-file-result');
      const bar = section.getByRole('progressbar');

      // The import: its file checked, then its marks merged (about 90 µs a mark), counted.
      fileDialog.answers.push(colleague);
      await section.getByRole('button', { name: 'Import review marks…' }).click();
      const importing = section.getByRole('progressbar', { name: /^Importing [\d,]+ of 40,000 marks…$/ });
      await importing.waitFor();
      const shown = Number(await importing.getAttribute('aria-valuenow'));
      expect(shown).toBeGreaterThan(0);
      expect(shown).toBeLessThanOrEqual(MARKS);
      expect(await importing.getAttribute('aria-valuemax')).toBe(String(MARKS));
      await section.getByRole('button', { name: 'Importing…' }).waitFor();
      await result
        .getByText('40,000 review marks read; 40,000 records took a newer mark', { exact: false })
        .waitFor();
      expect(await bar.count()).toBe(0);

      // The export, held at its file's sync once its first slice is written (before then the
      // command's own steps may use the pool): the count reaches the total and stays shown.
      const file = path.join(folder, 'review.json');
      const stop = core.events.subscribe((event) => {
        if (event === 'review.fileProgress' && !pool) pool = holdThreadPool(tempDir());
      });
      fileDialog.answers.push(file);
      await section.getByRole('button', { name: 'Export review marks…' }).click();
      const exporting = section.getByRole('progressbar', { name: 'Exporting 40,000 of 40,000 marks…' });
      await exporting.waitFor();
      stop();
      expect(await exporting.getAttribute('aria-valuenow')).toBe(String(MARKS));
      expect(await section.getByTestId('review-file-progress').textContent()).toBe(
        'Exporting 40,000 of 40,000 marks…',
      );
      await section.getByRole('button', { name: 'Exporting…' }).waitFor();
      expect(await result.count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);

      // Late events of another run (one stopped before this one began): a count, then its end.
      // The section follows its own run's workId only, so its bar neither redraws nor goes
      // (before, the first redrew it as "Exporting 5 of 7 marks…" and the second removed it).
      const stopped = randomUUID();
      core.events.emit('review.fileProgress', {
        profileId,
        workId: stopped,
        step: 'export',
        done: 5,
        total: 7,
        ended: false,
      });
      core.events.emit('review.fileProgress', {
        profileId,
        workId: stopped,
        step: 'export',
        done: 5,
        total: 7,
        ended: true,
      });
      // Then an event the status bar shows: once it is drawn, the page has taken in the two
      // before it (events arrive in order, and an update is drawn with those before it).
      core.events.emit('review.progress', { profileId, done: 1, total: 3, ended: false, phase: 'change' });
      await page.getByTestId('running-review').getByText('Changing review marks: 1 of 3').waitFor();
      expect(await bar.count()).toBe(1);
      expect(await section.getByTestId('review-file-progress').textContent()).toBe(
        'Exporting 40,000 of 40,000 marks…',
      );
      expect(await exporting.getAttribute('aria-valuenow')).toBe(String(MARKS));
      core.events.emit('review.progress', { profileId, done: 1, total: 3, ended: true, phase: 'change' });
      await page.getByTestId('running-review').waitFor({ state: 'detached' });

      pool!.release();
      await result.getByText(`40,000 review marks written to ${file}.`).waitFor();
      expect(await bar.count()).toBe(0);
      await section.getByRole('button', { name: 'Export review marks…' }).waitFor();
      expect((JSON.parse(readFileSync(file, 'utf8')) as { marks: unknown[] }).marks).toHaveLength(MARKS);
    } finally {
      (pool as { release(): void } | null)?.release();
      await opened.close();
    }
  }, 180_000);
});
