import { describe, expect, it } from 'vitest';
import type { BankTransaction } from '../../../src-shared/api';
import { commands } from '../../../src-shared/ipc';
import { applyReview, createReviewService, needsAttention, reviewStates } from '../../../src-main/review';
import { searchTransactions } from '../../../src-main/search';
import { rebuildTransactionSearch, type CacheDb } from '../../../src-main/store';
import { demoState, loadedCache, recordsOf, seedExpenses, tickingClock, useCaches } from '../search/fixtures';
import { upsertTransactions } from '../search/load';

const caches = useCaches();
const records = recordsOf(demoState(1500, 11));

const loaded = (): CacheDb => loadedCache(caches, records);

const byIds = (ids: string[]) => ({ by: 'ids' as const, kind: 'transaction' as const, ids });
const state = (cache: CacheDb, id: string) => reviewStates(cache, 'transaction', [id]).get(id)!;

describe('marks on one record or a list', () => {
  it('reviewed keeps its first time; clearing removes it', () => {
    const cache = loaded();
    const now = tickingClock();
    const [a, b] = [records[1]!.id, records[2]!.id];
    expect(applyReview(cache, byIds([a, b]), { action: 'setReviewed' }, { now }).changed).toBe(2);
    const first = state(cache, a).reviewedAt;
    expect(first).toBe('2026-05-01T08:00:01.000Z');
    expect(applyReview(cache, byIds([a]), { action: 'setReviewed' }, { now }).changed).toBe(0);
    expect(state(cache, a).reviewedAt).toBe(first);
    expect(applyReview(cache, byIds([a]), { action: 'clearReviewed' }, { now }).changed).toBe(1);
    expect(state(cache, a).reviewedAt).toBeNull();
    expect(state(cache, b).reviewedAt).toBe(first);
  });

  it('flag with a reason, change the reason, unflag', () => {
    const cache = loaded();
    const id = records[3]!.id;
    applyReview(cache, byIds([id]), { action: 'flag', reason: 'Private?' });
    expect(state(cache, id)).toMatchObject({ flagged: true, flagReason: 'Private?' });
    expect(applyReview(cache, byIds([id]), { action: 'flag', reason: 'Private?' }).changed).toBe(0);
    expect(applyReview(cache, byIds([id]), { action: 'flag', reason: 'Duplicate' }).changed).toBe(1);
    expect(state(cache, id).flagReason).toBe('Duplicate');
    applyReview(cache, byIds([id]), { action: 'unflag' });
    expect(state(cache, id)).toMatchObject({ flagged: false, flagReason: null });
    expect(() => applyReview(cache, byIds([id]), { action: 'flag', reason: '  ' })).toThrow(/Say why/);
  });

  it('notes: set, replace, and an empty note removes it', () => {
    const cache = loaded();
    const id = records[4]!.id;
    applyReview(cache, byIds([id]), { action: 'setNote', note: 'Ask Anna about this.' });
    expect(state(cache, id).note).toBe('Ask Anna about this.');
    applyReview(cache, byIds([id]), { action: 'setNote', note: '   ' });
    expect(state(cache, id).note).toBeNull();
  });

  it('tags are added and removed regardless of case, without duplicates', () => {
    const cache = loaded();
    const [a, b] = [records[5]!.id, records[6]!.id];
    expect(
      applyReview(cache, byIds([a, b]), { action: 'addTags', tags: ['Q3 audit', 'travel'] }).changed,
    ).toBe(2);
    expect(applyReview(cache, byIds([a]), { action: 'addTags', tags: ['q3 AUDIT'] }).changed).toBe(0);
    expect(state(cache, a).tags).toEqual(['Q3 audit', 'travel']);
    expect(applyReview(cache, byIds([a, b]), { action: 'removeTags', tags: ['TRAVEL'] }).changed).toBe(2);
    expect(state(cache, a).tags).toEqual(['Q3 audit']);
    expect(state(cache, b).tags).toEqual(['Q3 audit']);
  });

  it('ids the cache does not hold change nothing', () => {
    const cache = loaded();
    expect(applyReview(cache, byIds(['nope']), { action: 'setReviewed' }).changed).toBe(0);
    expect(cache.sqlite.prepare('SELECT count(*) FROM review_marks').pluck().get()).toBe(0);
  });
});

describe('review state survives sync', () => {
  it('a re-upsert of the same transactions (changed matched flags, new text) keeps every mark', () => {
    const cache = loaded();
    const marked = records.slice(0, 50).map((r) => r.id);
    applyReview(cache, byIds(marked), { action: 'setReviewed' });
    applyReview(cache, byIds(marked.slice(0, 10)), { action: 'flag', reason: 'Check' });
    applyReview(cache, byIds(marked.slice(0, 5)), { action: 'addTags', tags: ['kept'] });
    applyReview(cache, byIds(marked.slice(0, 3)), { action: 'setNote', note: 'kept too' });
    const before = reviewStates(cache, 'transaction', marked);
    // What a trailing-window re-read does: every row rewritten, some flags flipped, text changed.
    const changed: BankTransaction[] = records.map((r, i) =>
      i % 2 ? { ...r, matched: !r.matched, counterparty: `${r.counterparty} (updated)` } : r,
    );
    upsertTransactions(cache, changed);
    upsertTransactions(cache, records.slice(0, 20), new Set(records.slice(0, 20).map((r) => r.id))); // marked deleted
    upsertTransactions(cache, records.slice(0, 20)); // and back
    rebuildTransactionSearch(cache.sqlite); // the repair
    expect(reviewStates(cache, 'transaction', marked)).toEqual(before);
    const result = searchTransactions(cache, { filters: { reviewed: true, tag: 'kept' } });
    expect(result.totals?.count).toBe(5);
  });
});

describe('bulk marking of a whole search result', () => {
  it('marks exactly what the search finds, in SQL, and only that', () => {
    const cache = loaded();
    const filters = { matched: false, freeText: 'de' };
    const expected = searchTransactions(cache, { filters, pagination: { page: 1, pageSize: 500 } });
    const count = expected.totals!.count;
    expect(count).toBeGreaterThan(20);
    const result = applyReview(cache, { by: 'transactionSearch', filters }, { action: 'setReviewed' });
    expect(result.changed).toBe(count);
    expect(searchTransactions(cache, { filters: { reviewed: true } }).totals?.count).toBe(count);
    expect(searchTransactions(cache, { filters: { ...filters, reviewed: false } }).totals?.count).toBe(0);
    // A search on the mark being changed: tag every reviewed, unflagged row, then flag them.
    applyReview(
      cache,
      { by: 'transactionSearch', filters: { reviewed: true } },
      { action: 'addTags', tags: ['batch'] },
    );
    const flagged = applyReview(
      cache,
      { by: 'transactionSearch', filters: { tag: 'batch', flagged: false } },
      { action: 'flag', reason: 'Batch check' },
    );
    expect(flagged.changed).toBe(count);
    expect(searchTransactions(cache, { filters: { flagged: true } }).totals?.count).toBe(count);
  });

  it('over expenses by expense filters', () => {
    const cache = caches.open(caches.file());
    seedExpenses(cache);
    const result = applyReview(
      cache,
      { by: 'expenseSearch', filters: { hasFile: false } },
      { action: 'flag', reason: 'No receipt' },
    );
    expect(result.changed).toBe(2);
  });
});

describe('needs attention', () => {
  it('counts unmatched unreviewed transactions, expenses without a file, and flagged items', () => {
    const cache = loaded();
    seedExpenses(cache);
    const service = createReviewService(cache);
    const unmatched = records.filter((r) => !r.matched);
    const counts = () => Object.fromEntries(service.needsAttention().map((g) => [g.group, g.count]));
    expect(counts()).toEqual({
      unmatchedTransactions: unmatched.length,
      expensesWithoutFile: 2,
      flaggedTransactions: 0,
      flaggedExpenses: 0,
    });
    service.apply(byIds(unmatched.slice(0, 7).map((r) => r.id)), { action: 'setReviewed' });
    service.apply(byIds([records[0]!.id]), { action: 'flag', reason: 'Odd' });
    service.apply({ by: 'ids', kind: 'expense', ids: ['exp-1'] }, { action: 'flag', reason: 'Odd' });
    service.apply({ by: 'ids', kind: 'expense', ids: ['exp-2'] }, { action: 'setReviewed' });
    expect(counts()).toEqual({
      unmatchedTransactions: unmatched.length - 7,
      expensesWithoutFile: 1,
      flaggedTransactions: 1,
      flaggedExpenses: 1,
    });
    // Each group's search lists exactly what it counts.
    const group = needsAttention(cache).find((g) => g.group === 'unmatchedTransactions')!;
    expect(searchTransactions(cache, { filters: group.search as never }).totals?.count).toBe(group.count);
    // The IPC contract describes every group exactly: its name and a search the screens can run.
    const answer = commands['review.attention'].output.parse({ groups: needsAttention(cache) });
    expect(answer.groups.map((g) => g.group)).toEqual([
      'unmatchedTransactions',
      'expensesWithoutFile',
      'flaggedTransactions',
      'flaggedExpenses',
    ]);
    expect(() =>
      commands['review.attention'].output.parse({
        groups: [{ group: 'unmatchedTransactions', count: 1, search: { hasFile: false } }],
      }),
    ).toThrow();
  });
});
