import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { queuedFileDialog } from '../helpers/dialogs';
import { COLLEAGUE_AT, writeColleagueReview } from '../helpers/review-file';
import { seriousViolations } from './axe';
import { useAppTests } from './harness';

// Stopping a review import and a review export of 40,000 marks from the window, in Chromium:
// "Stop import" beside the bar ends the import part-way, the window says how far it came in the
// command line's words, and offers to undo the marks merged so far, which it does; "Stop
// export", reached by the keyboard, ends the export with nothing written, last week's file as it
// was, no temporary beside it, and the focus back on the button that started it.
const { tempDir, openConnected } = useAppTests();

const MARKS = 40_000;
/** Marks to export: seconds of slices, for the keys to reach Stop export meanwhile. */
const EXPORTED = 100_000;

describe('stopping a review export and import from the window', () => {
  it('stops each part-way and says what became of it', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 100 });
    const folder = tempDir();
    const fileDialog = queuedFileDialog();
    const at = COLLEAGUE_AT;
    const colleague = path.join(folder, 'colleague.json');
    writeColleagueReview(colleague, MARKS, { note: true });
    const opened = await openConnected({
      sandbox,
      pickFile: fileDialog.pick,
      timeout: 20_000,
    });
    const { page, core, profile } = opened;
    const cache = core.cacheOf(profile.id);
    const marksInCopy = () =>
      cache.sqlite.prepare('SELECT count(*) FROM review_marks').pluck().get() as number;
    try {
      await page.keyboard.press('Control+7');
      await page.getByRole('heading', { level: 1, name: 'Needs attention' }).waitFor();
      const section = page.getByRole('region', { name: 'Hand the review to a colleague' });
      const result = section.getByTestId('review-file-result');
      const bar = section.getByRole('progressbar');
      expect(await section.getByRole('button', { name: /^Stop/ }).count()).toBe(0);

      // The import, stopped while it merges: what it merged stays, and can be undone.
      fileDialog.answers.push(colleague);
      await section.getByRole('button', { name: 'Import review marks…' }).click();
      await section.getByRole('progressbar', { name: /^Importing [\d,]+ of 40,000 marks…$/ }).waitFor();
      await section.getByRole('button', { name: 'Stop import' }).click();
      const interrupted = result.getByText(
        /^The import was interrupted after [\d,]+ of 40,000 marks; the marks merged so far stay\. Import the same file again to finish\. So far [\d,]+ records took a newer mark from the file\.$/,
      );
      await interrupted.waitFor();
      const said = (await interrupted.textContent())!;
      const merged = Number(/after ([\d,]+) of/.exec(said)![1]!.replace(/,/g, ''));
      expect(merged).toBeGreaterThan(0);
      expect(merged).toBeLessThan(MARKS);
      expect(said).toContain(`So far ${merged.toLocaleString('en-US')} records took`);
      expect(marksInCopy()).toBe(merged);
      expect(await bar.count()).toBe(0);
      expect(await section.getByRole('button', { name: /^Stop/ }).count()).toBe(0);
      expect(await section.getByRole('alert').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await opened.screenshot('review-import-stopped');

      await section.getByRole('button', { name: 'Undo the marks imported so far' }).click();
      await result
        .getByText(
          `Import undone: ${merged.toLocaleString('en-US')} records have their review marks as before it.`,
        )
        .waitFor();
      expect(marksInCopy()).toBe(0);

      // The export of as many marks, stopped from the keyboard: nothing written.
      cache.sqlite
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @marks)
           INSERT INTO review_marks (kind, record_id, reviewed_at, reviewed_changed_at, note, note_changed_at, updated_at)
           SELECT 'transaction', printf('tx-%06d', i), @at, @at, 'checked against the statement ' || i, @at, @at FROM n`,
        )
        .run({ marks: EXPORTED, at });
      const target = path.join(folder, 'review.json');
      writeFileSync(target, 'the review file of last week\n');
      fileDialog.answers.push(target);
      await section.getByRole('button', { name: 'Export review marks…' }).click();
      await section.getByRole('progressbar', { name: /^Exporting [\d,]+ of 100,000 marks…$/ }).waitFor();
      // From the button that started it (now "Exporting…"), past the other, to Stop export.
      const focused = () => page.evaluate(() => document.activeElement?.textContent);
      expect(await focused()).toBe('Exporting…');
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('Import review marks…');
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('Stop export');
      await page.keyboard.press('Enter');
      await result.getByText('The export was cancelled; no file was written.').waitFor();
      expect(await bar.count()).toBe(0);
      expect(await section.getByRole('button', { name: /^Stop/ }).count()).toBe(0);
      expect(await section.getByRole('alert').count()).toBe(0);
      expect(await focused()).toBe('Export review marks…');
      expect(readFileSync(target, 'utf8')).toBe('the review file of last week\n');
      expect(readdirSync(folder).sort()).toEqual(['colleague.json', 'review.json']);
      await opened.screenshot('review-export-stopped');
    } finally {
      await opened.close();
    }
  }, 180_000);
});
