import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BankTransaction } from '../../../src-shared/api';
import type { TransactionFilters } from '../../../src-shared/search';
import { searchTransactions } from '../../../src-main/search';
import { observePagePlans, type PagePlan } from '../../../src-main/search/transaction-page';
import { defaultMigrationsDir, openCache, refreshGramBlocks, type CacheDb } from '../../../src-main/store';
import { createRandom, type Random } from '../../../src-sandbox/data/random';
import type { State } from '../../../src-sandbox/data/state';
import { searchTransactions as sandboxSearch, type Filters } from '../../../src-sandbox/search/v0';
import { demoState } from './fixtures';
import { upsertTransactions } from './load';

/**
 * The differential test: the sandbox's v0 search (src-sandbox/search/v0.ts, the reference
 * implementation of spec 4.2) and the local search over a cache holding the same data must
 * return the same ids in the same order, and the same total, for every combination of
 * filters, sort and page. Several hundred random combinations from a fixed seed, biased to
 * the edges: text taken from real values in any case, 1 and 2 characters, FTS syntax,
 * padding, dates on existing booking days, unknown ids and accounts, pages at the end and
 * deep pages, deleted rows; one and two characters common, rare and found nowhere, over gram
 * blocks (and their row lists) mostly fresh and partly stale.
 */

const ROWS = 25_000;
const COMBINATIONS = 400;

let state: State;
let cache: CacheDb;
let dir: string;
let records: BankTransaction[];
const caches: CacheDb[] = [];

beforeAll(() => {
  state = demoState(ROWS, 2026);
  const table = state.table;
  // Some rows vanished upstream: the sandbox removes them, sync marks them deleted.
  const deleted = new Set<string>();
  for (let row = 0; row < table.size(); row += 97) {
    deleted.add(table.idOf(row));
    table.remove(row, 1_800_000_000);
  }
  records = Array.from({ length: table.size() }, (_, row) => table.toRecord(row));
  dir = mkdtempSync(path.join(tmpdir(), 'satchel-differential-'));
  cache = openCache(path.join(dir, 'org.sqlite'), { migrationsDir: defaultMigrationsDir() });
  caches.push(cache);
  // Written in a shuffled order: row_id order then says nothing about (date, id) order, so a
  // plan that leaned on insertion order instead of the sort keys would show.
  const shuffle = createRandom(99, 1);
  const shuffled = [...records];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = shuffle.int(0, i);
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  // As after a sync that a second one has not yet finished: most rows' gram blocks fresh,
  // the last ones written since the refresh (stale, searched row by row).
  const fresh = Math.floor(shuffled.length * 0.9);
  upsertTransactions(cache, shuffled.slice(0, fresh), deleted);
  refreshGramBlocks(cache.sqlite);
  upsertTransactions(cache, shuffled.slice(fresh), deleted);
});

afterAll(() => {
  for (const open of caches) open.close();
  rmSync(dir, { recursive: true, force: true });
});

const FTS_LOOKALIKES = [
  '"',
  '*',
  'OR',
  'NEAR',
  '(',
  ')',
  'a OR b',
  '"Uber"',
  'Lufthansa*',
  'NEAR(bahn',
  '^DE',
  'col:val',
  '-',
  "Sainsbury's",
];

function randomCase(random: Random, text: string): string {
  return [...text].map((c) => (random.chance(0.5) ? c.toUpperCase() : c.toLowerCase())).join('');
}

function substringOf(random: Random, value: string, length: number): string {
  const chars = [...value];
  const start = random.int(0, Math.max(0, chars.length - length));
  return chars.slice(start, start + length).join('');
}

function freeText(random: Random): string {
  const record = random.pick(records);
  const roll = random.next();
  if (roll < 0.1) return random.pick(FTS_LOOKALIKES);
  if (roll < 0.2) return substringOf(random, record.description, random.int(3, 10)); // matches only elsewhere
  if (roll < 0.25) return ` ${substringOf(random, record.counterparty, 4)}  `;
  const field = random.pick([record.id, record.groupId, record.counterparty, record.bankAccountNumber]);
  const length = random.pick([1, 2, 2, 3, 4, 6, 9, 14]);
  return randomCase(random, substringOf(random, field, length));
}

function filters(random: Random): TransactionFilters {
  const f: TransactionFilters = {};
  const days = records.map((r) => r.bookingDate);
  if (random.chance(0.08)) {
    const ids = Array.from({ length: random.int(1, 30) }, () => random.pick(records).id);
    f.ids = [
      ...ids.map((id) => (random.chance(0.2) ? id.toUpperCase() : id)),
      '00000000-0000-4000-8000-00000000dead',
    ];
  }
  if (random.chance(0.4)) f.bookingDateFrom = random.pick(days);
  if (random.chance(0.4)) f.bookingDateTo = random.pick(days);
  if (f.bookingDateFrom && f.bookingDateTo && f.bookingDateFrom > f.bookingDateTo)
    [f.bookingDateFrom, f.bookingDateTo] = [f.bookingDateTo, f.bookingDateFrom];
  if (random.chance(0.3)) {
    const wallets = state.reference.wallets.map((w) => w.id);
    f.accountIds = Array.from({ length: random.int(1, 2) }, () => random.pick(wallets));
    if (random.chance(0.1)) f.accountIds.push('99999999-9999-4999-8999-999999999999');
  }
  if (random.chance(0.3)) f.matched = random.chance(0.5);
  if (random.chance(0.55)) f.freeText = freeText(random);
  return f;
}

/** The fields both searches sort by (the local search has more). */
type SharedSorting = { field: 'bookingDate' | 'valueDate' | 'amount' | 'id'; direction: 'ASC' | 'DESC' };

function sorting(random: Random): SharedSorting | undefined {
  if (random.chance(0.2)) return undefined;
  return {
    field: random.pick(['bookingDate', 'valueDate', 'amount', 'id'] as const),
    direction: random.pick(['ASC', 'DESC'] as const),
  };
}

/** One page of both searches: the same ids in the same order and the same total; its row count. */
function agrees(
  n: number,
  f: TransactionFilters,
  sort: SharedSorting | undefined,
  page: number,
  pageSize: number,
): number {
  const expected = sandboxSearch(state.table, {
    filters: f as Filters,
    sorting: sort,
    pagination: { page, pageSize },
  });
  const local = searchTransactions(cache, {
    filters: f,
    ...(sort ? { sorting: sort } : {}),
    pagination: { page, pageSize },
  });
  const context = JSON.stringify({ n, f, sort, page, pageSize });
  expect(
    local.rows.map((r) => r.id),
    context,
  ).toEqual(expected.rows.map((row) => state.table.idOf(row)));
  expect(local.totals?.count, context).toBe(expected.total);
  return expected.rows.length;
}

/**
 * 120 searches within one or two accounts for text taken from other accounts' rows: common
 * there (the start of their account number is on every one of them), rare or absent here.
 * Each page must agree with the sandbox; returns how often each plan ran.
 */
function accountSearches(random: Random): Map<PagePlan, number> {
  const plans = new Map<PagePlan, number>();
  const stop = observePagePlans((plan) => plans.set(plan, (plans.get(plan) ?? 0) + 1));
  const wallets = [...new Set(records.map((record) => record.bankAccountId))];
  for (let n = 0; n < 120; n++) {
    const account = random.pick(wallets);
    // Text taken from another account's rows: common there (the start of its account
    // number is on every one of them), rare or absent here.
    const foreign = random.pick(records.filter((record) => record.bankAccountId !== account));
    const text = random.chance(0.7)
      ? [...foreign.bankAccountNumber].slice(0, random.int(4, 10)).join('')
      : substringOf(
          random,
          random.pick([foreign.bankAccountNumber, foreign.counterparty, foreign.groupId]),
          random.pick([1, 2, 3, 4, 8]),
        );
    const f: TransactionFilters = {
      accountIds: random.chance(0.2) ? [account, random.pick(wallets)] : [account],
      freeText: randomCase(random, text),
    };
    if (random.chance(0.6)) f.matched = random.chance(0.7) ? false : true;
    if (random.chance(0.3)) f.bookingDateFrom = random.pick(records).bookingDate;
    const sort: SharedSorting | undefined = random.chance(0.2)
      ? undefined
      : { field: 'bookingDate', direction: random.pick(['ASC', 'DESC'] as const) };
    const pageSize = random.pick([1, 5, 20, 50]);
    const page = random.int(1, 3);
    agrees(n, f, sort, page, pageSize);
  }
  stop();
  return plans;
}

describe('local search agrees with the sandbox v0 search', () => {
  it(`on ${COMBINATIONS} random combinations of filters, sort and page over ${ROWS} transactions`, () => {
    const random = createRandom(20260501, 9);
    let nonEmpty = 0;
    const plans = new Map<PagePlan, number>();
    const stop = observePagePlans((plan) => plans.set(plan, (plans.get(plan) ?? 0) + 1));
    for (let n = 0; n < COMBINATIONS; n++) {
      const f = filters(random);
      const sort = sorting(random);
      const pageSize = random.pick([1, 5, 20, 50, 100]);
      const reference = sandboxSearch(state.table, {
        filters: f as Filters,
        sorting: sort,
        pagination: { page: 1, pageSize },
      });
      const lastPage = Math.max(1, Math.ceil(reference.total / pageSize));
      const page = random.chance(0.15)
        ? lastPage
        : random.chance(0.1)
          ? lastPage + 1
          : random.int(1, Math.min(3, lastPage));
      if (agrees(n, f, sort, page, pageSize) > 0) nonEmpty += 1;
    }
    stop();
    // The combinations must exercise real results, not mostly empty pages, and every plan
    // of the page planner.
    expect(nonEmpty).toBeGreaterThan(COMBINATIONS / 2);
    expect(Object.fromEntries(plans)).toEqual({
      index: expect.any(Number),
      'account-text': expect.any(Number),
      'gram-rows': expect.any(Number),
      trigram: expect.any(Number),
      window: expect.any(Number),
      'wider-window': expect.any(Number),
      probe: expect.any(Number),
      'short-probe': expect.any(Number),
      'short-set': expect.any(Number),
    });
  });

  it('within accounts in date order, for text common in other accounts (the account-text plan)', () => {
    const plans = accountSearches(createRandom(20261123, 5));
    // Most of these take the plan (the rest are answered by a window or the trigram index).
    expect(plans.get('account-text') ?? 0).toBeGreaterThanOrEqual(25);
  });

  it('for one and two characters common, rare and found nowhere (the gram blocks and row lists)', () => {
    const random = createRandom(20261124, 4);
    const plans = new Map<PagePlan, number>();
    const stop = observePagePlans((plan) => plans.set(plan, (plans.get(plan) ?? 0) + 1));
    const nowhere = ['qx', 'Q9', '~', '#', 'zz', 'jq', '%'];
    for (let n = 0; n < 150; n++) {
      const record = random.pick(records);
      const text = random.chance(0.25)
        ? random.pick(nowhere)
        : randomCase(
            random,
            substringOf(
              random,
              random.pick([record.counterparty, record.bankAccountNumber]),
              random.int(1, 2),
            ),
          );
      const f: TransactionFilters = { freeText: text };
      if (random.chance(0.3)) f.matched = random.chance(0.5);
      if (random.chance(0.2)) f.bookingDateFrom = random.pick(records).bookingDate;
      agrees(n, f, sorting(random), random.int(1, 3), random.pick([5, 20, 50]));
    }
    stop();
    expect(plans.get('gram-rows') ?? 0).toBeGreaterThanOrEqual(20);
    expect(plans.get('short-set') ?? 0).toBeGreaterThanOrEqual(30);
    expect(plans.get('window') ?? 0).toBeGreaterThanOrEqual(30);
  });

  it('on deep pages, where the local search serves a memoised id list', () => {
    const random = createRandom(7, 3);
    for (let n = 0; n < 20; n++) {
      const sort: SharedSorting = sorting(random) ?? { field: 'bookingDate', direction: 'DESC' };
      const f: TransactionFilters = random.chance(0.5) ? {} : { freeText: random.pick(['de', '4', 'e']) };
      const pageSize = random.pick([50, 100]);
      const total = sandboxSearch(state.table, {
        filters: f as Filters,
        sorting: sort,
        pagination: { page: 1, pageSize },
      }).total;
      const page = random.int(
        Math.ceil(20_000 / pageSize) + 1,
        Math.max(Math.ceil(20_000 / pageSize) + 1, Math.ceil(total / pageSize)),
      );
      const expected = sandboxSearch(state.table, {
        filters: f as Filters,
        sorting: sort,
        pagination: { page, pageSize },
      });
      const local = searchTransactions(cache, {
        filters: f,
        sorting: sort,
        pagination: { page, pageSize },
        withTotals: false,
      });
      expect(
        local.rows.map((r) => r.id),
        JSON.stringify({ f, sort, page }),
      ).toEqual(expected.rows.map((row) => state.table.idOf(row)));
    }
  });

  it('within accounts once every block is refreshed (the accounts’ gram sets)', () => {
    // As after the sync's refresh: no stale block, so text an account cannot hold is
    // answered from its gram set.
    refreshGramBlocks(cache.sqlite);
    const plans = accountSearches(createRandom(20261124, 6));
    expect(plans.get('account-grams') ?? 0).toBeGreaterThanOrEqual(10);
    expect(plans.get('account-text') ?? 0).toBeGreaterThanOrEqual(10);
  });

  it('in a cache with no deleted row (the walks then skip the deleted rows’ test)', () => {
    // Another organisation, nothing ever deleted: the same searches over it, last in this file
    // because it takes the place of the shared one.
    state = demoState(8_000, 2027);
    records = Array.from({ length: state.table.size() }, (_, row) => state.table.toRecord(row));
    cache = openCache(path.join(dir, 'undeleted.sqlite'), { migrationsDir: defaultMigrationsDir() });
    caches.push(cache);
    upsertTransactions(cache, records, new Set());
    refreshGramBlocks(cache.sqlite);
    expect(
      cache.sqlite
        .prepare('SELECT count(*) FROM bank_transactions WHERE deleted_at IS NOT NULL')
        .pluck()
        .get(),
    ).toBe(0);
    const random = createRandom(20261125, 10);
    let nonEmpty = 0;
    for (let n = 0; n < 150; n++) {
      const pageSize = random.pick([5, 20, 50]);
      if (agrees(n, filters(random), sorting(random), random.int(1, 3), pageSize) > 0) nonEmpty += 1;
    }
    expect(nonEmpty).toBeGreaterThan(75);
    const plans = accountSearches(createRandom(20261125, 11));
    expect(plans.get('account-text') ?? 0).toBeGreaterThanOrEqual(10);
  });
});
