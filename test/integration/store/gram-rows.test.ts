import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransactionFilters } from '../../../src-shared/search';
import { searchTransactions } from '../../../src-main/search';
import { containsAny, searchText } from '../../../src-main/search/text';
import { observePagePlans, type PagePlan } from '../../../src-main/search/transaction-page';
import {
  gramBlocksAreConsistent,
  rebuildTransactionSearch,
  refreshGramBlocks,
  TEXT_TABLE,
  type CacheDb,
} from '../../../src-main/store';
import { gramRowSettings, needleKey, readGramRows } from '../../../src-main/store/gram-rows';
import { bankTransactions } from '../../../src-main/store/schema';
import { transactionRow, useCaches, writeRandomTransactions } from './fixtures';

const caches = useCaches();
const defaultListBlocks = gramRowSettings.listBlocks;
afterEach(() => {
  gramRowSettings.listBlocks = defaultListBlocks;
});

/** ASCII, umlauts, accents, İ and the Kelvin sign (whose lower case is ASCII), emoji. */
const NAMES = [
  'Deutsche Bahn',
  'Büromarkt Müller GmbH',
  'Café ☕ Bar',
  'İstanbul Kebap',
  'Kelvin \u212Aühlung',
  'qx-Labs',
  "O'Brien & Sons",
  'Zz Top',
  'Straße 12',
];
/** Few days, so that many matches share one and the order rests on the ids. */
const DAYS = ['2026-01-05', '2026-01-06', '2026-02-01', '2026-02-02', '2026-03-09'];

function seeded(rows: number, seed = 1): CacheDb {
  const cache = caches.open(caches.file());
  writeRandomTransactions(cache, rows, { names: NAMES, seed, days: DAYS, deletedShare: 0.05 });
  return cache;
}

interface Query {
  needle: string;
  direction?: 'ASC' | 'DESC';
  from?: string;
  to?: string;
  includeDeleted?: boolean;
}

/** Every match in date order, ties by id, tested on every row by SQLite alone. */
function reference(cache: CacheDb, query: Query): string[] {
  const needle = searchText(query.needle);
  const hit = containsAny(cache.sqlite, ['x.text'], needle, 'q');
  const direction = query.direction ?? 'DESC';
  return cache.sqlite
    .prepare(
      `SELECT t.id FROM bank_transactions t JOIN ${TEXT_TABLE} x ON x.row_id = t.row_id
       WHERE (${hit.sql}) AND (@all OR t.deleted_at IS NULL)
         AND t.booking_date >= @from AND t.booking_date <= @to
       ORDER BY t.booking_date ${direction}, t.id ${direction}`,
    )
    .pluck()
    .all({
      ...hit.params,
      all: query.includeDeleted ? 1 : 0,
      from: query.from ?? '',
      to: query.to ?? '9999',
    }) as string[];
}

/** One page of the app's search, and the plan it took. */
function searched(cache: CacheDb, query: Query, page: number, pageSize: number) {
  const plans: PagePlan[] = [];
  const stop = observePagePlans((plan) => plans.push(plan));
  const filters: TransactionFilters = { freeText: query.needle };
  if (query.from) filters.bookingDateFrom = query.from;
  if (query.to) filters.bookingDateTo = query.to;
  if (query.includeDeleted) filters.includeDeleted = true;
  try {
    const result = searchTransactions(cache, {
      filters,
      sorting: { field: 'bookingDate', direction: query.direction ?? 'DESC' },
      pagination: { page, pageSize },
      withTotals: false,
    });
    return { ids: result.rows.map((row) => row.id), plan: plans[0] };
  } finally {
    stop();
  }
}

/** Every page of `query` agrees with the reference; returns the plans the pages took. */
function agrees(cache: CacheDb, query: Query, pageSize = 7): PagePlan[] {
  const all = reference(cache, query);
  const plans: PagePlan[] = [];
  for (let page = 1; page <= Math.ceil(all.length / pageSize) + 1; page++) {
    const { ids, plan } = searched(cache, query, page, pageSize);
    expect(ids, JSON.stringify({ query, page })).toEqual(all.slice((page - 1) * pageSize, page * pageSize));
    plans.push(plan!);
  }
  return plans;
}

const stale = (cache: CacheDb) =>
  cache.sqlite.prepare('SELECT count(*) FROM bank_transaction_gram_stale').pluck().get() as number;

describe('the gram row lists', () => {
  it('answer one and two characters in date order, ties by id, as testing every row does', () => {
    const cache = seeded(300);
    refreshGramBlocks(cache.sqlite);
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
    const plans: PagePlan[] = [];
    for (const needle of ['ba', 'QX', 'ü', 'é', "'b", 'k', 'i', '&', 'zz', '12', ' 1', '☕', 'ß']) {
      for (const direction of ['ASC', 'DESC'] as const) {
        plans.push(...agrees(cache, { needle, direction }));
        plans.push(...agrees(cache, { needle, direction, includeDeleted: true }, 11));
        plans.push(...agrees(cache, { needle, direction, from: '2026-01-06', to: '2026-02-02' }, 5));
      }
    }
    // Every one of these has a list: none is answered another way.
    expect(new Set(plans)).toEqual(new Set(['gram-rows']));
  });

  it('test the rows whose text LIKE does not fold as JavaScript does, and keep only real matches', () => {
    const cache = caches.open(caches.file());
    for (const counterparty of ['İstanbul Döner', '\u212Aühlung Nord', 'Kiosk', 'Imbiss'])
      cache.db.insert(bankTransactions).values(transactionRow({ counterparty })).run();
    refreshGramBlocks(cache.sqlite);
    // The İ of İstanbul lower-cases to an ASCII "i", the Kelvin sign to a "k": both rows are in
    // those lists, and SQLite's LIKE (the search's test for ASCII text) matches neither.
    const listed = (needle: string) => readGramRows(cache.sqlite, needleKey(needle)!)!.rowIds.length;
    expect([listed('i'), listed('k')]).toEqual([3, 2]);
    expect(reference(cache, { needle: 'i' })).toHaveLength(2); // Kiosk, Imbiss
    expect(reference(cache, { needle: 'k' })).toHaveLength(1); // Kiosk
    expect(agrees(cache, { needle: 'i' }, 1)).toContain('gram-rows');
    expect(agrees(cache, { needle: 'K' }, 1)).toContain('gram-rows');
  });

  it('stay exact through inserts, text and date changes, deletes and replaces, before and after a refresh', () => {
    const cache = seeded(200, 3);
    refreshGramBlocks(cache.sqlite);
    const t = bankTransactions;
    const needles = ['qx', 'k', 'ü', 'zz'];
    const check = () => {
      for (const needle of needles) {
        const plans = agrees(cache, { needle });
        expect(
          plans.every((plan) => plan === 'gram-rows'),
          needle,
        ).toBe(true);
      }
    };
    const matching = (needle: string, offset: number) =>
      reference(cache, { needle, direction: 'ASC' })[offset]!;

    cache.db
      .insert(t)
      .values(transactionRow({ counterparty: 'Qx Newest', bookingDate: '2026-05-01' }))
      .run();
    // A date change moves a row in the order without touching its text.
    const moved = matching('qx', 0);
    cache.db.update(t).set({ bookingDate: '2027-01-01' }).where(eq(t.id, moved)).run();
    cache.db
      .update(t)
      .set({ bookingDate: '2020-01-01' })
      .where(eq(t.id, matching('k', 3)))
      .run();
    // The text no longer holds the needle; the row is gone; the row was deleted upstream.
    cache.db
      .update(t)
      .set({ counterparty: 'Deutsche Bahn' })
      .where(eq(t.id, matching('zz', 0)))
      .run();
    cache.db
      .delete(t)
      .where(eq(t.id, matching('qx', 2)))
      .run();
    cache.db
      .update(t)
      .set({ deletedAt: '2026-04-02T00:00:00Z' })
      .where(eq(t.id, matching('ü', 1)))
      .run();
    // Sync's REPLACE: the row is deleted and written again with the same id.
    const replaced = matching('zz', 1);
    cache.sqlite
      .prepare(
        `INSERT OR REPLACE INTO bank_transactions (id, bank_account_id, amount_minor, amount_currency, booking_date, counterparty, raw)
         VALUES (?, 'acc-1', 100, 'EUR', '2019-03-03', 'Zz Replaced', '{}')`,
      )
      .run(replaced);
    expect(stale(cache)).toBeGreaterThan(0);
    check(); // the changed blocks are read and tested beside the lists
    expect(searched(cache, { needle: 'qx' }, 1, 1).ids).toEqual([moved]);

    refreshGramBlocks(cache.sqlite);
    expect(stale(cache)).toBe(0);
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
    check(); // the lists alone
    expect(searched(cache, { needle: 'qx' }, 1, 1).ids).toEqual([moved]);
    expect(reference(cache, { needle: 'zz', direction: 'ASC' })[0]).toBe(replaced);
  });

  it('leave the page to the gram blocks when a row of the text has no ISO booking date', () => {
    const cache = seeded(80, 9);
    // Never sent by the API; a cache written by hand or by an older build could hold it.
    // A day 32 would share its place in the day count with 1 February, a day of these rows.
    for (const counterparty of ['Qx Odd', 'Qx Odder'])
      cache.db
        .insert(bankTransactions)
        .values(transactionRow({ counterparty, bookingDate: '2026-01-32' }))
        .run();
    refreshGramBlocks(cache.sqlite);
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
    const plans = agrees(cache, { needle: 'qx' }, 5);
    expect(plans).not.toContain('gram-rows');
    expect(agrees(cache, { needle: 'zz' }, 5)).toContain('gram-rows'); // other text unaffected
  });

  it('are built when a gram becomes rare enough and dropped when it becomes common', () => {
    gramRowSettings.listBlocks = 3;
    const cache = caches.open(caches.file());
    const t = bankTransactions;
    const write = (counterparty: string, count: number) =>
      Array.from({ length: count }, () => {
        const row = transactionRow({ counterparty, bookingDate: '2026-06-01' });
        cache.db.insert(t).values(row).run();
        return row.id;
      });
    const list = (needle: string) => readGramRows(cache.sqlite, needleKey(needle)!)?.rowIds.length ?? null;
    const refreshed = () => {
      refreshGramBlocks(cache.sqlite);
      expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
    };
    // Rows 1-8 hold "wq" and "ø" (two blocks of 8 row_ids), all 40 hold "de" (six blocks).
    write('Wq Ørsted', 8);
    write('Deutsche Bahn', 32);
    refreshed();
    expect([list('wq'), list('ø'), list('de')]).toEqual([8, 8, null]);
    expect(agrees(cache, { needle: 'wq' })).toContain('gram-rows');

    // Six blocks: common now, the lists go; the search still answers, another way.
    const later = write('Wq Ørsted', 24);
    refreshed();
    expect([list('wq'), list('ø')]).toEqual([null, null]);
    expect(agrees(cache, { needle: 'wq' })).not.toContain('gram-rows');

    // Rare again once those rows are gone, and a pair never seen before gets its list.
    for (const id of later) cache.db.delete(t).where(eq(t.id, id)).run();
    write('Yv Solo', 1);
    refreshed();
    expect([list('wq'), list('ø'), list('yv')]).toEqual([8, 8, 1]);
    expect(agrees(cache, { needle: 'wq' })).toContain('gram-rows');
    expect(agrees(cache, { needle: 'ø' })).toContain('gram-rows');
  });

  it('are checked with the other search indexes, and rebuilt with them', () => {
    const cache = seeded(60);
    refreshGramBlocks(cache.sqlite);
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
    // A list that lost a row (as if a write had not marked its block).
    const key = needleKey('qx')!;
    const list = readGramRows(cache.sqlite, key)!;
    expect(list.rowIds.length).toBeGreaterThan(1);
    cache.sqlite
      .prepare('UPDATE bank_transaction_gram_rows SET row_ids = ?, days = ? WHERE key = ?')
      .run(
        Buffer.from(Float64Array.from(list.rowIds.slice(1)).buffer),
        Buffer.from(Int32Array.from(list.days.slice(1)).buffer),
        key,
      );
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(false);
    rebuildTransactionSearch(cache.sqlite);
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
    expect(readGramRows(cache.sqlite, key)).toEqual(list);
  });
});
