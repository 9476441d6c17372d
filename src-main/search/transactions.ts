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
import { transactionWhere } from './transaction-where';

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
 * The totals' statement: count and sum per currency of the filters' rows. When the totals
 * index (`bank_transactions_totals_idx`: currency and amount of the live rows) answers the
 * filters alone — currencies and amounts only — the statement says `deleted_at IS NULL`, the
 * index's own condition, so that SQLite may read the sums from it in currency order; the
 * filters' `NOT IN` already leaves deleted rows out. With any other filter it does not say
 * it, so the index cannot be used: SQLite would walk it for its order and look each of its
 * entries up in the table (a year of booking dates on a million rows: 6 s, against 0.9–1.2 s
 * without it). Page queries never say it either.
 */
export function totalsQuery(sqlite: Database.Database, filters: TransactionFilters): SqlPart {
  const where = transactionWhere(sqlite, filters);
  const live = totalsIndexAlone(filters) ? ' AND t.deleted_at IS NULL' : '';
  return {
    sql: `SELECT t.amount_currency AS currency, count(*) AS count, sum(t.amount_minor) AS minor
      FROM bank_transactions t WHERE (${where.sql})${live} GROUP BY t.amount_currency ORDER BY t.amount_currency`,
    params: where.params,
  };
}

/**
 * Filters the totals index answers alone: nothing but currencies and an amount range, over
 * live rows (the index holds no others).
 */
const TOTALS_INDEX_FILTERS: ReadonlySet<string> = new Set(['currencies', 'amount']);

function totalsIndexAlone(filters: TransactionFilters): boolean {
  return Object.entries(filters).every(
    ([key, value]) =>
      value === undefined ||
      TOTALS_INDEX_FILTERS.has(key) ||
      (key === 'includeDeleted' && value === false) ||
      (key === 'freeText' && typeof value === 'string' && value.trim() === ''),
  );
}

/**
 * Count and per-currency sums of everything the filters match. Sums are read as bigint and
 * must be safe JS integers (about 90 trillion EUR); anything larger is an error, not a
 * rounded figure.
 */
export function transactionTotals(cache: CacheDb, filters: TransactionFilters): SearchTotals {
  return memoized(cache.sqlite, 'transaction-totals', JSON.stringify(filters), () => {
    const query = totalsQuery(cache.sqlite, filters);
    const statement = prepared(cache.sqlite, query.sql);
    const rows = statement.safeIntegers(true).all(query.params) as {
      currency: string;
      count: bigint;
      minor: bigint;
    }[];
    statement.safeIntegers(false);
    const sums = rows.map((row) => ({
      currency: row.currency,
      minor: safeNumber(row.minor),
      count: safeNumber(row.count),
    }));
    return { count: sums.reduce((total, sum) => total + sum.count, 0), sums };
  });
}
