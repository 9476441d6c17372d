import { DEFAULT_PAGE_SIZE, type SearchV0Request, type TransactionSortField } from '../../src-shared/api';
import type { TransactionTable } from '../data/transactions';
import { dayFromIso } from '../data/time';
import { ascendingOrder, compareRows, rowAt, type RowOrder } from './order';
import { textMasks } from './text';

/**
 * Bank-transaction search over the columnar table, independent of HTTP: the v0 semantics
 * (every filter optional, AND between them) that v1 reuses with its dates required. Rows
 * come out in the requested order, ties broken by id; `total` counts every match.
 *
 * Semantics, shared with `v0-records.ts` (the plain reference the fast path is tested against):
 * - `ids`: exact id match, case-insensitive; unknown ids match nothing.
 * - booking dates: inclusive bounds; either may be omitted.
 * - `accountIds`: the transaction's bankAccountId is one of them; unknown ids match nothing.
 * - `matched`: equality.
 * - `freeText`: trimmed, case-insensitive substring of id, groupId, counterparty or
 *   bankAccountNumber; blank means no filter.
 * - deleted rows never match.
 *
 * Speed: the full match list of a (filters, sort field) pair is computed by one tight scan
 * and cached until the table changes, so turning pages costs only the slice.
 */

export type Filters = Omit<SearchV0Request, 'pagination' | 'sorting'>;

export interface SearchOptions {
  filters: Filters;
  sorting?: { field: TransactionSortField; direction: 'ASC' | 'DESC' } | undefined;
  pagination?: { page: number; pageSize: number } | undefined;
}

export interface SearchResult {
  rows: number[];
  total: number;
  page: number;
  pageSize: number;
}

const CACHE_ENTRIES = 16;
const caches = new WeakMap<TransactionTable, Map<string, { revision: number; rows: Uint32Array }>>();

export function searchTransactions(table: TransactionTable, options: SearchOptions): SearchResult {
  const page = options.pagination?.page ?? 1;
  const pageSize = options.pagination?.pageSize ?? DEFAULT_PAGE_SIZE;
  const field = options.sorting?.field ?? 'bookingDate';
  const descending = (options.sorting?.direction ?? 'DESC') === 'DESC';
  const matches = matchingRows(table, options.filters, field);
  const total = matches.length;
  const start = (page - 1) * pageSize;
  const rows: number[] = [];
  for (let k = start; k < Math.min(total, start + pageSize); k++) {
    rows.push(matches[descending ? total - 1 - k : k] ?? 0);
  }
  return { rows, total, page, pageSize };
}

/** Every matching row in ascending (field, id) order, from the cache when the table has not changed. */
function matchingRows(table: TransactionTable, filters: Filters, field: TransactionSortField): Uint32Array {
  let cache = caches.get(table);
  if (!cache) caches.set(table, (cache = new Map()));
  const key = JSON.stringify([
    field,
    filters.ids,
    filters.bookingDateFrom,
    filters.bookingDateTo,
    filters.accountIds,
    filters.matched,
    filters.freeText,
  ]);
  const hit = cache.get(key);
  if (hit && hit.revision === table.revision()) {
    cache.delete(key);
    cache.set(key, hit); // most recently used last
    return hit.rows;
  }
  const rows = filters.ids ? byIds(table, filters, field) : scan(table, filters, field);
  cache.set(key, { revision: table.revision(), rows });
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return rows;
}

function byIds(table: TransactionTable, filters: Filters, field: TransactionSortField): Uint32Array {
  const test = rowTest(table, filters);
  const rows = [...new Set((filters.ids ?? []).map(table.rowOf))].filter((row) => row >= 0 && test(row));
  rows.sort(compareRows(table, field));
  return Uint32Array.from(rows);
}

/**
 * One pass over the order (restricted by binary search when sorting by booking date). The
 * predicate is inlined over local typed arrays: this loop is the whole cost of a new query.
 */
function scan(table: TransactionTable, filters: Filters, field: TransactionSortField): Uint32Array {
  const order = ascendingOrder(table, field);
  const [low, high] = field === 'bookingDate' ? dateSpan(table, order, filters) : [0, order.length];
  const {
    deleted,
    bookingDay: day,
    account,
    matched,
    counterparty,
    bankAccountNumber,
    group,
  } = table.columns();
  const from = filters.bookingDateFrom ? dayFromIso(filters.bookingDateFrom) : -Infinity;
  const to = filters.bookingDateTo ? dayFromIso(filters.bookingDateTo) : Infinity;
  const accounts = filters.accountIds ? accountMask(table, filters.accountIds) : null;
  const wantMatched = filters.matched === undefined ? -1 : filters.matched ? 1 : 0;
  const text = textMasks(table, filters.freeText);
  const cp = text?.counterparty;
  const ban = text?.accountNumber;
  const ids = text?.ids ?? null;
  const groups = text?.groups ?? null;
  const rows = order.rows;
  let out = new Uint32Array(1024);
  let count = 0;
  for (let p = low; p < high; p++) {
    const row = rows === null ? p : (rows[p] as number);
    if (deleted[row] === 1) continue;
    const d = day[row] as number;
    if (d < from || d > to) continue;
    if (accounts !== null && accounts[account[row] as number] !== 1) continue;
    if (wantMatched >= 0 && matched[row] !== wantMatched) continue;
    if (
      cp !== undefined &&
      ban !== undefined &&
      cp[counterparty[row] as number] !== 1 &&
      ban[bankAccountNumber[row] as number] !== 1 &&
      (ids === null || ids[row] !== 1) &&
      (groups === null || groups[group[row] as number] !== 1)
    )
      continue;
    if (count === out.length) {
      const bigger = new Uint32Array(out.length * 2);
      bigger.set(out);
      out = bigger;
    }
    out[count++] = row;
  }
  return out.slice(0, count);
}

function rowTest(table: TransactionTable, filters: Filters): (row: number) => boolean {
  const {
    deleted,
    bookingDay: day,
    account,
    matched,
    counterparty,
    bankAccountNumber,
    group,
  } = table.columns();
  const from = filters.bookingDateFrom ? dayFromIso(filters.bookingDateFrom) : -Infinity;
  const to = filters.bookingDateTo ? dayFromIso(filters.bookingDateTo) : Infinity;
  const accounts = filters.accountIds ? accountMask(table, filters.accountIds) : null;
  const wantMatched = filters.matched === undefined ? -1 : filters.matched ? 1 : 0;
  const text = textMasks(table, filters.freeText);
  return (row) => {
    if (deleted[row] === 1) return false;
    const d = day[row] as number;
    if (d < from || d > to) return false;
    if (accounts !== null && accounts[account[row] as number] !== 1) return false;
    if (wantMatched >= 0 && matched[row] !== wantMatched) return false;
    if (text === null) return true;
    return (
      text.counterparty[counterparty[row] as number] === 1 ||
      text.accountNumber[bankAccountNumber[row] as number] === 1 ||
      (text.ids !== null && text.ids[row] === 1) ||
      (text.groups !== null && text.groups[group[row] as number] === 1)
    );
  };
}

function accountMask(table: TransactionTable, accountIds: string[]): Uint8Array {
  const wanted = new Set(accountIds.map((id) => id.toLowerCase()));
  return Uint8Array.from(table.wallets, (wallet) => (wanted.has(wallet.id) ? 1 : 0));
}

/** Positions [low, high) of the bookingDate order inside the date bounds, by binary search. */
function dateSpan(table: TransactionTable, order: RowOrder, filters: Filters): [number, number] {
  const days = table.columns().bookingDay;
  const firstAtLeast = (day: number): number => {
    let low = 0;
    let high = order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((days[rowAt(order, mid)] ?? 0) < day) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  const low = filters.bookingDateFrom ? firstAtLeast(dayFromIso(filters.bookingDateFrom)) : 0;
  const high = filters.bookingDateTo ? firstAtLeast(dayFromIso(filters.bookingDateTo) + 1) : order.length;
  return [low, Math.max(low, high)];
}
