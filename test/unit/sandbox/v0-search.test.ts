import { describe, expect, test } from 'vitest';
import type { BankTransaction, TransactionSortField } from '../../../src-shared/api';
import { DEFAULT_DATA, createState } from '../../../src-sandbox/data/state';
import { createRandom } from '../../../src-sandbox/data/random';
import { searchTransactions, type SearchOptions } from '../../../src-sandbox/search/v0';
import { searchRecords } from '../../../src-sandbox/search/v0-records';

/** The columnar search must agree with the plain reference on every query. */
const state = createState({ ...DEFAULT_DATA, seed: 3, transactions: 4000 });
const records: BankTransaction[] = Array.from({ length: state.table.size() }, (_, row) =>
  state.table.toRecord(row),
);

function both(options: SearchOptions) {
  const fast = searchTransactions(state.table, options);
  const slow = searchRecords(records, options);
  return {
    fast: { ids: fast.rows.map(state.table.idOf), total: fast.total },
    slow: { ids: slow.data.map((r) => r.id), total: slow.total },
  };
}

function randomQuery(seed: number): SearchOptions {
  const random = createRandom(seed, 9);
  const sample = () => random.pick(records);
  const filters: SearchOptions['filters'] = {};
  if (random.chance(0.15)) filters.ids = [sample().id, sample().id, '11111111-2222-4333-8444-555555555555'];
  if (random.chance(0.4)) filters.bookingDateFrom = sample().bookingDate;
  if (random.chance(0.4)) filters.bookingDateTo = sample().bookingDate;
  if (filters.bookingDateFrom && filters.bookingDateTo && filters.bookingDateFrom > filters.bookingDateTo)
    delete filters.bookingDateTo;
  if (random.chance(0.3)) filters.accountIds = [sample().bankAccountId];
  if (random.chance(0.3)) filters.matched = random.chance(0.5);
  if (random.chance(0.5)) {
    const source = random.pick([
      sample().counterparty,
      sample().id,
      sample().groupId,
      sample().bankAccountNumber,
      'zz',
      ' ',
    ]);
    const start = random.int(0, Math.max(0, source.length - 3));
    filters.freeText = random.chance(0.5)
      ? source.slice(start, start + random.int(1, 6)).toUpperCase()
      : source.slice(start, start + 4);
  }
  const field = random.pick<TransactionSortField>(['bookingDate', 'valueDate', 'amount', 'id']);
  return {
    filters,
    ...(random.chance(0.7) ? { sorting: { field, direction: random.chance(0.5) ? 'ASC' : 'DESC' } } : {}),
    ...(random.chance(0.7) ? { pagination: { page: random.int(1, 4), pageSize: random.int(1, 100) } } : {}),
  } as SearchOptions;
}

describe('v0 search module', () => {
  test('default: bookingDate descending, ties by id, page size 20', () => {
    const { fast, slow } = both({ filters: {} });
    expect(fast.ids).toHaveLength(20);
    expect(fast).toEqual(slow);
  });

  test('agrees with the reference on 300 random queries', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const options = randomQuery(seed);
      const { fast, slow } = both(options);
      expect(fast, JSON.stringify(options)).toEqual(slow);
    }
  });

  test('free text is case-insensitive and trimmed', () => {
    const upper = both({ filters: { freeText: '  STARBUCKS ' } });
    const lower = both({ filters: { freeText: 'starbucks' } });
    expect(upper.fast.total).toBeGreaterThan(0);
    expect(upper.fast).toEqual(lower.fast);
  });

  test('a page past the end is empty but counts the total', () => {
    const result = searchTransactions(state.table, {
      filters: { matched: true },
      pagination: { page: 10_000, pageSize: 100 },
    });
    expect(result.rows).toEqual([]);
    expect(result.total).toBeGreaterThan(0);
  });

  test('hex text in ids and group ids: every digit pair, with dashes, and a single digit', () => {
    // Each of the 256 digit pairs is one bit of an id's bigram set; pairs like "ff" and "3f"
    // are the top bit of a 32-bit word and must compare as unsigned.
    const digits = '0123456789abcdef';
    const queries = [...digits].flatMap((a) => [...digits].map((b) => `${a}${b}`));
    const id = records[17]!.id;
    queries.push(
      id.slice(6, 12),
      id.slice(20, 27).toUpperCase(),
      records[5]!.groupId.slice(3, 9),
      'f',
      '-4',
      'a-',
    );
    for (const freeText of queries) {
      const { fast, slow } = both({ filters: { freeText }, pagination: { page: 1, pageSize: 100 } });
      expect(fast, freeText).toEqual(slow);
    }
  });
});
