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
import { EXPENSE_FTS_TABLE, EXPENSE_TEXT_TABLE, ftsLiteral, isIndexable } from '../store/fts';
import { containsAny, searchText } from './text';

/**
 * Expense search: case-insensitive substring of the description, booking text, merchant
 * name, supplier name or any line's description (kept in the line's raw record), plus the
 * review filters and "has a file". Text of 3 or more characters is looked up in the trigram
 * index over the expenses' and lines' documents (migration `0015_expense_text.sql`); shorter
 * text is tested row by row (LIKE, or JS folding for non-ASCII text; see text.ts), as are
 * supplier names (suppliers are few).
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

/** How a search finds its expenses; the defaults are for the app, tests try each way. */
export interface ExpenseSearchTuning {
  /**
   * Up to this many matches, a page of a text search starts from the matching expenses and
   * sorts them; with more, it walks the sort's index (`START_FROM_MATCHES`).
   */
  startFromMatches?: number;
  /**
   * Up to this many expenses found by the documents of a 1–2 character text, they are
   * collected first; with more, each expense is tested (`SHORT_TEXT_SET`).
   */
  shortTextSet?: number;
}

/** The WHERE clause over `expenses e`, shared with bulk review marking. */
export function expenseWhere(
  sqlite: Database.Database,
  filters: ExpenseFilters,
  tuning: ExpenseSearchTuning = {},
): SqlPart {
  const parts: SqlPart[] = [];
  if (!filters.includeDeleted) parts.push({ sql: 'e.deleted_at IS NULL', params: {} });
  if (filters.ids) {
    const list = inList('x_id', caseVariants(filters.ids));
    parts.push({ sql: `e.id IN ${list.sql}`, params: list.params });
  }
  const text = searchText(filters.text);
  if (text !== '') parts.push(textParts(sqlite, text, tuning).where);
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

/**
 * Expenses whose own or whose lines' documents hold the text (migration 0015), or whose
 * supplier's name does (suppliers are few; their expenses come through
 * `expenses_supplier_idx`; the supplier's name is not in the documents). Text of 3 or more
 * characters is looked up in the trigram index, which also gives the matches a page can start
 * from (`matches`). Shorter text has no trigram: the documents are read one by one
 * (`shortTextExpenses`), and when they name at most `SHORT_TEXT_SET` expenses those are the
 * matches, as the index's would be; commoner text is tested expense by expense, its own
 * columns first and then its lines' descriptions from `expense_text_expense_idx` alone, and a
 * page of it stops early as its matches come early.
 */
function textParts(
  sqlite: Database.Database,
  text: string,
  tuning: ExpenseSearchTuning = {},
): { where: SqlPart; matches: SqlPart | null } {
  const supplier = containsAny(sqlite, ['s.name'], text, 'x_text');
  const bySupplier = `e.supplier_id IN (SELECT s.id FROM suppliers s WHERE ${supplier.sql})`;
  if (isIndexable(text)) {
    const documents = `SELECT x.expense_id FROM ${EXPENSE_TEXT_TABLE} x WHERE x.row_id IN
        (SELECT rowid FROM ${EXPENSE_FTS_TABLE} WHERE ${EXPENSE_FTS_TABLE} MATCH @x_fts)`;
    const params = { ...supplier.params, x_fts: ftsLiteral(text) };
    return {
      where: { sql: `e.id IN (${documents}) OR ${bySupplier}`, params },
      matches: {
        sql: `${documents} UNION SELECT e.id FROM expenses e WHERE ${bySupplier}`,
        params,
      },
    };
  }
  const found = shortTextExpenses(sqlite, text, tuning.shortTextSet ?? SHORT_TEXT_SET);
  if (found) {
    const params = { ...supplier.params, x_found: found };
    return {
      where: { sql: `e.id IN (SELECT value FROM json_each(@x_found)) OR ${bySupplier}`, params },
      matches: {
        sql: `SELECT value AS expense_id FROM json_each(@x_found) UNION SELECT e.id FROM expenses e WHERE ${bySupplier}`,
        params,
      },
    };
  }
  const own = containsAny(sqlite, ['e.description', 'e.booking_text', 'e.merchant_name'], text, 'x_text');
  const line = containsAny(sqlite, ['x.description'], text, 'x_text');
  return {
    where: {
      sql: `${own.sql}
        OR EXISTS (SELECT 1 FROM ${EXPENSE_TEXT_TABLE} x WHERE x.expense_id = e.id AND x.line_id IS NOT NULL
          AND (${line.sql}))
        OR ${bySupplier}`,
      params: own.params,
    },
    matches: null,
  };
}

/**
 * A 1–2 character text found in the documents of at most this many expenses is answered from
 * them. Reading every document (about 110,000 for 43,000 expenses and their lines) takes
 * 25–40 ms; testing every expense, which a rare text makes go through all its columns and
 * lines, took 180–370. A common letter stops the read as soon as it is past the limit.
 */
const SHORT_TEXT_SET = 5000;

/**
 * The ids of the expenses (deleted ones too) whose documents hold a 1–2 character `text`, as
 * a JSON array, or null when there are more than `limit`. The documents are read in table
 * order (`NOT INDEXED`: through `expense_text_expense_idx`, DISTINCT would look up every
 * document's row). Remembered until the data changes: a page and its count ask alike.
 */
function shortTextExpenses(sqlite: Database.Database, text: string, limit: number): string | null {
  return memoized(
    sqlite,
    'expense-short-text',
    `${limit}:${text}`,
    () => {
      const test = containsAny(
        sqlite,
        ['x.description', 'x.booking_text', 'x.merchant_name'],
        text,
        'x_text',
      );
      const ids = prepared(
        sqlite,
        `SELECT DISTINCT x.expense_id FROM ${EXPENSE_TEXT_TABLE} x NOT INDEXED WHERE ${test.sql} LIMIT @x_limit`,
      )
        .pluck()
        .all({ ...test.params, x_limit: limit + 1 }) as string[];
      return ids.length > limit ? null : JSON.stringify(ids);
    },
    8,
  );
}

/**
 * Up to this many matches, a page of a text search starts from the matching expenses and
 * sorts them; with more, it walks the sort's index and tests each expense, stopping at the
 * page's end (many matches come early). Walking the index for a rare text tests every expense
 * (80 ms for 43,000); sorting 5,000 matches costs about 15.
 */
const START_FROM_MATCHES = 5000;

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

/** The columns of the timestamp sorts: kept as the API sent them (`expenseOrder`). */
const TIME_COLUMNS: Partial<Record<ExpenseSortField, 'expense_time' | 'update_time'>> = {
  expenseTime: 'expense_time',
  updateTime: 'update_time',
};

/**
 * Whether a timestamp column's text order is its instants' order: every value in UTC (`Z`) and
 * of one width, hence of one form digit for digit (`2026-07-15T09:30:00Z` throughout, as the
 * sandbox writes them, or `….500Z` throughout). Checked once per content generation (a few
 * milliseconds for 43,000 expenses).
 */
function sortsAsText(sqlite: Database.Database, column: 'expense_time' | 'update_time'): boolean {
  return memoized(sqlite, 'expense-time-form', column, () => {
    const found = prepared(
      sqlite,
      `SELECT count(DISTINCT length(${column})) AS widths,
         count(*) FILTER (WHERE ${column} NOT GLOB '${UTC_SECONDS}*Z'
           OR substr(${column}, 20) GLOB '*[^.0-9Z]*') AS others
       FROM expenses WHERE ${column} IS NOT NULL`,
    ).get() as { widths: number; others: number };
    return found.widths <= 1 && found.others === 0;
  });
}

const DIGIT = '[0-9]';
const UTC_SECONDS = `${DIGIT.repeat(4)}-${DIGIT.repeat(2)}-${DIGIT.repeat(2)}T${DIGIT.repeat(2)}:${DIGIT.repeat(2)}:${DIGIT.repeat(2)}`;

/**
 * The ORDER BY of a sort. Timestamps are ordered as instants: the cache keeps them as sent, and
 * the API may send any fraction of a second and any offset, which as text order wrongly
 * ("10:00:00.5Z" before "10:00:00Z", '.' < 'Z'; "10:30:00+01:00", 09:30 UTC, after both). When
 * every value has one form the text order is right, and the sort walks the `(column, id)` index
 * and stops after the page; otherwise it sorts by the instant (SQLite's `unixepoch`, to the
 * millisecond; ties by id), about 13 ms for a page of 43,000 expenses.
 */
function expenseOrder(sqlite: Database.Database, sorting: ExpenseSorting): string {
  const column = TIME_COLUMNS[sorting.field];
  const keys =
    column && !sortsAsText(sqlite, column)
      ? [`unixepoch(e.${column}, 'subsec')`, 'e.id']
      : SORT_KEYS[sorting.field];
  return keys.map((key) => `${key} ${sorting.direction}`).join(', ');
}

export function searchExpenses(
  cache: CacheDb,
  query: ExpenseSearchInput,
  /**
   * `total`: the filters' count when it is known (the app counts it in the totals thread,
   * background-totals.ts); else it is counted here. Tests: every way of finding a page agrees.
   */
  options: ExpenseSearchTuning & { total?: number } = {},
): ExpenseSearchResult {
  const { total: known, ...tuning } = options;
  const search = ExpenseSearch.parse(query);
  const where = expenseWhere(cache.sqlite, search.filters, tuning);
  const order = expenseOrder(cache.sqlite, search.sorting);
  const total = known ?? expenseCount(cache, search.filters, tuning);
  const text = searchText(search.filters.text);
  // A rare text: from its matches (CROSS JOIN keeps them the outer loop), else the whole table.
  const matches =
    text !== '' && total <= (tuning.startFromMatches ?? START_FROM_MATCHES)
      ? textParts(cache.sqlite, text, tuning).matches
      : null;
  const from = matches
    ? `(${matches.sql}) x_match CROSS JOIN expenses e ON e.id = x_match.expense_id`
    : 'expenses e';
  const sql = `SELECT ${COLUMNS}
    FROM (SELECT e.id FROM ${from} WHERE ${where.sql} ORDER BY ${order} LIMIT @limit OFFSET @offset) p
    JOIN expenses e ON e.id = p.id
    LEFT JOIN suppliers s ON s.id = e.supplier_id
    ${reviewJoin('expense', 'e.id')}
    ORDER BY ${order}`;
  const rows = prepared(cache.sqlite, sql).all({
    ...where.params,
    ...matches?.params,
    limit: search.pagination.pageSize,
    offset: offsetOf(search.pagination),
  }) as RawRow[];
  return { rows: rows.map(toRow), page: search.pagination.page, pageSize: search.pagination.pageSize, total };
}

/** The ids of every expense the filters match, in the sort's order (the CSV export's list). */
export function expenseIds(cache: CacheDb, filters: ExpenseFilters, sorting: ExpenseSorting): string[] {
  const where = expenseWhere(cache.sqlite, filters);
  return prepared(
    cache.sqlite,
    `SELECT e.id FROM expenses e WHERE ${where.sql} ORDER BY ${expenseOrder(cache.sqlite, sorting)}`,
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
export function expenseCount(
  cache: CacheDb,
  filters: ExpenseFilters,
  tuning: ExpenseSearchTuning = {},
): number {
  return expenseCountOf(cache.sqlite, filters, tuning);
}

/** `expenseCount` on a connection of its own (the totals thread's, totals-thread.ts). */
export function expenseCountOf(
  sqlite: Database.Database,
  filters: ExpenseFilters,
  tuning: ExpenseSearchTuning = {},
): number {
  const key = `${tuning.shortTextSet ?? ''}:${JSON.stringify(filters)}`;
  return memoized(sqlite, 'expense-count', key, () => {
    const where = expenseWhere(sqlite, filters, tuning);
    return prepared(sqlite, `SELECT count(*) FROM expenses e WHERE ${where.sql}`)
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
