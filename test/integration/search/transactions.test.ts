import { beforeAll, describe, expect, it } from 'vitest';
import type { BankTransaction } from '../../../src-shared/api';
import { parseMoney } from '../../../src-shared/money';
import type {
  TransactionFilters,
  TransactionSearchInput,
  TransactionSortField,
} from '../../../src-shared/search';
import { searchTransactions } from '../../../src-main/search';
import { totalsIndex, totalsQuery, transactionTotals } from '../../../src-main/search/transactions';
import { allOf } from '../../../src-main/search/sql';
import { ACCOUNT_TEXT_INDEX, pageQuery } from '../../../src-main/search/transaction-page';
import { liveIf, transactionConditions } from '../../../src-main/search/transaction-where';
import { applyReview } from '../../../src-main/review';
import type { CacheDb } from '../../../src-main/store';
import { searchRecords } from '../../../src-sandbox/search/v0-records';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultMigrationsDir, openCache } from '../../../src-main/store';
import { demoState, recordsOf, wireTransaction } from './fixtures';
import { upsertTransactions } from './load';

/**
 * Local transaction search on a real cache file holding the sandbox's demo data, checked
 * against the sandbox's plain v0 reference (v0-records.ts) for the v0 filters and against
 * straightforward JavaScript for the local ones.
 */

let cache: CacheDb;
let records: BankTransaction[];

// One cache for the whole file (read-mostly); tests that change it undo their change.
beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-search-'));
  cache = openCache(path.join(dir, 'org.sqlite'), { migrationsDir: defaultMigrationsDir() });
  records = recordsOf(demoState(2500));
  upsertTransactions(cache, records);
  return () => {
    cache.close();
    rmSync(dir, { recursive: true, force: true });
  };
});

const ids = (input: TransactionSearchInput) => searchTransactions(cache, input).rows.map((row) => row.id);

/** Everything the filters match, in the default order, through the reference. */
function reference(
  filters: Omit<TransactionFilters, 'reviewed'>,
  sorting?: { field: 'bookingDate' | 'valueDate' | 'amount' | 'id'; direction: 'ASC' | 'DESC' },
) {
  return searchRecords(records, {
    filters: filters as never,
    sorting,
    pagination: { page: 1, pageSize: 100_000 },
  }).data.map((r) => r.id);
}

function all(filters: TransactionFilters, sorting?: TransactionSearchInput['sorting']): string[] {
  return ids({
    filters,
    ...(sorting ? { sorting } : {}),
    pagination: { page: 1, pageSize: 500 },
    withTotals: false,
  }).concat(...pagesAfterFirst(filters, sorting));
}

function pagesAfterFirst(
  filters: TransactionFilters,
  sorting?: TransactionSearchInput['sorting'],
): string[][] {
  const pages: string[][] = [];
  for (let page = 2; ; page++) {
    const rows = ids({
      filters,
      ...(sorting ? { sorting } : {}),
      pagination: { page, pageSize: 500 },
      withTotals: false,
    });
    if (rows.length === 0) return pages;
    pages.push(rows);
  }
}

describe('v0 filters, one at a time, agree with the sandbox reference', () => {
  it('no filter: every row, booking date descending', () => {
    expect(all({})).toEqual(reference({}));
    expect(all({})).toHaveLength(records.length);
  });

  it('ids, case-insensitive; unknown ids match nothing; an empty list matches nothing', () => {
    const wanted = [records[3]!.id, records[700]!.id.toUpperCase(), 'ffffffff-0000-4000-8000-000000000000'];
    expect(all({ ids: wanted })).toEqual(reference({ ids: wanted }));
    expect(all({ ids: wanted })).toHaveLength(2);
    expect(all({ ids: [] })).toEqual([]);
  });

  it('booking date ranges: both ends inclusive, either end open', () => {
    const day = records[1200]!.bookingDate;
    for (const filters of [
      { bookingDateFrom: day },
      { bookingDateTo: day },
      { bookingDateFrom: day, bookingDateTo: day },
    ]) {
      expect(all(filters)).toEqual(reference(filters));
    }
    expect(all({ bookingDateFrom: day, bookingDateTo: day }).length).toBeGreaterThan(0);
  });

  it('accounts and matched', () => {
    const account = records[10]!.bankAccountId;
    expect(all({ accountIds: [account] })).toEqual(reference({ accountIds: [account] }));
    expect(all({ accountIds: [account.toUpperCase(), records[11]!.bankAccountId] })).toEqual(
      reference({ accountIds: [account.toUpperCase(), records[11]!.bankAccountId] }),
    );
    expect(all({ matched: true })).toEqual(reference({ matched: true }));
    expect(all({ matched: false })).toEqual(reference({ matched: false }));
  });

  it('free text within accounts is tested on the account index alone, never on the table', () => {
    // The plan `account-text` relies on SQLite reading the row's free-text value from the
    // index: the query's expression must be the migration's exactly (TEXT_VALUE) — also
    // inside the CASE that tests it before the deleted rows' lookup, when there are any.
    const gone = records[43]!;
    for (const deleted of [false, true]) {
      if (deleted) upsertTransactions(cache, [gone], new Set([gone.id]));
      try {
        for (const freeText of ['GB29', 'de', 'Büro']) {
          const filters = { accountIds: [records[10]!.bankAccountId], matched: false, freeText };
          const { others, live, text } = transactionConditions(cache.sqlite, filters);
          expect(live !== null, 'a deleted row is left out by its own test').toBe(deleted);
          const where = allOf([others, liveIf(text!.inIndex!, live)]);
          const query = pageQuery(where, { field: 'bookingDate', direction: 'DESC' }, ACCOUNT_TEXT_INDEX);
          const plan = cache.sqlite.prepare(`EXPLAIN QUERY PLAN ${query}`).all(where.params) as Array<{
            detail: string;
          }>;
          expect(plan.map((step) => step.detail).join('; '), freeText).toContain(
            `SEARCH t USING COVERING INDEX ${ACCOUNT_TEXT_INDEX}`,
          );
        }
      } finally {
        if (deleted) upsertTransactions(cache, [gone]);
      }
    }
  });

  it('free text: 3+ characters through the index, any case, trimmed', () => {
    for (const text of [
      'lufthansa',
      'HOTEL',
      '  Deutsche Bahn ',
      records[5]!.id.slice(9, 20),
      records[9]!.groupId.slice(-7),
      'GB29',
    ]) {
      expect(all({ freeText: text }), text).toEqual(reference({ freeText: text }));
    }
    expect(all({ freeText: 'lufthansa' }).length).toBeGreaterThan(0);
  });

  it('free text of one or two characters scans, with the same meaning', () => {
    for (const text of ['u', 'Ub', '7c', 'DE', 'ü', 'Ü', 'zq']) {
      expect(all({ freeText: text }), text).toEqual(reference({ freeText: text }));
    }
    expect(all({ freeText: 'Ü' }).length).toBeGreaterThan(0); // Büroshop24, Zürich
  });

  it('free text never looks at the description', () => {
    const onlyInDescription = 'Wallet top';
    expect(records.some((r) => r.description.includes(onlyInDescription))).toBe(true);
    expect(all({ freeText: onlyInDescription })).toEqual([]);
    expect(all({ freeText: 'Card payment' })).toEqual([]);
  });

  it('free text in decomposed Unicode finds the same as composed (pasted from a PDF or a Mac)', () => {
    for (const text of ['Büro', 'ü', 'Zürich']) {
      const decomposed = text.normalize('NFD');
      expect(decomposed).not.toBe(text);
      expect(all({ freeText: decomposed }), text).toEqual(all({ freeText: text }));
    }
    expect(all({ freeText: 'Bu\u0308ro' }).length).toBeGreaterThan(0);
  });

  it('blank free text is no filter', () => {
    expect(all({ freeText: '   ' })).toHaveLength(records.length);
  });
});

describe('text that looks like FTS syntax is searched literally', () => {
  const odd = [
    { id: 'aaaaaaaa-0000-4000-8000-000000000001', counterparty: 'Say "hello" OR (bye*)' },
    { id: 'aaaaaaaa-0000-4000-8000-000000000002', counterparty: 'NEAR(a b) AND NOT c' },
    { id: 'aaaaaaaa-0000-4000-8000-000000000003', counterparty: '100% _under_ back\\slash' },
  ];
  beforeAll(() => {
    upsertTransactions(
      cache,
      odd.map((o) => wireTransaction({ ...o, bookingDate: '2019-01-01' })),
    );
    return () => {
      cache.sqlite.prepare(`DELETE FROM bank_transactions WHERE id LIKE 'aaaaaaaa-%'`).run();
    };
  });

  it.each([
    ['"hello"', [odd[0]!.id]],
    ['"hello" OR', [odd[0]!.id]],
    ['(bye*)', [odd[0]!.id]],
    ['bye*', [odd[0]!.id]],
    ['*', [odd[0]!.id]],
    ['"', [odd[0]!.id]],
    ['NEAR(a', [odd[1]!.id]],
    ['AND NOT', [odd[1]!.id]],
    ['100%', [odd[2]!.id]],
    ['%', [odd[2]!.id]],
    ['_under_', [odd[2]!.id]],
    ['k\\s', [odd[2]!.id]],
    ['OR', [odd[0]!.id]],
    ['hello OR bye', []],
  ])('%s', (text, expected) => {
    expect(all({ freeText: text, bookingDateTo: '2019-12-31' })).toEqual(expected);
  });
});

describe('free text never matches across two values', () => {
  // The narrow text table joins the four values with U+001F; a match must lie inside one.
  const edge = [
    { id: 'bbbbbbbb-0000-4000-8000-000000000001', counterparty: 'Ends in QX', groupId: 'zz-group' },
    { id: 'bbbbbbbb-0000-4000-8000-000000000002', counterparty: 'Has a \u001f unit separator' },
  ];
  beforeAll(() => {
    upsertTransactions(
      cache,
      edge.map((o) => wireTransaction({ ...o, bookingDate: '2019-02-01' })),
    );
    return () => {
      cache.sqlite.prepare(`DELETE FROM bank_transactions WHERE id LIKE 'bbbbbbbb-%'`).run();
    };
  });

  it.each([
    ['qx', [edge[0]!.id]],
    ['qxde', []],
    ['0001\u001fzz', []],
    ['QX\u001fDE', []],
    ['p\u001fEn', []],
    ['\u001f', [edge[1]!.id]],
    ['a \u001f u', [edge[1]!.id]],
  ])('%j', (text, expected) => {
    // Without other filters the rows lie beyond the first window of the order: the text's
    // fallback plans answer (short text: an estimate of its matches, then look-up or probe).
    expect(
      ids({ filters: { freeText: text }, pagination: { page: 1, pageSize: 1 }, withTotals: false }),
    ).toEqual(expected.slice(0, 1));
    const filters = { freeText: text, bookingDateFrom: '2019-02-01', bookingDateTo: '2019-02-01' };
    expect(all(filters)).toEqual(expected);
    expect(searchTransactions(cache, { filters, withTotals: true }).totals?.count).toBe(expected.length);
  });
});

describe('combinations are AND', () => {
  it('dates, account, matched and text together', () => {
    const sample = records[1500]!;
    const filters = {
      bookingDateFrom: '2025-01-01',
      bookingDateTo: '2026-06-30',
      accountIds: [sample.bankAccountId],
      matched: false,
      freeText: 'de',
    };
    const local = all(filters);
    expect(local).toEqual(reference(filters));
    expect(local.length).toBeGreaterThan(0);
    const hand = records.filter(
      (r) =>
        r.bookingDate >= '2025-01-01' &&
        r.bookingDate <= '2026-06-30' &&
        r.bankAccountId === sample.bankAccountId &&
        !r.matched &&
        [r.id, r.groupId, r.counterparty, r.bankAccountNumber].some((v) => v.toLowerCase().includes('de')),
    );
    expect(new Set(local)).toEqual(new Set(hand.map((r) => r.id)));
  });

  it('types, currencies and an amount range', () => {
    const filters: TransactionFilters = {
      transactionTypes: ['CARD', 'WITHDRAWAL'],
      currencies: ['EUR'],
      amount: { currency: 'EUR', min: '-100', max: '-10.5' },
    };
    const hand = records.filter((r) => {
      const minor = parseMoney(r.amount).minor;
      return (
        ['CARD', 'WITHDRAWAL'].includes(r.transactionType) &&
        r.amount.currency === 'EUR' &&
        minor >= -10000 &&
        minor <= -1050
      );
    });
    expect(new Set(all(filters))).toEqual(new Set(hand.map((r) => r.id)));
    expect(hand.length).toBeGreaterThan(10);
    expect(all({ transactionTypes: [] })).toEqual([]);
  });
});

describe('amount range', () => {
  const inRange = (min: number, max: number, ignoreSign = false, currency = 'EUR') =>
    records
      .filter((r) => {
        const m = parseMoney(r.amount);
        const v = ignoreSign ? Math.abs(m.minor) : m.minor;
        return m.currency === currency && v >= min && v <= max;
      })
      .map((r) => r.id);

  it('compares integer minor units of one currency, bounds inclusive', () => {
    const edge = records.find((r) => r.amount.currency === 'EUR')!;
    const minor = parseMoney(edge.amount).minor;
    const filters = { amount: { currency: 'EUR', min: edge.amount.amount, max: edge.amount.amount } };
    expect(all(filters)).toContain(edge.id);
    expect(new Set(all(filters))).toEqual(new Set(inRange(minor, minor)));
    expect(new Set(all({ amount: { currency: 'USD', min: '-50' } }))).toEqual(
      new Set(inRange(-5000, Number.MAX_SAFE_INTEGER, false, 'USD')),
    );
  });

  it('ignoreSign finds payments and refunds of a size', () => {
    const local = all({ amount: { currency: 'EUR', min: '20', max: '30.00', ignoreSign: true } });
    expect(new Set(local)).toEqual(new Set(inRange(2000, 3000, true)));
    expect(local.length).toBeGreaterThan(0);
  });

  it('rejects amounts that are not decimal strings, or with too many decimals', () => {
    expect(() => ids({ filters: { amount: { currency: 'EUR', min: '12,50' } } })).toThrow(/decimal amount/);
    expect(() => ids({ filters: { amount: { currency: 'EUR', min: '1.234' } } })).toThrow(
      /more than 2 decimals/,
    );
    expect(() => ids({ filters: { amount: { currency: 'EUR', min: '5', max: '1' } } })).toThrow(
      /above the largest/,
    );
  });
});

describe('sorting and paging', () => {
  const fields: TransactionSortField[] = [
    'bookingDate',
    'valueDate',
    'amount',
    'counterparty',
    'description',
    'transactionType',
    'bankAccountId',
    'matched',
    'id',
  ];

  it.each(
    fields.flatMap((field) => (['ASC', 'DESC'] as const).map((direction) => [field, direction] as const)),
  )('%s %s: pages concatenate to one total order with no gaps or repeats', (field, direction) => {
    const filters = { bookingDateFrom: '2025-06-01' };
    const sorting = { field, direction };
    const whole = ids({ filters, sorting, pagination: { page: 1, pageSize: 500 }, withTotals: false });
    const paged: string[] = [];
    for (let page = 1; page <= 8; page++)
      paged.push(...ids({ filters, sorting, pagination: { page, pageSize: 37 }, withTotals: false }));
    expect(paged).toEqual(whole.slice(0, 8 * 37));
    expect(new Set(whole).size).toBe(whole.length);
    // Again: the same order every time.
    expect(ids({ filters, sorting, pagination: { page: 1, pageSize: 500 }, withTotals: false })).toEqual(
      whole,
    );
    if (field === 'bookingDate' || field === 'valueDate' || field === 'amount' || field === 'id') {
      expect(whole).toEqual(reference(filters, { field, direction }).slice(0, 500));
    }
  });

  it('a page past the end is empty', () => {
    expect(ids({ pagination: { page: 10_000, pageSize: 50 } })).toEqual([]);
  });

  it('a later page of a long result is the same slice of the reference order', () => {
    const sorting = { field: 'amount' as const, direction: 'ASC' as const };
    const whole = reference({}, sorting);
    expect(whole.length).toBeGreaterThan(2000);
    const page = ids({ sorting, pagination: { page: 5, pageSize: 500 }, withTotals: false });
    expect(page).toEqual(whole.slice(2000, 2500));
  });
});

describe('totals', () => {
  /** Count and integer sums per currency of `matching`, in currency order, as the totals give them. */
  function expectedTotals(matching: BankTransaction[]) {
    const sums = new Map<string, { minor: number; count: number }>();
    for (const r of matching) {
      const m = parseMoney(r.amount);
      const sum = sums.get(m.currency) ?? { minor: 0, count: 0 };
      sums.set(m.currency, { minor: sum.minor + m.minor, count: sum.count + 1 });
    }
    return {
      count: matching.length,
      sums: [...sums.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([currency, s]) => ({ currency, ...s })),
    };
  }

  // Each through another plan: the totals index alone; the matched index and the
  // table; short text as the set of its matches (no other filter) and tested row by row (with
  // one); a currency list.
  it.each<[string, TransactionFilters]>([
    ['no filter', {}],
    ['unmatched', { matched: false }],
    ['one character, no other filter', { freeText: 'E' }],
    ['two characters and a date range', { freeText: 'de', bookingDateFrom: '2025-01-01' }],
    ['a currency', { currencies: ['EUR'] }],
  ])('count and integer sum per currency of the whole result, not just the page: %s', (_, filters) => {
    const result = searchTransactions(cache, { filters, pagination: { page: 1, pageSize: 5 } });
    // The reference knows the v0 filters; the currency list is applied here.
    const { currencies, ...v0 } = filters;
    const matching = new Set(reference(v0));
    const expected = expectedTotals(
      records.filter(
        (r) => matching.has(r.id) && (!currencies || currencies.includes(parseMoney(r.amount).currency)),
      ),
    );
    expect(expected.count).toBeGreaterThan(5);
    if (currencies) expect(expected.count).toBeLessThan(matching.size);
    expect(result.rows).toHaveLength(5);
    expect(result.totals).toEqual(expected);
    for (const sum of result.totals?.sums ?? []) expect(Number.isInteger(sum.minor)).toBe(true);
  });

  const plan = (query: { sql: string; params: Record<string, unknown> }, sqlite = cache.sqlite) =>
    (sqlite.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(query.params) as { detail: string }[])
      .map((row) => row.detail)
      .join('\n');

  /** Two accounts of the cache's transactions. */
  function twoAccounts(): [string, string] {
    const accounts = cache.sqlite
      .prepare('SELECT DISTINCT bank_account_id FROM bank_transactions ORDER BY 1 LIMIT 2')
      .pluck()
      .all() as string[];
    expect(accounts).toHaveLength(2);
    return [accounts[0]!, accounts[1]!];
  }

  it('of the live rows come from the totals index alone; pages never use it', () => {
    expect(plan(totalsQuery(cache.sqlite, {}))).toContain(
      'SCAN t USING COVERING INDEX bank_transactions_totals_idx',
    );
    // Pages walk an order's index, never a totals index (driving by one would sort every row
    // of the range: an amount range, an account).
    for (const filters of [
      { amount: { currency: 'EUR', min: '-500', max: '-100' } },
      { currencies: ['EUR'] },
      { accountIds: twoAccounts().slice(0, 1) },
      { matched: false, bookingDateFrom: '2024-01-01' },
      { transactionTypes: ['CARD'] },
    ] satisfies TransactionFilters[]) {
      const where = transactionConditions(cache.sqlite, filters).base;
      const page = plan({
        sql: pageQuery(where, { field: 'bookingDate', direction: 'DESC' }),
        params: where.params,
      });
      expect(page).not.toContain('totals_idx');
    }
  });

  it('come from an index of the live amounts when one holds every filter, and never walk one to look rows up', () => {
    const [first, second] = twoAccounts();
    // As the cache is, and with SQLite's statistics of its rows (a copy, analyzed).
    const dir = mkdtempSync(path.join(tmpdir(), 'satchel-search-plan-'));
    cache.sqlite.exec(`VACUUM INTO '${path.join(dir, 'copy.sqlite')}'`);
    const analyzed = new Database(path.join(dir, 'copy.sqlite'));
    analyzed.exec('ANALYZE');
    const plans = (filters: TransactionFilters) =>
      (
        [
          ['as it is', cache.sqlite],
          ['analyzed', analyzed],
        ] as const
      ).map(([name, sqlite]) => ({
        context: `${JSON.stringify(filters)}, ${name}`,
        text: plan(totalsQuery(sqlite, filters), sqlite),
      }));
    const eurRange = { currency: 'EUR', min: '-500', max: '-100' };
    try {
      // Currencies and amounts alone: the totals index, in its (the grouping's) order.
      for (const filters of [
        {},
        { currencies: ['EUR', 'USD'] },
        { includeDeleted: false },
        { amount: eurRange },
      ])
        for (const { context, text } of plans(filters))
          expect(text, context).toContain('USING COVERING INDEX bank_transactions_totals_idx');
      // Accounts, matched, booking dates, types, with or without those: the account totals index.
      for (const filters of [
        { accountIds: [first] },
        { accountIds: [first, second], matched: false },
        { bookingDateFrom: '2024-01-01', bookingDateTo: '2024-12-31' },
        { bookingDateFrom: '2020-01-01' },
        { matched: true },
        { transactionTypes: ['CARD', 'PAYOUT'] },
        { currencies: ['EUR'], bookingDateFrom: '2024-01-01' },
        { amount: eurRange, matched: false, freeText: '  ' },
      ] satisfies TransactionFilters[])
        for (const { context, text } of plans(filters))
          expect(text, context).toContain('USING COVERING INDEX bank_transactions_account_totals_idx');
      // Any other filter: neither. Walking the totals index in currency order and reading every
      // row it names took 6 s for a year of booking dates on a million rows (0.9-1.2 s without).
      for (const filters of [
        { reviewed: false },
        { accountIds: [first], flagged: false },
        { ids: [first] },
        { freeText: 'lufthansa', matched: true },
        { includeDeleted: true, bookingDateFrom: '2024-01-01' },
      ] satisfies TransactionFilters[])
        for (const { context, text } of plans(filters)) expect(text, context).not.toContain('totals_idx');
    } finally {
      analyzed.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('from the account totals index equal the rows they count', () => {
    const [first, second] = twoAccounts();
    let counted = 0;
    const cases: TransactionFilters[] = [
      { accountIds: [first] },
      { accountIds: [first.toUpperCase(), second], matched: false },
      { bookingDateFrom: '2025-01-01', bookingDateTo: '2025-12-31' },
      { matched: true, transactionTypes: ['CARD', 'PAYOUT'] },
      { accountIds: [first], currencies: ['EUR', 'SEK'], bookingDateTo: '2025-06-30' },
      { accountIds: ['00000000-0000-4000-8000-00000000dead'] },
      { accountIds: [] },
      { transactionTypes: [] },
      { currencies: [], matched: true },
      { amount: { currency: 'EUR', min: '100', max: '500', ignoreSign: true }, matched: false },
    ];
    for (const filters of cases) {
      expect(totalsIndex(filters)).toBe('bank_transactions_account_totals_idx');
      const { currencies, transactionTypes, amount, ...v0 } = filters;
      const matching = new Set(reference(v0));
      // |amount| from 100 to 500 EUR, in cents.
      const between = (minor: number) => Math.abs(minor) >= 10_000 && Math.abs(minor) <= 50_000;
      const expected = expectedTotals(
        records.filter(
          (r) =>
            matching.has(r.id) &&
            (!currencies || currencies.includes(parseMoney(r.amount).currency)) &&
            (!transactionTypes || transactionTypes.includes(r.transactionType)) &&
            (!amount || (parseMoney(r.amount).currency === 'EUR' && between(parseMoney(r.amount).minor))),
        ),
      );
      expect(transactionTotals(cache, filters), JSON.stringify(filters)).toEqual(expected);
      if (expected.count > 0) counted += 1;
    }
    expect(counted).toBe(6); // the other four match nothing
  });

  it('follow the data: a change to the cache is in the next totals', () => {
    const before = searchTransactions(cache, { filters: { freeText: 'lufthansa' } }).totals!.count;
    const extra = wireTransaction({
      id: 'bbbbbbbb-0000-4000-8000-000000000001',
      counterparty: 'Lufthansa Cargo',
    });
    upsertTransactions(cache, [extra]);
    expect(searchTransactions(cache, { filters: { freeText: 'lufthansa' } }).totals!.count).toBe(before + 1);
    cache.sqlite.prepare('DELETE FROM bank_transactions WHERE id = ?').run(extra.id);
    expect(searchTransactions(cache, { filters: { freeText: 'lufthansa' } }).totals!.count).toBe(before);
  });
});

describe('deleted rows', () => {
  it('are left out unless asked for', () => {
    const gone = records[42]!;
    upsertTransactions(cache, [gone], new Set([gone.id]));
    try {
      expect(ids({ filters: { ids: [gone.id] } })).toEqual([]);
      expect(all({ freeText: gone.id })).toEqual([]);
      const withDeleted = searchTransactions(cache, { filters: { ids: [gone.id], includeDeleted: true } });
      expect(withDeleted.rows.map((r) => r.id)).toEqual([gone.id]);
      expect(withDeleted.rows[0]?.deletedAt).not.toBeNull();
    } finally {
      upsertTransactions(cache, [gone]);
    }
  });
});

describe('review filters', () => {
  it('reviewed, flagged, has note and tag, each yes and no', () => {
    const [a, b, c] = [records[100]!.id, records[200]!.id, records[300]!.id];
    const window = { bookingDateFrom: '2000-01-01' };
    applyReview(cache, { by: 'ids', kind: 'transaction', ids: [a, b] }, { action: 'setReviewed' });
    applyReview(
      cache,
      { by: 'ids', kind: 'transaction', ids: [b] },
      { action: 'flag', reason: 'Missing receipt' },
    );
    applyReview(cache, { by: 'ids', kind: 'transaction', ids: [c] }, { action: 'setNote', note: 'Ask Anna' });
    applyReview(
      cache,
      { by: 'ids', kind: 'transaction', ids: [a, c] },
      { action: 'addTags', tags: ['Q3 audit'] },
    );
    try {
      expect(new Set(all({ ...window, reviewed: true }))).toEqual(new Set([a, b]));
      expect(all({ ...window, reviewed: false })).toHaveLength(records.length - 2);
      expect(all({ ...window, flagged: true })).toEqual([b]);
      expect(all({ ...window, flagged: false })).not.toContain(b);
      expect(all({ ...window, hasNote: true })).toEqual([c]);
      expect(all({ ...window, hasNote: false })).toHaveLength(records.length - 1);
      expect(new Set(all({ ...window, tag: '  q3   AUDIT ' }))).toEqual(new Set([a, c]));
      expect(all({ ...window, reviewed: true, tag: 'Q3 audit' })).toEqual([a]);
      const row = searchTransactions(cache, { filters: { ids: [b] } }).rows[0]!;
      expect(row.review).toMatchObject({ flagged: true, flagReason: 'Missing receipt', tags: [] });
      expect(row.review.reviewedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    } finally {
      cache.sqlite.exec('DELETE FROM review_marks; DELETE FROM review_tags;');
    }
  });
});
