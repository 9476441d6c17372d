import { AppError } from '../../src-shared/errors';
import { formatAmount } from '../../src-shared/money';
import {
  TransactionSearch,
  type SearchTotals,
  type TransactionFilters,
  type TransactionRow,
  type TransactionSearchInput,
  type TransactionSearchResult,
} from '../../src-shared/search';
import type Database from 'better-sqlite3';
import type { CacheDb } from '../store';
import { memoized } from './memo';
import { reviewColumns, reviewJoin, reviewState, type ReviewColumns } from './review-filters';
import { inList, prepared, safeNumber, type SqlPart } from './sql';
import { pageRowIds } from './transaction-page';
import { setFilters, transactionWhere } from './transaction-where';

/**
 * Local transaction search: one page of rows in a total order, plus the count and per-currency
 * sums of the whole result. Which rows form the page is decided in transaction-page.ts (index
 * walks, a text window, the trigram index); this file reads those rows with their review
 * state. Totals scan the whole result once per filter set and data version (memo.ts), so
 * turning pages does not repeat them.
 */

const COLUMNS = `t.id AS id, t.bank_account_id AS bankAccountId, t.transaction_type AS transactionType,
  t.amount_minor AS amountMinor, t.amount_currency AS amountCurrency, t.booking_date AS bookingDate,
  t.value_date AS valueDate, t.description AS description, t.counterparty AS counterparty,
  t.group_id AS groupId, t.bank_account_number AS bankAccountNumber, t.matched AS matched,
  t.deleted_at AS deletedAt, t.row_id AS rowId, ${reviewColumns('transaction', 't.id')}`;

interface RawRow extends ReviewColumns {
  rowId: number;
  id: string;
  bankAccountId: string;
  transactionType: string | null;
  amountMinor: number;
  amountCurrency: string;
  bookingDate: string;
  valueDate: string | null;
  description: string | null;
  counterparty: string | null;
  groupId: string | null;
  bankAccountNumber: string | null;
  matched: number;
  deletedAt: string | null;
}

/** Searches the cache; `query` is parsed with the shared schema (defaults filled, input checked). */
export function searchTransactions(cache: CacheDb, query: TransactionSearchInput): TransactionSearchResult {
  const search = TransactionSearch.parse(query);
  const rows = transactionPage(cache, search);
  const { page, pageSize } = search.pagination;
  if (!search.withTotals) return { rows, page, pageSize };
  return { rows, page, pageSize, totals: transactionTotals(cache, search.filters) };
}

function transactionPage(cache: CacheDb, search: TransactionSearch): TransactionRow[] {
  return transactionsByRowId(
    cache,
    pageRowIds(cache.sqlite, search.filters, search.sorting, search.pagination),
  );
}

/** The rows of these row_ids with their review state, in the order given (up to 1,000 ids). */
export function transactionsByRowId(cache: CacheDb, ids: readonly number[]): TransactionRow[] {
  if (ids.length === 0) return [];
  const list = inList('p_row', ids);
  const text = `SELECT ${COLUMNS} FROM bank_transactions t ${reviewJoin('transaction', 't.id')}
    WHERE t.row_id IN ${list.sql}`;
  const byRowId = new Map(
    (prepared(cache.sqlite, text).all(list.params) as RawRow[]).map((row) => [row.rowId, row]),
  );
  return ids.flatMap((id) => {
    const row = byRowId.get(id);
    return row ? [toRow(row)] : [];
  });
}

function toRow(row: RawRow): TransactionRow {
  return {
    id: row.id,
    bankAccountId: row.bankAccountId,
    transactionType: row.transactionType,
    amount: { minor: row.amountMinor, currency: row.amountCurrency },
    bookingDate: row.bookingDate,
    valueDate: row.valueDate,
    description: row.description,
    counterparty: row.counterparty,
    groupId: row.groupId,
    bankAccountNumber: row.bankAccountNumber,
    matched: row.matched === 1,
    deletedAt: row.deletedAt,
    review: reviewState(row),
  };
}

/**
 * The totals' statement: count and sum per currency of the filters' rows, from one of two
 * indexes of the live rows' amounts when one holds every column the filters test:
 * - `bank_transactions_totals_idx` (currency, amount): no filter, currencies, an amount
 *   range — read in currency order, the order of the grouping;
 * - `bank_transactions_account_totals_idx` (account, matched, booking date, type, currency,
 *   amount): any of those filters besides — named with `INDEXED BY`, as SQLite otherwise
 *   prefers the filter's own index and a lookup in the table per row (one account of a
 *   million: 1.3-1.8 s against 0.18 s from this index).
 * Only then does the statement say `deleted_at IS NULL`, the indexes' own condition (the
 * filters' `NOT IN` already leaves deleted rows out). With any other filter (ids, review
 * state, text, deleted rows) it does not, so neither index can be used: SQLite would walk the
 * totals index for its currency order and look each entry up in the table (a year of booking
 * dates before the second index: 6 s, against 0.9-1.2 s without it). Page
 * queries never say it either.
 */
export function totalsQuery(sqlite: Database.Database, filters: TransactionFilters): SqlPart {
  const where = transactionWhere(sqlite, filters);
  const index = totalsIndex(filters);
  const from =
    index === 'bank_transactions_account_totals_idx'
      ? `bank_transactions t INDEXED BY ${index}`
      : 'bank_transactions t';
  const live = index === null ? '' : ' AND t.deleted_at IS NULL';
  return {
    sql: `SELECT t.amount_currency AS currency, count(*) AS count, sum(t.amount_minor) AS minor
      FROM ${from} WHERE (${where.sql})${live} GROUP BY t.amount_currency ORDER BY t.amount_currency`,
    params: where.params,
  };
}

/** The filters each totals index holds the columns of (its rows are the live ones). */
const TOTALS_INDEXES = [
  { name: 'bank_transactions_totals_idx', filters: new Set(['currencies', 'amount']) },
  {
    name: 'bank_transactions_account_totals_idx',
    filters: new Set([
      'currencies',
      'amount',
      'accountIds',
      'matched',
      'bookingDateFrom',
      'bookingDateTo',
      'transactionTypes',
    ]),
  },
] as const;

/** The first totals index that answers the filters alone, or null. */
export function totalsIndex(filters: TransactionFilters): (typeof TOTALS_INDEXES)[number]['name'] | null {
  const set = setFilters(filters);
  return TOTALS_INDEXES.find((index) => set.every((key) => index.filters.has(key)))?.name ?? null;
}

/**
 * A currency's sum as a safe JS integer. Beyond that (2^53 minor units: 90 trillion euros, but
 * reachable over years of a currency with many units to the dollar) it is refused, never
 * rounded, in words that say how to get totals: a smaller search.
 */
function exactSum(minor: bigint, currency: string): number {
  const sum = Number(minor);
  if (Number.isSafeInteger(sum)) return sum;
  const most = `${formatAmount(Number.MAX_SAFE_INTEGER, currency)} ${currency}`;
  throw new AppError(
    'VALIDATION_ERROR',
    `The ${currency} total of this search is beyond ${most}, more than Satchel can add up exactly. Narrow the search (dates, accounts, an amount range) to see its totals.`,
  );
}

/**
 * Count and per-currency sums of everything the filters match. Sums are read as bigint and
 * must be safe JS integers (about 90 trillion EUR); anything larger is an error, not a
 * rounded figure.
 */
export function transactionTotals(cache: CacheDb, filters: TransactionFilters): SearchTotals {
  return totalsOf(cache.sqlite, filters);
}

/**
 * {@link transactionTotals} on any connection to a cache: the app's own, or the read-only one
 * of the totals thread (background-totals.ts), which needs no Drizzle and no migrations.
 */
export function totalsOf(sqlite: Database.Database, filters: TransactionFilters): SearchTotals {
  return memoized(sqlite, 'transaction-totals', JSON.stringify(filters), () => {
    const query = totalsQuery(sqlite, filters);
    const statement = prepared(sqlite, query.sql);
    let rows: { currency: string; count: bigint; minor: bigint }[];
    try {
      rows = statement.safeIntegers(true).all(query.params) as typeof rows;
    } finally {
      statement.safeIntegers(false); // the statement is shared (prepared): leave it as it was
    }
    const sums = rows.map((row) => ({
      currency: row.currency,
      minor: exactSum(row.minor, row.currency),
      count: safeNumber(row.count),
    }));
    return { count: sums.reduce((total, sum) => total + sum.count, 0), sums };
  });
}
