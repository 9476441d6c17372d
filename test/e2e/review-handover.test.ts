import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { applyReview, exportReviewInSlices, reviewStates } from '../../src-main/review';
import { createKeychainSecrets } from '../../src-main/secrets';
import type { CacheDb } from '../../src-main/store';
import { startSandbox } from '../../src-sandbox';
import { queuedFileDialog } from '../helpers/dialogs';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { closeBrowser, openApp } from './harness';
import { connectSandbox } from './steps';

// Two accountants of one organisation, each with a data folder of their own synced from the
// sandbox: the colleague reviews and tags 300 transactions and exports the review; I had marked
// some of the same transactions myself, some before the colleague and some after, and import
// the file in the window (Needs attention). The window says how many records took the file's
// marks and how many kept my own newer one, undoes the import on request (leaving a record I
// changed since), says that a second import changed nothing new, and refuses a file of another
// organisation and an empty file, changing nothing. Times of the marks are fixed, so which side
// is newer never depends on the clock.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

const at = (iso: string) => ({ now: () => new Date(iso) });
const snapshot = (cache: CacheDb) => ({
  marks: cache.sqlite.prepare('SELECT * FROM review_marks ORDER BY kind, record_id').all(),
  tags: cache.sqlite.prepare('SELECT * FROM review_tags ORDER BY kind, record_id, tag').all(),
});

describe('handing the review to a colleague in the window', () => {
  it('merges a colleague’s review, says who kept what, undoes it, and refuses foreign files', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 600 });
    const foreign = await startSandbox({ port: 0, seed: 6, transactions: 50 });
    const folder = tempDir();
    const fileDialog = queuedFileDialog();
    const mine = createCore({ dataDir: tempDir(), secrets, pickFile: fileDialog.pick });
    const colleague = createCore({ dataDir: tempDir(), secrets });
    const stranger = createCore({ dataDir: tempDir(), secrets });
    // The counts read again after an import (`review.attention`), held back when asked until
    // the test lets them go, as a slow core would hold them.
    let refresh: { importSent: boolean; arrived(): void; released: Promise<void> } | null = null;
    const holdRefresh = (command: string) => {
      if (!refresh) return undefined;
      if (command === 'review.import') refresh.importSent = true;
      if (command !== 'review.attention' || !refresh.importSent) return undefined;
      refresh.arrived();
      return refresh.released;
    };
    const app = await (async () => {
      const myProfile = await connectSandbox(mine, sandbox);
      const theirProfile = await connectSandbox(colleague, sandbox);
      const strangerProfile = await connectSandbox(stranger, foreign);
      const cache = mine.cacheOf(myProfile.id);
      const theirs = colleague.cacheOf(theirProfile.id);
      const ids = cache.sqlite
        .prepare('SELECT id FROM bank_transactions WHERE deleted_at IS NULL ORDER BY id LIMIT 300')
        .pluck()
        .all() as string[];
      const some = (from: number, to: number) => ({
        by: 'ids' as const,
        kind: 'transaction' as const,
        ids: ids.slice(from, to),
      });

      // Mine before the colleague's (09:00): flags the file knows nothing of.
      applyReview(cache, some(0, 20), { action: 'flag', reason: 'Private use?' }, at('2026-05-04T09:00:00Z'));
      // The colleague's review (10:00): every one of the 300 reviewed and tagged.
      applyReview(theirs, some(0, 300), { action: 'setReviewed' }, at('2026-05-04T10:00:00Z'));
      applyReview(
        theirs,
        some(0, 300),
        { action: 'addTags', tags: ['Q3 audit'] },
        at('2026-05-04T10:00:00Z'),
      );
      // Mine after it (11:00): my own tags on ten; five seen and un-marked again, and tagged.
      applyReview(
        cache,
        some(0, 10),
        { action: 'addTags', tags: ['ask client'] },
        at('2026-05-04T11:00:00Z'),
      );
      applyReview(cache, some(15, 20), { action: 'setReviewed' }, at('2026-05-04T11:00:00Z'));
      applyReview(cache, some(15, 20), { action: 'clearReviewed' }, at('2026-05-04T11:00:00Z'));
      applyReview(
        cache,
        some(15, 20),
        { action: 'addTags', tags: ['ask client'] },
        at('2026-05-04T11:00:00Z'),
      );
      await exportReviewInSlices(theirs, path.join(folder, 'colleague.json'));
      await exportReviewInSlices(
        stranger.cacheOf(strangerProfile.id),
        path.join(folder, 'other client.json'),
      );
      writeFileSync(path.join(folder, 'empty.json'), '');
      return { opened: await openApp(mine, { onCommand: holdRefresh }), cache, ids };
    })();
    const { opened, cache, ids } = app;
    const { page } = opened;
    page.setDefaultTimeout(20_000);
    try {
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      await page.keyboard.press('Control+7');
      await page.getByRole('heading', { level: 1, name: 'Needs attention' }).waitFor();
      const section = page.getByRole('region', { name: 'Hand the review to a colleague' });
      const importButton = section.getByRole('button', { name: 'Import review marks…' });
      const result = section.getByTestId('review-file-result');
      const before = snapshot(cache);

      // 295 records take the colleague's marks; 15 keep my newer, different ones: the first
      // ten their tags (and take the colleague's "reviewed"), the five un-marked their state.
      // While the counts are read again after the import, the button still says "Importing…",
      // and the result waits for it: the two change together, with the counts below.
      fileDialog.answers.push(path.join(folder, 'colleague.json'));
      let arrived = () => {};
      let release = () => {};
      const refreshArrived = new Promise<void>((resolve) => (arrived = resolve));
      refresh = { importSent: false, arrived, released: new Promise<void>((resolve) => (release = resolve)) };
      await importButton.click();
      await refreshArrived;
      // What the page has to show by now is drawn: a frame, then a task.
      await page.evaluate(
        () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))),
      );
      await section.getByRole('button', { name: 'Importing…' }).waitFor();
      expect(await result.count()).toBe(0);
      refresh = null;
      release();
      await result
        .getByText(
          '300 review marks read; 295 records took a newer mark from the file. 15 records kept your own newer mark where the file says otherwise.',
        )
        .waitFor();
      expect(await section.getByRole('button', { name: 'Importing…' }).count()).toBe(0);
      const states = reviewStates(cache, 'transaction', [ids[0]!, ids[16]!, ids[100]!]);
      expect(states.get(ids[0]!)).toMatchObject({ flagged: true, tags: ['ask client'] });
      expect(states.get(ids[0]!)?.reviewedAt).toBe('2026-05-04T10:00:00.000Z');
      expect(states.get(ids[16]!)).toMatchObject({ reviewedAt: null, tags: ['ask client'] });
      expect(states.get(ids[100]!)).toMatchObject({
        reviewedAt: '2026-05-04T10:00:00.000Z',
        tags: ['Q3 audit'],
      });
      // Settled: the import's button back, the groups counted again.
      await importButton.waitFor();
      await page.getByText('Flagged transactions', { exact: true }).waitFor();
      await checkScreen(opened, 'review-import-merged');

      // A note of mine after the import, then Undo: that record stays as I left it, every other
      // is as before the import, to the byte.
      applyReview(
        cache,
        { by: 'ids', kind: 'transaction', ids: [ids[200]!] },
        { action: 'setNote', note: 'Looked at after the import' },
        at('2026-05-04T12:00:00Z'),
      );
      await section.getByRole('button', { name: 'Undo this import' }).click();
      await result
        .getByText(
          'Import undone: 294 records have their review marks as before it. 1 record changed since the import was left as it is.',
        )
        .waitFor();
      expect(await section.getByRole('button', { name: 'Undo this import' }).count()).toBe(0);
      const without200 = (rows: ReturnType<typeof snapshot>) => ({
        marks: (rows.marks as Array<{ record_id: string }>).filter((row) => row.record_id !== ids[200]),
        tags: (rows.tags as Array<{ record_id: string }>).filter((row) => row.record_id !== ids[200]),
      });
      expect(without200(snapshot(cache))).toEqual(without200(before));
      expect(reviewStates(cache, 'transaction', [ids[200]!]).get(ids[200]!)).toMatchObject({
        note: 'Looked at after the import',
        tags: ['Q3 audit'],
      });

      // Imported again it takes the same marks (the record noted since has taken them already);
      // a second import of the file changes nothing and says so.
      fileDialog.answers.push(path.join(folder, 'colleague.json'));
      await importButton.click();
      await result
        .getByText('300 review marks read; 294 records took a newer mark from the file.', { exact: false })
        .waitFor();
      fileDialog.answers.push(path.join(folder, 'colleague.json'));
      await importButton.click();
      await result
        .getByText(
          '300 review marks read; 0 records took a newer mark from the file. 15 records kept your own newer mark where the file says otherwise.',
        )
        .waitFor();
      expect(await section.getByRole('button', { name: 'Undo this import' }).count()).toBe(0);

      // Another client's file and an empty one: refused whole, nothing changes.
      const merged = snapshot(cache);
      fileDialog.answers.push(path.join(folder, 'other client.json'));
      await importButton.click();
      await section
        .getByRole('alert')
        .getByText('holds the review marks of another organisation', { exact: false })
        .waitFor();
      fileDialog.answers.push(path.join(folder, 'empty.json'));
      await importButton.click();
      await section.getByRole('alert').getByText('is empty, not a review export', { exact: false }).waitFor();
      expect(snapshot(cache)).toEqual(merged);
      await checkScreen(opened, 'review-import-refused');

      // An import that fails part-way: another program takes the copy's write lock once the
      // first slice is merged, and the next slice is refused. The window says why, and the
      // status bar stops counting it instead of keeping "Changing review marks: 250 of 600".
      const more = path.join(folder, 'more.json');
      writeFileSync(
        more,
        JSON.stringify({
          format: 'satchel-review',
          version: 1,
          exportedAt: '2026-05-04T13:00:00.000Z',
          organisationId: null,
          marks: Array.from({ length: 600 }, () => ({
            kind: 'transaction',
            id: randomUUID(),
            note: { text: 'Seen by Anna', changedAt: '2026-05-04T12:30:00.000Z' },
          })),
        }),
      );
      // The copy's busy wait shortened from 5 s: the slice refused is the point, not the wait.
      cache.sqlite.pragma('busy_timeout = 200');
      const other = new Database(cache.sqlite.name);
      // Once the merge has begun: the file's check before it changes nothing.
      const stopLocking = mine.events.subscribe((event, payload) => {
        if (event !== 'review.progress' || other.inTransaction) return;
        if ((payload as { phase: string }).phase === 'change') other.exec('BEGIN IMMEDIATE');
      });
      try {
        fileDialog.answers.push(more);
        await importButton.click();
        await section.getByRole('alert').getByText('kept the cache busy', { exact: false }).waitFor();
      } finally {
        stopLocking();
        if (other.inTransaction) other.exec('ROLLBACK');
        other.close();
      }
      await importButton.waitFor();
      await expect.poll(() => page.getByTestId('running-review').count()).toBe(0);
    } finally {
      await opened.close();
      await mine.close();
      await colleague.close();
      await stranger.close();
      await sandbox.stop();
      await foreign.stop();
    }
  }, 240_000);
});
