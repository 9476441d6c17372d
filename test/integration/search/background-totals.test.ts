import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExpenseFilters, TransactionFilters } from '../../../src-shared/search';
import { answerAsk, type ThreadAsk } from '../../../src-main/search/thread-asks';
import { AppError } from '../../../src-shared/errors';
import { applyReview } from '../../../src-main/review';
import { createBackgroundTotals, type BackgroundTotals } from '../../../src-main/search/background-totals';
import { targetRows } from '../../../src-main/review/targets';
import { expenseCount } from '../../../src-main/search/expenses';
import { transactionTotals } from '../../../src-main/search/transactions';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../../src-main/store';
import { startSandbox } from '../../../src-sandbox';
import { syncFromSandbox } from '../../helpers/sandbox-sync';
import { demoState, loadedCache, recordsOf, useCaches, wireTransaction } from './fixtures';
import { upsertTransactions } from './load';

// The totals thread (src-main/search/background-totals.ts) against real cache files: its own
// read-only connection in a worker thread, run from the TypeScript source as the CLI and the
// tests run it. The built script is run by test/e2e/bundle.test.ts.

const caches = useCaches();
const threads: BackgroundTotals[] = [];
afterEach(async () => {
  for (const thread of threads.splice(0)) await thread.close();
});

/** A totals thread that records its fallbacks: a test expecting none has every answer from the thread. */
function threadOf(cache: CacheDb, options: { idleMs?: number; script?: string } = {}) {
  const fallbacks: ThreadAsk[] = [];
  const thread = createBackgroundTotals({
    file: cache.file,
    fallback: (ask) => {
      fallbacks.push(ask);
      return answerAsk(cache.sqlite, ask);
    },
    ...options,
  });
  threads.push(thread);
  return { thread, fallbacks };
}

describe('totals counted in their own thread', () => {
  const records = recordsOf(demoState(3_000));
  let cache: CacheDb;
  let accounts: string[];

  beforeAll(() => {
    cache = openCache(path.join(mkdtempSync(path.join(tmpdir(), 'satchel-totals-')), 'org.sqlite'), {
      migrationsDir: defaultMigrationsDir(),
    });
    upsertTransactions(cache, records);
    accounts = [...new Set(records.map((r) => r.bankAccountId))].sort();
    const ids = records.slice(0, 400).map((r) => r.id);
    applyReview(cache, { by: 'ids', kind: 'transaction', ids }, { action: 'setReviewed' });
    applyReview(
      cache,
      { by: 'ids', kind: 'transaction', ids: ids.slice(0, 30) },
      { action: 'flag', reason: 'No receipt' },
    );
  });
  afterAll(() => {
    cache.close();
    rmSync(path.dirname(cache.file), { recursive: true, force: true });
  });

  it('equal the app thread’s totals for every kind of filter', async () => {
    const { thread, fallbacks } = threadOf(cache);
    const [first = '', second = ''] = accounts;
    const cases: TransactionFilters[] = [
      {},
      { freeText: 'lufthansa' },
      { freeText: 'ub' },
      { freeText: 'é' },
      { freeText: '"OR" *' },
      { reviewed: false },
      { reviewed: true, accountIds: [first] },
      { flagged: true },
      { accountIds: [first.toUpperCase(), second], matched: false },
      { accountIds: ['00000000-0000-4000-8000-00000000dead'] },
      { accountIds: [], transactionTypes: [] },
      { bookingDateFrom: '2025-01-01', bookingDateTo: '2025-12-31', currencies: ['EUR'] },
      { amount: { currency: 'EUR', min: '100', max: '500', ignoreSign: true } },
      { ids: [records[5]!.id, records[6]!.id.toUpperCase()], includeDeleted: true },
    ];
    let nonEmpty = 0;
    for (const filters of cases) {
      const expected = transactionTotals(cache, filters);
      expect(await thread.totals(filters), JSON.stringify(filters)).toEqual(expected);
      if (expected.count > 0) nonEmpty += 1;
    }
    expect(nonEmpty).toBe(cases.length - 3); // the literal "OR" *, the unknown account, empty lists
    expect(fallbacks).toEqual([]);
    expect(thread.running).toBe(true);
  });

  it('count one at a time, the most recently asked first', async () => {
    const { thread } = threadOf(cache);
    const cases: TransactionFilters[] = [{ freeText: 'bahn' }, { reviewed: false }, {}, { matched: true }];
    const order: number[] = [];
    const answers = await Promise.all(
      cases.map((filters, index) => thread.totals(filters).then((totals) => (order.push(index), totals))),
    );
    // The first went to the idle thread at once; of those that waited for it, the newest first.
    expect(order).toEqual([0, 3, 2, 1]);
    expect(answers).toEqual(cases.map((filters) => transactionTotals(cache, filters)));
  });

  it('follow what the app writes on its own connection', async () => {
    const { thread } = threadOf(cache);
    const unreviewed = (await thread.totals({ reviewed: false })).count;
    const text = (await thread.totals({ freeText: 'lufthansa' })).count;

    const next = records.slice(400, 450).map((r) => r.id);
    applyReview(cache, { by: 'ids', kind: 'transaction', ids: next }, { action: 'setReviewed' });
    const extra = wireTransaction({
      id: 'bbbbbbbb-0000-4000-8000-000000000077',
      counterparty: 'Lufthansa Cargo',
    });
    upsertTransactions(cache, [extra]);

    expect((await thread.totals({ reviewed: false })).count).toBe(unreviewed - 50 + 1);
    expect((await thread.totals({ freeText: 'lufthansa' })).count).toBe(text + 1);
    cache.sqlite.prepare('DELETE FROM bank_transactions WHERE id = ?').run(extra.id);
    expect((await thread.totals({ freeText: 'lufthansa' })).count).toBe(text);
  });
});

describe('expense counts in the totals thread', () => {
  type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
  let sandbox: Sandbox;
  let cache: CacheDb;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 5, transactions: 400, readLimit: 100_000 });
    cache = openCache(path.join(mkdtempSync(path.join(tmpdir(), 'satchel-totals-')), 'org.sqlite'), {
      migrationsDir: defaultMigrationsDir(),
    });
    await syncFromSandbox(cache, sandbox);
    const ids = cache.sqlite
      .prepare('SELECT id FROM expenses ORDER BY id LIMIT 40')
      .pluck()
      .all() as string[];
    applyReview(cache, { by: 'ids', kind: 'expense', ids }, { action: 'setReviewed' });
    applyReview(
      cache,
      { by: 'ids', kind: 'expense', ids: ids.slice(0, 7) },
      { action: 'flag', reason: 'VAT?' },
    );
  });
  afterAll(async () => {
    cache.close();
    await sandbox.stop();
    rmSync(path.dirname(cache.file), { recursive: true, force: true });
  });

  it('equal the app thread’s count for every kind of filter', async () => {
    const { thread, fallbacks } = threadOf(cache);
    const booked = cache.sqlite
      .prepare(
        'SELECT dimension_id AS dimensionId, dimension_item_id AS itemId FROM expense_line_dimensions LIMIT 1',
      )
      .get() as { dimensionId: string; itemId: string };
    const account = cache.sqlite
      .prepare('SELECT expense_account_id FROM expense_lines WHERE expense_account_id IS NOT NULL LIMIT 1')
      .pluck()
      .get() as string;
    const someIds = cache.sqlite.prepare('SELECT id FROM expenses LIMIT 3').pluck().all() as string[];
    const cases: ExpenseFilters[] = [
      {},
      { text: 'invoice' },
      { text: 'e' },
      { text: 'zq' },
      { text: 'ü' },
      { text: 'büro' },
      { hasFile: false, reviewed: false },
      { hasFile: true },
      { flagged: true },
      { reviewed: true, text: 'card' },
      { bookedOn: booked },
      { expenseAccountId: account },
      { includeDeleted: true },
      { ids: someIds },
    ];
    let nonEmpty = 0;
    for (const filters of cases) {
      const expected = expenseCount(cache, filters);
      expect(await thread.expenseCount(filters), JSON.stringify(filters)).toBe(expected);
      if (expected > 0) nonEmpty += 1;
    }
    expect(nonEmpty).toBe(cases.length - 1); // "zq" is found nowhere
    expect(fallbacks).toEqual([]);
  });

  it('follow what the app writes, and answer between transaction totals', async () => {
    const { thread, fallbacks } = threadOf(cache);
    const unreviewed = await thread.expenseCount({ reviewed: false });
    const next = cache.sqlite
      .prepare('SELECT id FROM expenses ORDER BY id LIMIT 10 OFFSET 40')
      .pluck()
      .all() as string[];
    applyReview(cache, { by: 'ids', kind: 'expense', ids: next }, { action: 'setReviewed' });
    const [totals, count] = await Promise.all([thread.totals({}), thread.expenseCount({ reviewed: false })]);
    expect(count).toBe(unreviewed - 10);
    expect(totals).toEqual(transactionTotals(cache, {}));
    expect(fallbacks).toEqual([]);
  });

  it('list the rows of a bulk review change as the app thread does, in the records’ id order', async () => {
    const { thread, fallbacks } = threadOf(cache);
    const targets = [
      { by: 'transactionSearch', filters: { matched: false } },
      { by: 'transactionSearch', filters: { freeText: 'e', reviewed: false } },
      { by: 'expenseSearch', filters: { hasFile: true } },
      { by: 'expenseSearch', filters: { text: 'zq' } },
    ] as const;
    for (const target of targets) {
      const rows = await thread.reviewRows(target);
      expect(rows).toBeInstanceOf(Float64Array);
      expect(Array.from(rows), JSON.stringify(target)).toEqual(targetRows(cache.sqlite, target));
    }
    const table = (kind: string) => (kind === 'transactionSearch' ? 'bank_transactions' : 'expenses');
    const ids = (target: (typeof targets)[number], rows: Float64Array) =>
      Array.from(rows, (rowid) =>
        cache.sqlite
          .prepare(`SELECT id FROM ${table(target.by)} WHERE rowid = ?`)
          .pluck()
          .get(rowid),
      ) as string[];
    const unmatched = await thread.reviewRows(targets[0]);
    expect(unmatched.length).toBeGreaterThan(10);
    const listed = ids(targets[0], unmatched);
    expect(listed).toEqual([...listed].sort());
    expect((await thread.reviewRows(targets[3])).length).toBe(0);
    expect(fallbacks).toEqual([]);
  });

  it('counts in the caller’s thread when the thread cannot start', async () => {
    const { thread, fallbacks } = threadOf(cache, { script: '/nonexistent/totals-thread.js' });
    expect(await thread.expenseCount({ hasFile: false })).toBe(expenseCount(cache, { hasFile: false }));
    expect(fallbacks).toEqual([{ kind: 'expenses', filters: { hasFile: false } }]);
  });
});

describe('the totals thread, its failures and its life', () => {
  it('reports a sum too large to show as the app thread does, and keeps answering', async () => {
    const cache = caches.open(caches.file());
    const huge = (id: string) =>
      wireTransaction({ id, amount: { amount: '90000000000000.00', currency: 'EUR' } });
    upsertTransactions(cache, [
      huge('cccccccc-0000-4000-8000-000000000001'),
      huge('cccccccc-0000-4000-8000-000000000002'),
    ]);
    const tooLarge = {
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^The EUR total of this search is beyond 90071992547409\.91 EUR/),
    };
    expect(() => transactionTotals(cache, {})).toThrow(expect.objectContaining(tooLarge));
    const { thread, fallbacks } = threadOf(cache);
    // The same error, as an AppError, from the thread.
    await expect(thread.totals({})).rejects.toBeInstanceOf(AppError);
    await expect(thread.totals({})).rejects.toMatchObject(tooLarge);
    expect((await thread.totals({ ids: ['cccccccc-0000-4000-8000-000000000001'] })).count).toBe(1);
    expect(fallbacks).toEqual([]);
  });

  it('counts in the caller’s thread when the thread cannot start', async () => {
    const cache = loadedCache(caches, recordsOf(demoState(200)));
    const { thread, fallbacks } = threadOf(cache, { script: '/nonexistent/totals-thread.js' });
    expect(await thread.totals({ matched: false })).toEqual(transactionTotals(cache, { matched: false }));
    // Known unavailable from then on: counted here at once, no thread tried again.
    expect(await thread.totals({})).toEqual(transactionTotals(cache, {}));
    expect(fallbacks).toEqual([
      { kind: 'transactions', filters: { matched: false } },
      { kind: 'transactions', filters: {} },
    ]);
    expect(thread.running).toBe(false);
  });

  it('stops when idle and starts again for the next request', async () => {
    const cache = loadedCache(caches, recordsOf(demoState(200)));
    const { thread, fallbacks } = threadOf(cache, { idleMs: 50 });
    const totals = await thread.totals({});
    expect(thread.running).toBe(true);
    await expect.poll(() => thread.running, { timeout: 5_000 }).toBe(false);
    expect(await thread.totals({})).toEqual(totals);
    expect(fallbacks).toEqual([]);
  });

  it('close: a request not yet answered fails as cancelled; a later one starts the thread again', async () => {
    const cache = loadedCache(caches, recordsOf(demoState(200)));
    const { thread, fallbacks } = threadOf(cache);
    const unanswered = thread.totals({ reviewed: false }).catch((caught: unknown) => caught);
    await thread.close();
    const error: unknown = await unanswered;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('CANCELLED');
    expect(thread.running).toBe(false);
    expect(await thread.totals({ reviewed: false })).toEqual(transactionTotals(cache, { reviewed: false }));
    expect(fallbacks).toEqual([]);
  });
});
