import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../src-shared/ipc';
import type { ExpenseSearchResult, ReviewChange, TransactionSearchResult } from '../../../src-shared/search';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import type { Core } from '../../../src-main/core';
import { applyReview, exportReviewInSlices } from '../../../src-main/review';
import { writeColleagueNotes, writeColleagueReview } from '../../helpers/review-file';
import { connectedCore, syncedCore, syncedCoreWithFileDialog } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// `review.apply` through the real handler table, over a cache filled by a real sync of the
// sandbox: a whole search result is changed with `review.progress` events on the core's bus.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** `syncedCoreWithFileDialog` on a fresh folder, closed (with all in `closers`) after the test. */
async function syncedWithFileDialog(transactions: number) {
  const closers: Array<() => Promise<void>> = [];
  cleanups.push(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return { closers, ...(await syncedCoreWithFileDialog(tempDir(), closers, { transactions })) };
}

/**
 * A colleague's review file: their own synced copy of the same sandbox, `change` made to its
 * first `marked` transactions (all when not given), exported. `ids` are the transactions marked.
 */
async function colleagueExport(
  closers: Array<() => Promise<void>>,
  transactions: number,
  change: ReviewChange,
  marked?: number,
) {
  const colleague = await syncedCore(tempDir(), closers, { transactions });
  const theirs = colleague.core.cacheOf(colleague.profile.id);
  const ids = (
    theirs.sqlite.prepare('SELECT id FROM bank_transactions ORDER BY id').pluck().all() as string[]
  ).slice(0, marked);
  applyReview(theirs, { by: 'ids', kind: 'transaction', ids }, change);
  const file = path.join(tempDir(), 'colleague.json');
  await exportReviewInSlices(theirs, file);
  return { file, ids };
}

/** Every `review.progress` event on `core`'s bus, in order, until `stop()`. */
function recordReviewProgress(core: Core) {
  const progress: Array<EventPayload<'review.progress'>> = [];
  const stop = core.events.subscribe((event, payload) => {
    if (event === 'review.progress') progress.push(payload as EventPayload<'review.progress'>);
  });
  return { progress, stop };
}

describe('review.apply', () => {
  it('changes a whole search result of transactions or expenses and reports its progress to the end', async () => {
    const setup = await connectedCore(tempDir(), { transactions: 3_000 });
    cleanups.push(setup.close);
    const handlers = createHandlers(setup.core);
    const profileId = setup.profile.id;
    expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({ ok: true });
    const count = async (filters: object) => {
      const answer = await dispatch(handlers, 'transactions.search', {
        profileId,
        search: { filters, pagination: { page: 1, pageSize: 1 }, withTotals: true },
      });
      if (!answer.ok) throw new Error('the search failed');
      return (answer.value as TransactionSearchResult).totals!.count;
    };
    const unmatched = await count({ matched: false });
    expect(unmatched).toBeGreaterThan(500);

    const { progress, stop } = recordReviewProgress(setup.core);
    const answer = await dispatch(handlers, 'review.apply', {
      profileId,
      target: { by: 'transactionSearch', filters: { matched: false } },
      change: { action: 'setReviewed' },
    });
    stop();
    expect(answer).toEqual({ ok: true, value: { changed: unmatched } });
    expect(progress.at(-1)).toEqual({
      profileId,
      done: unmatched,
      total: unmatched,
      ended: true,
      phase: 'change',
    });
    expect(progress.filter((event) => event.ended)).toHaveLength(1);
    expect(progress.every((event) => event.total === unmatched && event.done <= unmatched)).toBe(true);
    expect(await count({ matched: false, reviewed: false })).toBe(0);
    expect(await count({ reviewed: true })).toBe(unmatched);

    // A bad change is refused with the field it names, and changes nothing.
    const refused = await dispatch(handlers, 'review.apply', {
      profileId,
      target: { by: 'transactionSearch', filters: { matched: false } },
      change: { action: 'flag', reason: '' },
    });
    expect(refused.ok).toBe(false);
    expect(await count({ flagged: true })).toBe(0);

    // An expense search's result, listed like a transaction search's (in the totals thread).
    const expenses = async (filters: object) => {
      const found = await dispatch(handlers, 'expenses.search', { profileId, search: { filters } });
      if (!found.ok) throw new Error('the expense search failed');
      return (found.value as ExpenseSearchResult).total;
    };
    const withE = await expenses({ text: 'e', hasFile: true });
    expect(withE).toBeGreaterThan(10);
    expect(
      await dispatch(handlers, 'review.apply', {
        profileId,
        target: { by: 'expenseSearch', filters: { text: 'e', hasFile: true } },
        change: { action: 'flag', reason: 'Check the VAT' },
      }),
    ).toEqual({ ok: true, value: { changed: withE } });
    expect(await expenses({ flagged: true })).toBe(withE);
    expect(await expenses({ flagged: true, text: 'e', hasFile: true })).toBe(withE);
  });
});

describe('review.import and review.undoImport', () => {
  it('import a colleague’s file with progress, and undo only the last import, once', async () => {
    const { closers, core, profileId, handlers, pickFile } = await syncedWithFileDialog(900);
    const { file, ids } = await colleagueExport(closers, 900, { action: 'setReviewed' });
    const importFile = async () => {
      await pickFile('reviewImport', file);
      return dispatch(handlers, 'review.import', { profileId, file });
    };

    const { progress, stop } = recordReviewProgress(core);
    const first = await importFile();
    stop();
    expect(first).toMatchObject({ ok: true, value: { marks: ids.length, updated: ids.length } });
    const importId = (first as { value: { importId: string } }).value.importId;
    expect(importId).toMatch(/^[0-9a-f-]{36}$/);
    // The status bar's count of the slices, to the end.
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toEqual({
      profileId,
      done: ids.length,
      total: ids.length,
      ended: true,
      phase: 'change',
    });

    const undone = await dispatch(handlers, 'review.undoImport', { profileId, importId });
    expect(undone).toEqual({ ok: true, value: { restored: ids.length, changedSince: 0 } });
    const marks = () =>
      core.cacheOf(profileId).sqlite.prepare('SELECT count(*) FROM review_marks').pluck().get();
    expect(marks()).toBe(0);
    // Once only; and an import that changed nothing has nothing to undo.
    expect(await dispatch(handlers, 'review.undoImport', { profileId, importId })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', message: expect.stringContaining('can no longer be undone') },
    });
    const again = await importFile();
    const twice = await importFile();
    expect(twice).toMatchObject({ ok: true, value: { updated: 0, importId: null } });
    // The last import that changed something is the one to undo.
    const lastId = (again as { value: { importId: string } }).value.importId;
    expect(await dispatch(handlers, 'review.undoImport', { profileId, importId: lastId })).toMatchObject({
      ok: true,
      value: { restored: ids.length },
    });
  }, 120_000);

  it('check a large file in slices, answering other commands meanwhile', async () => {
    const { core, profileId, handlers, pickFile } = await syncedWithFileDialog(100);
    // A colleague's 6,000 marks: checked in six slices (CHECK_SLICE), then merged.
    const file = writeColleagueReview(path.join(tempDir(), 'colleague.json'), 6000, {
      note: true,
      tags: true,
    });
    await pickFile('reviewImport', file);

    // The app's other work: a setImmediate that runs again and again, and a command asked for
    // as the check starts.
    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: Array<EventPayload<'review.progress'> & { ticks: number }> = [];
    let asked: Promise<unknown> | null = null;
    let answeredAfter: number | null = null;
    const stop = core.events.subscribe((event, payload) => {
      if (event !== 'review.progress') return;
      seen.push({ ...(payload as EventPayload<'review.progress'>), ticks });
      asked ??= dispatch(handlers, 'profiles.list', {}).then((answer) => {
        answeredAfter = seen.length;
        return answer;
      });
    });
    const imported = await dispatch(handlers, 'review.import', { profileId, file });
    stop();
    ticking = false;

    expect(imported).toMatchObject({ ok: true, value: { marks: 6000, updated: 6000, notCached: 6000 } });
    expect(await asked).toMatchObject({ ok: true });
    // Checking first, said at once, then changing; ended once, at the end.
    const firstChange = seen.findIndex((event) => event.phase === 'change');
    expect(seen[0]).toMatchObject({ phase: 'check', total: 6000, ended: false });
    expect(firstChange).toBeGreaterThan(0);
    expect(seen.slice(firstChange).every((event) => event.phase === 'change')).toBe(true);
    expect(seen.filter((event) => event.ended)).toEqual([
      { profileId, done: 6000, total: 6000, ended: true, phase: 'change', ticks: expect.any(Number) },
    ]);
    // The command asked for as the check started was answered before the check was over, and
    // the event loop ran between the check's slices (five turns at least after its first).
    expect(answeredAfter).not.toBeNull();
    expect(answeredAfter!).toBeLessThanOrEqual(firstChange);
    expect(seen[firstChange]!.ticks - seen[0]!.ticks).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('merge while a full sync runs and an edit waits, and the sync still sends the edit', async () => {
    const { closers, core, profileId, handlers, pickFile } = await syncedWithFileDialog(3000);
    const { file } = await colleagueExport(closers, 3000, { action: 'addTags', tags: ['Q3 audit'] }, 2000);

    expect(
      await dispatch(handlers, 'suppliers.create', {
        profileId,
        input: { name: 'Kaffeerösterei Nord', code: 'S-7001' },
      }),
    ).toMatchObject({ ok: true });
    // The import is asked for once the sync has written its first page.
    let imported: Promise<unknown> | null = null;
    const stop = core.events.subscribe((event) => {
      if (event !== 'sync.progress' || imported) return;
      imported = pickFile('reviewImport', file).then(() =>
        dispatch(handlers, 'review.import', { profileId, file }),
      );
    });
    const synced = await dispatch(handlers, 'sync.start', { profileId, full: true });
    stop();
    expect(imported).not.toBeNull();
    expect(await imported).toMatchObject({ ok: true, value: { marks: 2000, updated: 2000, notCached: 0 } });
    expect(synced).toMatchObject({ ok: true, value: { outcome: 'succeeded' } });
    const cache = core.cacheOf(profileId);
    const tagged = cache.sqlite
      .prepare("SELECT count(*) FROM review_tags WHERE tag = 'Q3 audit'")
      .pluck()
      .get();
    expect(tagged).toBe(2000);
    expect(await dispatch(handlers, 'edits.list', { profileId })).toMatchObject({
      ok: true,
      value: { items: [] },
    });
  }, 180_000);
});

describe('a review change that fails part-way', () => {
  it('ends its progress all the same, so the status bar does not keep counting it', async () => {
    const { closers, core, profileId, handlers, pickFile } = await syncedWithFileDialog(3000);
    const cache = core.cacheOf(profileId);
    // The copy's busy wait shortened from 5 s: the slice refused is the point, not the wait.
    cache.sqlite.pragma('busy_timeout = 200');
    // Another Satchel (the command line, say) takes the copy's write lock once the first slice
    // is reported, and keeps it: the next slice is refused as busy.
    const other = new Database(core.profiles.cacheFile(profileId));
    closers.push(() => Promise.resolve(void other.close()));
    const progress: Array<EventPayload<'review.progress'>> = [];
    const stop = core.events.subscribe((event, payload) => {
      if (event !== 'review.progress') return;
      progress.push(payload as EventPayload<'review.progress'>);
      // Once something is changed: an import's check before changes nothing.
      if ((payload as EventPayload<'review.progress'>).phase === 'change' && !other.inTransaction)
        other.exec('BEGIN IMMEDIATE');
    });
    cleanups.push(() => Promise.resolve(void stop()));
    const release = () => {
      if (other.inTransaction) other.exec('ROLLBACK');
    };

    // Marking every transaction reviewed: the first slice is changed, the second refused.
    const marked = await dispatch(handlers, 'review.apply', {
      profileId,
      target: { by: 'transactionSearch', filters: {} },
      change: { action: 'setReviewed' },
    });
    release();
    expect(marked).toMatchObject({
      ok: false,
      error: {
        message: expect.stringContaining('another program (a satchel command, say) kept the cache busy'),
      },
    });
    const total = cache.sqlite
      .prepare('SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL')
      .pluck()
      .get() as number;
    const reviewed = cache.sqlite.prepare('SELECT count(*) FROM review_marks').pluck().get() as number;
    expect(reviewed).toBeGreaterThan(0);
    expect(reviewed).toBeLessThan(total);
    expect(progress.at(0)).toEqual({ profileId, done: reviewed, total, ended: false, phase: 'change' });
    expect(progress.at(-1)).toEqual({ profileId, done: reviewed, total, ended: true, phase: 'change' });
    expect(progress.filter((event) => event.ended)).toHaveLength(1);

    // An import of a colleague's 3,000 marks: the first slice merged, the second refused.
    progress.length = 0;
    const file = writeColleagueNotes(path.join(tempDir(), 'colleague.json'), 3000);
    await pickFile('reviewImport', file);
    const imported = await dispatch(handlers, 'review.import', { profileId, file });
    release();
    expect(imported.ok).toBe(false);
    const merged = cache.sqlite
      .prepare("SELECT count(*) FROM review_marks WHERE note = 'Seen by Anna'")
      .pluck()
      .get() as number;
    expect(merged).toBeGreaterThan(0);
    expect(merged).toBeLessThan(3000);
    // Checked first (nothing changed yet), then merged until the slice refused.
    expect(progress.at(0)).toMatchObject({ profileId, total: 3000, ended: false, phase: 'check' });
    expect(progress.filter((event) => event.phase === 'change').at(0)).toEqual({
      profileId,
      done: merged,
      total: 3000,
      ended: false,
      phase: 'change',
    });
    expect(progress.at(-1)).toEqual({ profileId, done: merged, total: 3000, ended: true, phase: 'change' });
    expect(progress.filter((event) => event.ended)).toHaveLength(1);
  }, 120_000);
});
