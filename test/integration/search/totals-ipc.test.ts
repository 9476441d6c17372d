import { afterEach, describe, expect, it } from 'vitest';
import type { ExpenseSearchResult, TransactionSearchResult } from '../../../src-shared/search';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import { needsAttention, type AttentionGroup } from '../../../src-main/review';
import { searchExpenses } from '../../../src-main/search/expenses';
import { transactionTotals } from '../../../src-main/search/transactions';
import { formatAmount } from '../../../src-shared/money';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// `transactions.search` through the real handler table, over a cache filled by a real sync of
// the sandbox: the totals come from the organisation's totals thread, and a page asked for
// after them is answered before them.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A core connected to a fresh sandbox of `transactions`, synced once, with its handler table. */
async function synced(transactions: number) {
  const setup = await connectedCore(tempDir(), { transactions });
  cleanups.push(setup.close);
  const handlers = createHandlers(setup.core);
  const profileId = setup.profile.id;
  expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({ ok: true });
  return { handlers, profileId, cache: setup.core.cacheOf(profileId) };
}

/** A first page of every transaction, without totals: answered in the app's thread at once. */
function plainPage(handlers: ReturnType<typeof createHandlers>, profileId: string, answered: string[]) {
  return dispatch(handlers, 'transactions.search', {
    profileId,
    search: { filters: {}, withTotals: false },
  }).then((result) => (answered.push('page'), result));
}

describe('transactions.search with totals', () => {
  it('answers the page asked for after the totals first, and the totals as the cache counts them', async () => {
    const { handlers, profileId, cache } = await synced(1_500);

    for (const filters of [{}, { reviewed: false }, { freeText: 'an', matched: false }]) {
      const answered: string[] = [];
      const totals = dispatch(handlers, 'transactions.search', {
        profileId,
        search: { filters, pagination: { page: 1, pageSize: 1 }, withTotals: true },
      }).then((result) => (answered.push('totals'), result));
      const page = dispatch(handlers, 'transactions.search', {
        profileId,
        search: { filters, pagination: { page: 2, pageSize: 50 }, withTotals: false },
      }).then((result) => (answered.push('page'), result));
      const [withTotals, second] = await Promise.all([totals, page]);
      // Counted in the app's thread, the totals came first: the handlers answered in order.
      expect(answered, JSON.stringify(filters)).toEqual(['page', 'totals']);

      if (!withTotals.ok || !second.ok) throw new Error('a search failed');
      const counted = withTotals.value as TransactionSearchResult;
      expect(counted.totals).toEqual(transactionTotals(cache, filters));
      expect(counted.totals?.count, JSON.stringify(filters)).toBeGreaterThan(50);
      expect(counted.rows).toHaveLength(1);
      expect((second.value as TransactionSearchResult).rows).toHaveLength(50);
      expect((second.value as TransactionSearchResult).totals).toBeUndefined();
    }
  });

  it('counts "needs attention" in the totals thread too, answering a page meanwhile', async () => {
    const { handlers, profileId, cache } = await synced(1_500);
    const unmatched = cache.sqlite
      .prepare('SELECT id FROM bank_transactions WHERE matched = 0 AND deleted_at IS NULL LIMIT 3')
      .pluck()
      .all() as string[];
    expect(
      await dispatch(handlers, 'review.apply', {
        profileId,
        target: { by: 'ids', kind: 'transaction', ids: unmatched },
        change: { action: 'flag', reason: 'Ask the client' },
      }),
    ).toMatchObject({ ok: true });

    const answered: string[] = [];
    const attention = dispatch(handlers, 'review.attention', { profileId }).then(
      (result) => (answered.push('attention'), result),
    );
    const page = plainPage(handlers, profileId, answered);
    const [groups] = await Promise.all([attention, page]);
    expect(answered).toEqual(['page', 'attention']);
    expect(groups).toEqual({ ok: true, value: { groups: needsAttention(cache) } });
    const counts = Object.fromEntries(
      (groups.ok ? (groups.value as { groups: AttentionGroup[] }).groups : []).map((g) => [g.group, g.count]),
    );
    expect(counts['flaggedTransactions']).toBe(3);
    expect(counts['expensesWithoutFile']).toBeGreaterThan(0);
    expect(counts['unmatchedTransactions']).toBeGreaterThan(0);
  });

  it('counts expenses.search in the totals thread, answering a page meanwhile', async () => {
    const { handlers, profileId, cache } = await synced(1_500);
    for (const filters of [{}, { text: 'e' }, { text: 'card', hasFile: true }, { reviewed: false }]) {
      const search = { filters, pagination: { page: 1, pageSize: 25 } };
      const answered: string[] = [];
      const expenses = dispatch(handlers, 'expenses.search', { profileId, search }).then(
        (result) => (answered.push('expenses'), result),
      );
      const page = plainPage(handlers, profileId, answered);
      const [found] = await Promise.all([expenses, page]);
      // Counted in the app's thread, the expenses came first: the handlers answered in order.
      expect(answered, JSON.stringify(filters)).toEqual(['page', 'expenses']);
      if (!found.ok) throw new Error('the expense search failed');
      const result = found.value as ExpenseSearchResult;
      expect(result).toEqual(searchExpenses(cache, search));
      expect(result.total, JSON.stringify(filters)).toBeGreaterThan(0);
    }
  });

  it('says which total is too large to add up exactly, and how to see one, never an internal error', async () => {
    const setup = await connectedCore(tempDir(), { transactions: 300 });
    cleanups.push(setup.close);
    const { sandbox } = setup;
    // Two transactions of one currency whose amounts the cache holds exactly (the largest safe
    // number of minor units) but whose sum it cannot.
    const records = Array.from({ length: sandbox.state.table.size() }, (_, row) =>
      sandbox.state.table.toRecord(row),
    );
    const currency = records[0]!.amount.currency;
    const huge = records.filter((record) => record.amount.currency === currency).slice(0, 2);
    const amount = formatAmount(Number.MAX_SAFE_INTEGER, currency);
    for (const record of huge)
      sandbox.control!.corruptRecord({
        resource: 'bankTransactions',
        id: record.id,
        patch: { amount: { amount, currency } },
      });
    const handlers = createHandlers(setup.core);
    const profileId = setup.profile.id;
    expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({ ok: true });

    const search = (filters: object) =>
      dispatch(handlers, 'transactions.search', { profileId, search: { filters, withTotals: true } });
    expect(await search({})).toEqual({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: `The ${currency} total of this search is beyond ${amount} ${currency}, more than Satchel can add up exactly. Narrow the search (dates, accounts, an amount range) to see its totals.`,
      },
    });
    // One of them alone, and the rest without them, are counted.
    expect(await search({ ids: [huge[0]!.id] })).toMatchObject({
      ok: true,
      value: { totals: { count: 1, sums: [{ currency, minor: Number.MAX_SAFE_INTEGER, count: 1 }] } },
    });
    expect(await search({ amount: { currency, max: '1000000' } })).toMatchObject({
      ok: true,
      value: { totals: { count: expect.any(Number) } },
    });
  });

  it('keeps amounts the server writes with zeros beyond the minor unit, exactly', async () => {
    const setup = await connectedCore(tempDir(), { transactions: 300 });
    cleanups.push(setup.close);
    const { sandbox } = setup;
    const record = sandbox.state.table.toRecord(Math.floor(sandbox.state.table.size() / 2));
    const { currency } = record.amount;
    // As a server keeping four-place decimals writes -12.50: the same amount, exactly.
    sandbox.control!.corruptRecord({
      resource: 'bankTransactions',
      id: record.id,
      patch: { amount: { amount: '-12.5000', currency } },
    });
    const handlers = createHandlers(setup.core);
    const profileId = setup.profile.id;
    // Stored, not reported as a record the app could not read.
    expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({
      ok: true,
      value: { outcome: 'succeeded', errors: [] },
    });

    const found = await dispatch(handlers, 'transactions.search', {
      profileId,
      search: { filters: { ids: [record.id], amount: { currency, min: '-12.50', max: '-12.500' } } },
    });
    expect(found).toMatchObject({
      ok: true,
      value: {
        rows: [{ id: record.id, amount: { minor: -1250, currency } }],
        totals: { count: 1, sums: [{ currency, minor: -1250, count: 1 }] },
      },
    });
  });

  it('stops the totals thread with the organisation it counts for', async () => {
    const { handlers, profileId } = await synced(300);
    const search = { filters: { matched: false }, withTotals: true };
    expect(await dispatch(handlers, 'transactions.search', { profileId, search })).toMatchObject({
      ok: true,
      value: { totals: { count: expect.any(Number) } },
    });
    // Removing it closes the thread's connection before the file is deleted; a search after
    // that names an organisation that is gone.
    expect(await dispatch(handlers, 'profiles.remove', { id: profileId })).toMatchObject({ ok: true });
    expect(await dispatch(handlers, 'transactions.search', { profileId, search })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });
});
