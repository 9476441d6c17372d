import type Database from 'better-sqlite3';
import {
  ExpenseSearch,
  type ExpenseFilters,
  type ExpenseRow,
  type ExpenseSearchInput,
  type ExpenseSearchResult,
  type ExpenseSortField,
  type ExpenseSorting,
} from '../../src-shared/search';
import type { CacheDb } from '../store';
import { memoized } from './memo';
import {
  reviewColumns,
  reviewConditions,
  reviewJoin,
  reviewState,
  type ReviewColumns,
} from './review-filters';
import { allOf, caseVariants, inList, offsetOf, prepared, type SqlPart } from './sql';
import { containsAny, searchText } from './text';

/**
 * Expense search: case-insensitive substring of the description, booking text, merchant
 * name, supplier name or any line's description (kept in the line's raw record), plus the
 * review filters and "has a file". Expenses number in the tens of thousands, not millions,
 * so text is a scan (LIKE, or JS folding for non-ASCII text; see text.ts).
 */

const SORT_KEYS: Record<ExpenseSortField, string[]> = {
  expenseTime: ['e.expense_time', 'e.id'],
  updateTime: ['e.update_time', 'e.id'],
  amount: ['e.amount_minor', 'e.id'],
  id: ['e.id'],
};

/** A live file of the expense, attached to the expense itself or to one of its lines. */
const HAS_FILE = `EXISTS (SELECT 1 FROM expense_files f WHERE f.deleted_at IS NULL AND (f.expense_id = e.id
  OR f.expense_line_id IN (SELECT l.id FROM expense_lines l WHERE l.expense_id = e.id)))`;

/** The WHERE clause over `expenses e`, shared with bulk review marking. */
export function expenseWhere(sqlite: Database.Database, filters: ExpenseFilters): SqlPart {
  const parts: SqlPart[] = [];
  if (!filters.includeDeleted) parts.push({ sql: 'e.deleted_at IS NULL', params: {} });
  if (filters.ids) {
    const list = inList('x_id', caseVariants(filters.ids));
    parts.push({ sql: `e.id IN ${list.sql}`, params: list.params });
  }
  const text = searchText(filters.text);
  if (text !== '') parts.push(expenseText(sqlite, text));
  parts.push(...reviewConditions('expense', 'e.id', filters));
  if (filters.hasFile !== undefined)
    parts.push({ sql: `${filters.hasFile ? '' : 'NOT '}${HAS_FILE}`, params: {} });
  if (filters.bookedOn)
    // From the item to its lines (the (dimension_id, dimension_item_id) index), not per expense.
    parts.push({
      sql: `e.id IN (SELECT l.expense_id FROM expense_line_dimensions d JOIN expense_lines l ON l.id = d.line_id
        WHERE d.dimension_id = @x_dimension AND d.dimension_item_id = @x_item)`,
      params: { x_dimension: filters.bookedOn.dimensionId, x_item: filters.bookedOn.itemId },
    });
  if (filters.expenseAccountId !== undefined)
    parts.push({
      sql: 'e.id IN (SELECT l.expense_id FROM expense_lines l WHERE l.expense_account_id = @x_account)',
      params: { x_account: filters.expenseAccountId },
    });
  return allOf(parts);
}

function expenseText(sqlite: Database.Database, text: string): SqlPart {
  const own = containsAny(sqlite, ['e.description', 'e.booking_text', 'e.merchant_name'], text, 'x_text');
  const supplier = containsAny(sqlite, ['s.name'], text, 'x_text');
  const line = containsAny(sqlite, [`json_extract(l.raw, '$.description')`], text, 'x_text');
  return {
    sql: `${own.sql}
      OR EXISTS (SELECT 1 FROM suppliers s WHERE s.id = e.supplier_id AND (${supplier.sql}))
      OR EXISTS (SELECT 1 FROM expense_lines l WHERE l.expense_id = e.id AND (${line.sql}))`,
    params: own.params,
  };
}

const COLUMNS = `e.id AS id, e.type AS type, e.status AS status, e.description AS description,
  e.booking_text AS bookingText, e.supplier_id AS supplierId, s.name AS supplierName,
  e.merchant_name AS merchantName, e.amount_minor AS amountMinor, e.amount_currency AS amountCurrency,
  e.expense_time AS expenseTime, e.deleted_at AS deletedAt,
  (SELECT count(*) FROM expense_files f WHERE f.deleted_at IS NULL AND (f.expense_id = e.id
     OR f.expense_line_id IN (SELECT l.id FROM expense_lines l WHERE l.expense_id = e.id))) AS fileCount,
  ${reviewColumns('expense', 'e.id')}`;

interface RawRow extends ReviewColumns {
  id: string;
  type: string | null;
  status: string | null;
  description: string | null;
  bookingText: string | null;
  supplierId: string | null;
  supplierName: string | null;
  merchantName: string | null;
  amountMinor: number | null;
  amountCurrency: string | null;
  expenseTime: string | null;
  deletedAt: string | null;
  fileCount: number;
}

function expenseOrder(sorting: ExpenseSorting): string {
  return SORT_KEYS[sorting.field].map((key) => `${key} ${sorting.direction}`).join(', ');
}

export function searchExpenses(cache: CacheDb, query: ExpenseSearchInput): ExpenseSearchResult {
  const search = ExpenseSearch.parse(query);
  const where = expenseWhere(cache.sqlite, search.filters);
  const order = expenseOrder(search.sorting);
  const text = `SELECT ${COLUMNS}
    FROM (SELECT e.id FROM expenses e WHERE ${where.sql} ORDER BY ${order} LIMIT @limit OFFSET @offset) p
    JOIN expenses e ON e.id = p.id
    LEFT JOIN suppliers s ON s.id = e.supplier_id
    ${reviewJoin('expense', 'e.id')}
    ORDER BY ${order}`;
  const rows = prepared(cache.sqlite, text).all({
    ...where.params,
    limit: search.pagination.pageSize,
    offset: offsetOf(search.pagination),
  }) as RawRow[];
  const total = expenseCount(cache, search.filters);
  return { rows: rows.map(toRow), page: search.pagination.page, pageSize: search.pagination.pageSize, total };
}

/** The ids of every expense the filters match, in the sort's order (the CSV export's list). */
export function expenseIds(cache: CacheDb, filters: ExpenseFilters, sorting: ExpenseSorting): string[] {
  const where = expenseWhere(cache.sqlite, filters);
  return prepared(
    cache.sqlite,
    `SELECT e.id FROM expenses e WHERE ${where.sql} ORDER BY ${expenseOrder(sorting)}`,
  )
    .pluck()
    .all(where.params) as string[];
}

/** Expense rows by id, in the order of `ids`; ids no longer in the cache are left out. */
export function expensesById(cache: CacheDb, ids: readonly string[]): ExpenseRow[] {
  const rows = prepared(
    cache.sqlite,
    `SELECT ${COLUMNS} FROM expenses e LEFT JOIN suppliers s ON s.id = e.supplier_id
     ${reviewJoin('expense', 'e.id')}
     WHERE e.id IN (SELECT value FROM json_each(@ids))`,
  ).all({ ids: JSON.stringify(ids) }) as RawRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toRow(row)] : [];
  });
}

/** How many expenses the filters match; memoised per filter set and data version. */
export function expenseCount(cache: CacheDb, filters: ExpenseFilters): number {
  return memoized(cache.sqlite, 'expense-count', JSON.stringify(filters), () => {
    const where = expenseWhere(cache.sqlite, filters);
    return prepared(cache.sqlite, `SELECT count(*) FROM expenses e WHERE ${where.sql}`)
      .pluck()
      .get(where.params) as number;
  });
}

function toRow(row: RawRow): ExpenseRow {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    description: row.description,
    bookingText: row.bookingText,
    supplierId: row.supplierId,
    supplierName: row.supplierName,
    merchantName: row.merchantName,
    amount:
      row.amountMinor === null || row.amountCurrency === null
        ? null
        : { minor: row.amountMinor, currency: row.amountCurrency },
    expenseTime: row.expenseTime,
    fileCount: row.fileCount,
    deletedAt: row.deletedAt,
    review: reviewState(row),
  };
}
