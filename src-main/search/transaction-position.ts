import type Database from 'better-sqlite3';
import type { TransactionFilters, TransactionSorting } from '../../src-shared/search';
import { DEEP_OFFSET, pageQuery, pageRowIds, rememberedOrder, wholeOrder } from './transaction-page';
import { transactionWhere } from './transaction-where';

/**
 * Where transaction `id` (case-insensitive) is in the result of `filters` in `sorting` order,
 * counted from 0, or null when the result does not hold it (another search, a deleted row
 * without `includeDeleted`, no such id). The Transactions pane keeps its record after a new
 * search or order by asking this once (docs/search-and-review.md, "A record's place").
 *
 * The place is read from the same ordered rows the pages are cut from, never computed apart
 * from them: first whether the search holds the record at all (the page plans, with the id
 * as one more filter), then the whole ordered list if it is remembered (a deep page of the
 * same search was read), else the first DEEP_OFFSET rows of the order (one page's plan), and
 * only past those the whole ordered list, which the deep page the table scrolls to next is a
 * slice of.
 */
export function transactionPosition(
  sqlite: Database.Database,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  id: string,
): number | null {
  const same = (other: string) => other.toLowerCase() === id.toLowerCase();
  if (filters.ids && !filters.ids.some(same)) return null;
  const [rowId] = pageRowIds(sqlite, { ...filters, ids: [id] }, sorting, { page: 1, pageSize: 1 });
  if (rowId === undefined) return null;
  // The whole ordered list already remembered (the table read a deep page of this search, or
  // asked a deep record's place): the place is in it, and nothing more is read.
  const known = rememberedOrder(sqlite, filters, sorting);
  if (known) {
    const place = known.indexOf(rowId);
    return place >= 0 ? place : null;
  }
  const first = pageRowIds(sqlite, filters, sorting, { page: 1, pageSize: DEEP_OFFSET });
  const early = first.indexOf(rowId);
  if (early >= 0) return early;
  if (first.length < DEEP_OFFSET) return null;
  const place = wholeOrder(sqlite, filters, sorting, () => {
    const where = transactionWhere(sqlite, filters);
    return { sql: pageQuery(where, sorting), params: where.params };
  }).indexOf(rowId);
  return place >= 0 ? place : null;
}
