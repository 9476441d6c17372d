import type Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import type { TransactionFilters, TransactionSorting } from '../../../src-shared/search';
import type { CacheDb } from '../../../src-main/store';
import { searchTransactions, transactionPosition } from '../../../src-main/search';
import { DEEP_OFFSET } from '../../../src-main/search/transaction-page';
import { demoState, recordsOf, useCaches } from './fixtures';
import { upsertTransactions } from './load';

// `transactionPosition` against a real cache of more than DEEP_OFFSET rows: when the whole
// ordered list of the same search is remembered (the table read a deep page of it), the place
// comes from that list, without reading the first DEEP_OFFSET rows again; with nothing
// remembered (another connection, or the data changed since) it is read from the cache.

const caches = useCaches();

/**
 * Counts the rows the connection's statements return: `prepare` of the real better-sqlite3
 * connection is spied on, and each statement it makes has its `all` counted. Set before the
 * connection's first query: statements are prepared once per connection and reused.
 */
function countRows(sqlite: Database.Database): { rows(): number; reset(): void } {
  let rows = 0;
  const prepare = sqlite.prepare.bind(sqlite);
  vi.spyOn(sqlite, 'prepare').mockImplementation((source: string) => {
    const statement = prepare(source);
    const all = statement.all.bind(statement);
    vi.spyOn(statement, 'all').mockImplementation((...params: unknown[]) => {
      const result = all(...params);
      rows += result.length;
      return result;
    });
    return statement;
  });
  return { rows: () => rows, reset: () => (rows = 0) };
}

const filters: TransactionFilters = {};
const sorting: TransactionSorting = { field: 'bookingDate', direction: 'DESC' };

/** The ids of page `page` (of 500) of the search, as the table reads them. */
function pageIds(cache: CacheDb, page: number): string[] {
  return searchTransactions(cache, {
    filters,
    sorting,
    pagination: { page, pageSize: 500 },
    withTotals: false,
  }).rows.map((row) => row.id);
}

describe('transactionPosition and the remembered order', () => {
  it('answers from the remembered order of the same search, and from the cache without it', () => {
    const file = caches.file();
    upsertTransactions(caches.open(file), recordsOf(demoState(DEEP_OFFSET + 2_000)));
    // A connection of its own, as the app's: nothing remembered or prepared on it yet.
    const cache = caches.open(file);
    const counted = countRows(cache.sqlite);

    const early = pageIds(cache, 1)[7]!;
    // Page 43 starts at 21,000, past DEEP_OFFSET: a slice of the whole order, now remembered.
    const deep = pageIds(cache, 43)[0]!;
    counted.reset();
    expect(transactionPosition(cache.sqlite, filters, sorting, early)).toBe(7);
    expect(transactionPosition(cache.sqlite, filters, sorting, deep)).toBe(21_000);
    expect(transactionPosition(cache.sqlite, filters, sorting, 'no-such-transaction')).toBeNull();
    // Only the record itself was read (once for each known id), never the first rows.
    expect(counted.rows()).toBe(2);

    // Nothing remembered on another connection: the places are read from the cache.
    const other = caches.open(file);
    const read = countRows(other.sqlite);
    expect(transactionPosition(other.sqlite, filters, sorting, early)).toBe(7);
    expect(transactionPosition(other.sqlite, filters, sorting, deep)).toBe(21_000);
    expect(read.rows()).toBeGreaterThan(DEEP_OFFSET);

    // The data changed since the order was remembered: the remembered list is not used. The
    // deep record, booked latest now, comes first; the early one moves down by one.
    cache.sqlite.prepare("UPDATE bank_transactions SET booking_date = '2099-12-31' WHERE id = ?").run(deep);
    expect(transactionPosition(cache.sqlite, filters, sorting, deep)).toBe(0);
    expect(transactionPosition(cache.sqlite, filters, sorting, early)).toBe(8);
  });
});
