import { afterEach, describe, expect, it } from 'vitest';
import type {
  TransactionFilters,
  TransactionRow,
  TransactionSearchResult,
  TransactionSorting,
  TransactionSortField,
} from '../../../src-shared/search';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import { connectedCore, type Sandbox } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// `transactions.position` through the real handler table, over a cache filled by a real sync of
// the sandbox: the place it answers is the record's index in the whole ordered result as the
// pages give it, in every order the table offers, ties and empty values included.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

type Handlers = ReturnType<typeof createHandlers>;

/**
 * A core synced once from a fresh sandbox of `transactions`; `before` may change what the
 * sandbox serves first.
 */
async function synced(transactions: number, before?: (sandbox: Sandbox) => void) {
  const setup = await connectedCore(tempDir(), { transactions, readLimit: 1_000_000 });
  cleanups.push(setup.close);
  before?.(setup.sandbox);
  const handlers = createHandlers(setup.core);
  const profileId = setup.profile.id;
  expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({ ok: true });
  return { ...setup, handlers, profileId };
}

/**
 * Records served without some of their columns (the wire leaves them out; the cache holds
 * null), two alike for each, so that empty values tie; and one amount in several
 * currencies, so that the amount sort, by minor units, ties across currencies.
 */
function withGaps(sandbox: Sandbox): void {
  const control = sandbox.control;
  if (!control) throw new Error('the sandbox was started without its control surface');
  const records = sandbox.state.table;
  const gaps = [
    { valueDate: undefined },
    { counterparty: undefined },
    { description: undefined },
    { transactionType: undefined },
    { valueDate: undefined, counterparty: undefined, description: undefined, transactionType: undefined },
    { amount: { amount: '-12.34', currency: 'EUR' } },
    { amount: { amount: '-12.34', currency: 'GBP' } },
    { amount: { amount: '-1234', currency: 'JPY' } },
  ];
  gaps.forEach((patch, i) =>
    [0, 1].forEach((twice) => {
      const id = records.idOf(100 + i * 37 + twice * 500);
      control.corruptRecord({ resource: 'bankTransactions', id, patch });
    }),
  );
}

async function position(
  handlers: Handlers,
  profileId: string,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  id: string,
): Promise<number | null> {
  const answer = await dispatch(handlers, 'transactions.position', { profileId, filters, sorting, id });
  if (!answer.ok) throw new Error(`transactions.position failed: ${JSON.stringify(answer.error)}`);
  return (answer.value as { index: number | null }).index;
}

/** The whole result of `filters` in `sorting` order, read page by page as the table reads it. */
async function wholeResult(
  handlers: Handlers,
  profileId: string,
  filters: TransactionFilters,
  sorting: TransactionSorting,
): Promise<TransactionRow[]> {
  const rows: TransactionRow[] = [];
  for (let page = 1; ; page++) {
    const answer = await dispatch(handlers, 'transactions.search', {
      profileId,
      search: { filters, sorting, pagination: { page, pageSize: 500 }, withTotals: false },
    });
    if (!answer.ok) throw new Error('a search failed');
    const { rows: more } = answer.value as TransactionSearchResult;
    rows.push(...more);
    if (more.length < 500) return rows;
  }
}

/** The value a row sorts by (its first key), to find ties and empty values. */
function sortValue(row: TransactionRow, field: TransactionSortField): unknown {
  if (field === 'amount') return row.amount.minor;
  return row[field];
}

/**
 * The rows whose place is asked: both ends, a spread over the result, every row of the
 * first tie group (rows sharing the sort value, so that only the id orders them) and the
 * first and last row with no value (SQLite puts those first in ascending order, last in
 * descending).
 */
function asked(rows: TransactionRow[], field: TransactionSortField): number[] {
  const places = new Set<number>([0, rows.length - 1]);
  const step = Math.max(1, Math.floor(rows.length / 25));
  for (let i = step; i < rows.length; i += step) places.add(i);
  const tie = rows.findIndex(
    (row, i) => i > 0 && sortValue(row, field) === sortValue(rows[i - 1] as TransactionRow, field),
  );
  for (let i = Math.max(0, tie - 1); tie > 0 && i < rows.length; i++) {
    if (sortValue(rows[i] as TransactionRow, field) !== sortValue(rows[tie] as TransactionRow, field)) break;
    places.add(i);
  }
  const empty = rows.flatMap((row, i) => (sortValue(row, field) === null ? [i] : []));
  if (empty.length > 0) {
    places.add(empty[0] as number);
    places.add(empty[empty.length - 1] as number);
  }
  return [...places].filter((i) => i >= 0 && i < rows.length);
}

const SORTINGS: TransactionSorting[] = [
  { field: 'bookingDate', direction: 'DESC' },
  { field: 'bookingDate', direction: 'ASC' },
  { field: 'valueDate', direction: 'ASC' },
  { field: 'valueDate', direction: 'DESC' },
  { field: 'amount', direction: 'ASC' },
  { field: 'amount', direction: 'DESC' },
  { field: 'counterparty', direction: 'ASC' },
  { field: 'counterparty', direction: 'DESC' },
  { field: 'description', direction: 'ASC' },
  { field: 'transactionType', direction: 'DESC' },
  { field: 'bankAccountId', direction: 'ASC' },
  { field: 'matched', direction: 'DESC' },
  { field: 'id', direction: 'ASC' },
];

describe('transactions.position', () => {
  it('answers the index of the record in the whole ordered result, or null when it is not there', async () => {
    const { handlers, profileId, sandbox, core } = await synced(2_000, withGaps);
    const control = sandbox.control;
    if (!control) throw new Error('the sandbox was started without its control surface');
    // A record the sandbox removed: sync's repair marks it deleted in the cache.
    const all = await wholeResult(handlers, profileId, {}, { field: 'id', direction: 'ASC' });
    const gone = all[700] as TransactionRow;
    control.deleteTransaction(gone.id);
    expect(await dispatch(handlers, 'sync.start', { profileId, full: true })).toMatchObject({ ok: true });
    const deletedAt = core
      .cacheOf(profileId)
      .sqlite.prepare('SELECT deleted_at FROM bank_transactions WHERE id = ?')
      .pluck()
      .get(gone.id);
    expect(deletedAt).not.toBeNull();

    // The cache holds the empty values and the amount ties the sandbox was made to serve.
    const empty = (column: string) =>
      core
        .cacheOf(profileId)
        .sqlite.prepare(`SELECT count(*) FROM bank_transactions WHERE ${column} IS NULL`)
        .pluck()
        .get();
    for (const column of ['value_date', 'counterparty', 'description', 'transaction_type'])
      expect(empty(column), column).toBe(4);
    expect(all.filter((row) => row.amount.minor === -1234).length).toBeGreaterThanOrEqual(6);

    const account = all[0]?.bankAccountId as string;
    const currency = all[0]?.amount.currency as string;
    const filterSets: TransactionFilters[] = [
      {},
      { matched: false },
      { accountIds: [account.toUpperCase()], bookingDateFrom: '2000-01-01' },
      { freeText: 'an' },
      { freeText: 'gmbh' },
      { currencies: [currency], amount: { currency, min: '-100.00' } },
      { includeDeleted: true },
    ];
    let asks = 0;
    for (const filters of filterSets)
      for (const sorting of SORTINGS) {
        const rows = await wholeResult(handlers, profileId, filters, sorting);
        const what = JSON.stringify({ filters, sorting });
        expect(rows.length, what).toBeGreaterThan(0);
        for (const i of asked(rows, sorting.field)) {
          const id = (rows[i] as TransactionRow).id;
          expect(await position(handlers, profileId, filters, sorting, id), `${what} ${id}`).toBe(i);
          asks += 1;
        }
        // Ids are case-insensitive, as in the search's own id filter.
        const last = rows[rows.length - 1] as TransactionRow;
        expect(await position(handlers, profileId, filters, sorting, last.id.toUpperCase())).toBe(
          rows.length - 1,
        );
        // The deleted record: in the result only when deleted rows are asked for.
        const deletedPlace = rows.findIndex((row) => row.id === gone.id);
        expect(await position(handlers, profileId, filters, sorting, gone.id), what).toBe(
          deletedPlace >= 0 ? deletedPlace : null,
        );
        expect(deletedPlace >= 0, what).toBe(filters.includeDeleted === true);
      }
    expect(asks).toBeGreaterThan(filterSets.length * SORTINGS.length * 20);

    // Records the search does not hold: filtered out, outside the ids asked for, no such id.
    const matched = all.find((row) => row.matched) as TransactionRow;
    expect(await position(handlers, profileId, { matched: false }, SORTINGS[0]!, matched.id)).toBeNull();
    const other = all[5] as TransactionRow;
    expect(
      await position(handlers, profileId, { ids: [all[3]!.id, all[4]!.id] }, SORTINGS[0]!, other.id),
    ).toBeNull();
    expect(
      await position(
        handlers,
        profileId,
        { ids: [all[4]!.id, other.id.toUpperCase()] },
        SORTINGS[4]!,
        other.id,
      ),
    ).toBe(
      (await wholeResult(handlers, profileId, { ids: [all[4]!.id, other.id] }, SORTINGS[4]!)).findIndex(
        (row) => row.id === other.id,
      ),
    );
    expect(await position(handlers, profileId, {}, SORTINGS[0]!, 'no-such-transaction')).toBeNull();
    expect(await position(handlers, profileId, { freeText: 'zzqqxx' }, SORTINGS[0]!, other.id)).toBeNull();
  });

  it('finds records past the first 20,000 rows from the whole ordered list', async () => {
    const { handlers, profileId } = await synced(30_000);
    for (const [filters, sorting] of [
      [{}, { field: 'bookingDate', direction: 'DESC' }],
      [{}, { field: 'amount', direction: 'ASC' }],
      [{ freeText: 'e' }, { field: 'counterparty', direction: 'DESC' }],
    ] as Array<[TransactionFilters, TransactionSorting]>) {
      const what = JSON.stringify({ filters, sorting });
      // The last row of the result is the first of the other direction (every key, the id and
      // the empty values' place included, reverses): found before any deep page is read, so
      // the place is timed as the pane asks it after a new order, nothing remembered yet.
      const reversed = { ...sorting, direction: sorting.direction === 'ASC' ? 'DESC' : 'ASC' } as const;
      const firstOfReversed = await dispatch(handlers, 'transactions.search', {
        profileId,
        search: { filters, sorting: reversed, pagination: { page: 1, pageSize: 1 }, withTotals: true },
      });
      if (!firstOfReversed.ok) throw new Error('a search failed');
      const { rows: lastRows, totals } = firstOfReversed.value as TransactionSearchResult;
      const lastId = (lastRows[0] as TransactionRow).id;
      // Timed once, for the record (no assertion on it).
      const started = performance.now();
      const place = await position(handlers, profileId, filters, sorting, lastId);
      const took = performance.now() - started;
      console.log(
        `transactions.position, ${totals?.count} rows, ${what}: the last row in ${took.toFixed(1)} ms`,
      );

      const rows = await wholeResult(handlers, profileId, filters, sorting);
      expect(rows.length, what).toBeGreaterThan(21_000);
      const last = rows.length - 1;
      expect(rows[last]?.id, what).toBe(lastId);
      expect(place, what).toBe(last);
      for (const i of [19_999, 20_000, 20_001, Math.floor((20_000 + last) / 2), last - 1])
        expect(
          await position(handlers, profileId, filters, sorting, (rows[i] as TransactionRow).id),
          what,
        ).toBe(i);
    }
    // Most of the time is the first sync of 30,000 transactions, not the positions.
  }, 120_000);
});
