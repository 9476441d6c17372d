import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReviewChange, TransactionFilters } from '../../../src-shared/search';
import {
  afterReviewChanges,
  applyReview,
  applyReviewInSlices,
  exportReviewInSlices,
  importReview,
  reviewStates,
} from '../../../src-main/review';
import { changeStatements } from '../../../src-main/review/changes';
import { searchTransactions } from '../../../src-main/search';
import type { CacheDb } from '../../../src-main/store';
import { demoState, loadedCache, recordsOf, seedExpenses, tickingClock, useCaches } from '../search/fixtures';
import { upsertTransactions } from '../search/load';

// Review changes of a whole search result as the app makes them (review/slices.ts): a slice
// at a time on a real cache file, queued per cache, against the one-statement change.
const caches = useCaches();
const records = recordsOf(demoState(1500, 11));

const loaded = (): CacheDb => loadedCache(caches, records);

/** Every mark and tag of the cache, in a fixed order. */
function everyMark(cache: CacheDb) {
  return {
    marks: cache.sqlite.prepare('SELECT * FROM review_marks ORDER BY kind, record_id').all(),
    tags: cache.sqlite.prepare('SELECT * FROM review_tags ORDER BY kind, record_id, tag').all(),
  };
}

const unmatched: TransactionFilters = { matched: false };
const reviewedCount = (cache: CacheDb) =>
  searchTransactions(cache, { filters: { reviewed: true } }).totals!.count;

describe('a whole search result, a slice at a time', () => {
  it('ends exactly as the one-statement change does, change after change, with progress', async () => {
    const whole = loaded();
    const sliced = loaded();
    const [wholeClock, slicedClock] = [tickingClock(), tickingClock()];
    const steps: Array<{ filters: TransactionFilters; change: ReviewChange }> = [
      { filters: unmatched, change: { action: 'setReviewed' } },
      { filters: { freeText: 'de' }, change: { action: 'addTags', tags: ['Q3 audit', 'travel'] } },
      { filters: { tag: 'travel', matched: false }, change: { action: 'flag', reason: 'Check' } },
      { filters: { flagged: true }, change: { action: 'setNote', note: 'Ask Anna.' } },
      { filters: { tag: 'q3 AUDIT' }, change: { action: 'removeTags', tags: ['TRAVEL'] } },
      { filters: { freeText: 'de', matched: false }, change: { action: 'clearReviewed' } },
      { filters: { flagged: true }, change: { action: 'unflag' } },
    ];
    for (const { filters, change } of steps) {
      const target = { by: 'transactionSearch' as const, filters };
      const expected = applyReview(whole, target, change, { now: wholeClock });
      const progress: Array<[number, number]> = [];
      const result = await applyReviewInSlices(sliced, target, change, {
        now: slicedClock,
        firstSlice: 50,
        sliceMs: 0, // the smallest slices: 100 records
        onProgress: (done, total) => progress.push([done, total]),
      });
      const label = `${change.action} ${JSON.stringify(filters)}`;
      expect(result, label).toEqual(expected);
      expect(expected.changed, label).toBeGreaterThan(0);
      expect(everyMark(sliced), label).toEqual(everyMark(whole));
      const total = progress[0]![1];
      expect(progress.at(-1), label).toEqual([total, total]);
      expect(progress.length, label).toBe(total <= 50 ? 1 : 1 + Math.ceil((total - 50) / 100));
      for (let i = 1; i < progress.length; i += 1)
        expect(progress[i]![0], label).toBeGreaterThan(progress[i - 1]![0]);
    }
  });

  it('lets the app run between slices, each slice committed on its own', async () => {
    const cache = loaded();
    const total = searchTransactions(cache, { filters: unmatched }).totals!.count;
    expect(total).toBeGreaterThan(300);
    const seenMeanwhile: number[] = [];
    const watch = () => {
      if (finished) return;
      seenMeanwhile.push(reviewedCount(cache));
      setImmediate(watch);
    };
    let finished = false;
    setImmediate(watch);
    const result = await applyReviewInSlices(
      cache,
      { by: 'transactionSearch', filters: unmatched },
      { action: 'setReviewed' },
      { firstSlice: 100, sliceMs: 0 },
    );
    finished = true;
    expect(result.changed).toBe(total);
    // Other work ran while the change went on, and saw it part-way.
    expect(seenMeanwhile.some((count) => count > 0 && count < total)).toBe(true);
    expect(reviewedCount(cache)).toBe(total);
  });

  it('changes the result as it was when the change started', async () => {
    const cache = loaded();
    const matched = records.find((record) => record.matched)!;
    const before = searchTransactions(cache, { filters: unmatched }).totals!.count;
    let changedMeanwhile = false;
    const result = await applyReviewInSlices(
      cache,
      { by: 'transactionSearch', filters: unmatched },
      { action: 'setReviewed' },
      {
        firstSlice: 100,
        sliceMs: 0,
        onProgress: () => {
          // A sync between slices makes one more transaction unmatched.
          if (changedMeanwhile) return;
          changedMeanwhile = true;
          upsertTransactions(cache, [{ ...matched, matched: false }]);
        },
      },
    );
    expect(result.changed).toBe(before);
    expect(reviewStates(cache, 'transaction', [matched.id]).get(matched.id)!.reviewedAt).toBeNull();
    expect(searchTransactions(cache, { filters: { ...unmatched, reviewed: false } }).totals!.count).toBe(1);
  });

  it('applies changes of one cache in the order they were asked for', async () => {
    const cache = loaded();
    const one = records.find((record) => !record.matched)!.id;
    const bulk = applyReviewInSlices(
      cache,
      { by: 'transactionSearch', filters: unmatched },
      { action: 'setReviewed' },
      { firstSlice: 100, sliceMs: 0 },
    );
    // Asked for while the bulk change runs: it comes after, so it is what stays.
    const single = applyReviewInSlices(
      cache,
      { by: 'ids', kind: 'transaction', ids: [one] },
      { action: 'clearReviewed' },
    );
    // A bad request fails at once and holds up nothing.
    await expect(
      applyReviewInSlices(
        cache,
        { by: 'ids', kind: 'transaction', ids: [one] },
        { action: 'flag', reason: ' ' },
      ),
    ).rejects.toThrow(/Say why/);
    const [bulkResult, singleResult] = await Promise.all([bulk, single]);
    expect(singleResult.changed).toBe(1);
    expect(reviewStates(cache, 'transaction', [one]).get(one)!.reviewedAt).toBeNull();
    expect(reviewedCount(cache)).toBe(bulkResult.changed - 1);
  });

  it("imports a colleague's review file after a bulk change asked for before it", async () => {
    const mine = loaded();
    const colleague = loaded();
    const record = records.filter((r) => !r.matched).at(-1)!.id;
    // The colleague's note is an hour newer than the bulk change below: it must win.
    applyReview(
      colleague,
      { by: 'ids', kind: 'transaction', ids: [record] },
      { action: 'setNote', note: 'Receipt is in the shared folder.' },
      { now: () => new Date('2026-05-01T09:00:00Z') },
    );
    const file = path.join(caches.tempDir(), 'review.json');
    await exportReviewInSlices(colleague, file);
    const bulk = applyReviewInSlices(
      mine,
      { by: 'transactionSearch', filters: unmatched },
      { action: 'setNote', note: 'Checked with the bank statement.' },
      { now: () => new Date('2026-05-01T08:00:00Z'), firstSlice: 100, sliceMs: 0 },
    );
    const imported = afterReviewChanges(mine, () => importReview(mine, file));
    await Promise.all([bulk, imported]);
    expect(reviewStates(mine, 'transaction', [record]).get(record)!.note).toBe(
      'Receipt is in the shared folder.',
    );
    // Every other record of the result has the bulk change's note.
    const notes = mine.sqlite
      .prepare(`SELECT note, count(*) AS n FROM review_marks WHERE kind = 'transaction' GROUP BY note`)
      .all();
    expect(notes).toEqual([
      { note: 'Checked with the bank statement.', n: (await bulk).changed - 1 },
      { note: 'Receipt is in the shared folder.', n: 1 },
    ]);
  });

  it('over expenses, and over an empty result', async () => {
    const cache = caches.open(caches.file());
    seedExpenses(cache);
    const progress: Array<[number, number]> = [];
    const flagged = await applyReviewInSlices(
      cache,
      { by: 'expenseSearch', filters: { hasFile: false } },
      { action: 'flag', reason: 'No receipt' },
      { onProgress: (done, total) => progress.push([done, total]) },
    );
    expect(flagged.changed).toBe(2);
    expect(progress).toEqual([[2, 2]]);
    const none = await applyReviewInSlices(
      cache,
      { by: 'transactionSearch', filters: { freeText: 'nothing like this' } },
      { action: 'setReviewed' },
      { onProgress: (done, total) => progress.push([done, total]) },
    );
    expect(none.changed).toBe(0);
    expect(progress.at(-1)).toEqual([0, 0]);
  });

  it('looks each slice record up by its id in the review tables, never scans them', () => {
    const cache = loaded();
    const slice = {
      kind: 'transaction' as const,
      sql: 'SELECT id FROM bank_transactions WHERE rowid IN (SELECT value FROM json_each(@slice_rows))',
      params: {},
    };
    const changes: ReviewChange[] = [
      { action: 'setReviewed' },
      { action: 'clearReviewed' },
      { action: 'flag', reason: 'r' },
      { action: 'unflag' },
      { action: 'setNote', note: 'n' },
      { action: 'setNote', note: null },
      { action: 'addTags', tags: ['a'] },
      { action: 'removeTags', tags: ['a'] },
    ];
    const params = {
      kind: 'transaction',
      now: 'x',
      reason: 'r',
      note: 'n',
      tags: '["a"]',
      slice_rows: '[1]',
    };
    for (const change of changes)
      for (const statement of changeStatements(slice, change)) {
        const plan = (
          cache.sqlite.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(params) as Array<{ detail: string }>
        ).map((row) => row.detail);
        const label = `${JSON.stringify(change)}: ${plan.join(' | ')}`;
        expect(
          plan.some((detail) => /SCAN (review_marks|review_tags)\b/.test(detail)),
          label,
        ).toBe(false);
        // Removing a tag once walked every record carrying it, for each slice: the tag alone
        // must never choose the rows.
        expect(
          plan.some((detail) => /review_tags_tag_idx \(kind=\? AND tag=\?\)$/.test(detail)),
          label,
        ).toBe(false);
      }
  });
});
