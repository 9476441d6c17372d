import type Database from 'better-sqlite3';
import { parseAmount } from '../../src-shared/money';
import type { AmountRange, TransactionFilters } from '../../src-shared/search';
import { FTS_TABLE, ftsLiteral, TEXT_SEPARATOR, TEXT_TABLE, TEXT_VALUE } from '../store/fts';
import { reviewConditions } from './review-filters';
import { allOf, caseVariants, inList, prepared, type SqlPart } from './sql';
import { charCount, containsAny, searchText } from './text';

/**
 * The WHERE clause of a transaction search over `bank_transactions t`, shared by the page
 * query, the totals and bulk review marking, so the three always agree on what a filter set
 * means. The semantics are the v0 search's (docs/search-and-review.md):
 *
 * - ids and accountIds: exact, case-insensitive (ids are hex, so given, lower and upper case).
 * - booking dates: inclusive; ISO dates compare correctly as text.
 * - freeText: trimmed, case-insensitive substring of id, group_id, counterparty or
 *   bank_account_number. Never description, although the FTS index holds it: the FTS5
 *   column filter `{…} :` restricts the match to the four v0 columns.
 * - deleted rows only when asked.
 */

/** The columns the v0 free text searches, in FTS5 column-filter syntax and as SQL. */
const V0_TEXT_COLUMNS = ['id', 'group_id', 'counterparty', 'bank_account_number'];
const FTS_COLUMN_FILTER = `{${V0_TEXT_COLUMNS.join(' ')}}`;
const TRIGRAM = 3;

/**
 * The free-text condition in its equivalent forms: `fts` through the trigram index (3+
 * characters only; `match` is the FTS5 query), `scan` tested on each row of `t`, and `hit`,
 * the same test as an expression for a query that joins the narrow text table as `x`
 * (`TEXT_JOIN`); `rows` is every matching row_id read from the narrow table alone.
 */
export interface TextConditions {
  fts: SqlPart | null;
  scan: SqlPart;
  hit: SqlPart;
  rows: SqlPart;
  match: string | null;
  /** Whether `hit` reads only the narrow text row `x` (false: it tests the columns of `t`). */
  onTextRow: boolean;
  /**
   * The same test on `t`'s free-text value as the account index holds it (TEXT_VALUE), so a
   * query through that index never reads the table for it; null when the text holds the
   * values' separator (tested on the columns instead).
   */
  inIndex: SqlPart | null;
}

/** Joins each row of `t` to its narrow text row; CROSS JOIN keeps `t` (and its order) outside. */
export const TEXT_JOIN = `CROSS JOIN ${TEXT_TABLE} x ON x.row_id = t.row_id`;

/** Every condition but the free text, and the free text on its own (null when blank). */
export function transactionConditions(
  sqlite: Database.Database,
  filters: TransactionFilters,
): { base: SqlPart; text: TextConditions | null } {
  const parts: SqlPart[] = [];
  // Deleted rows are few and indexed (partial index); NOT IN over row_id keeps a walk of a
  // (col, id) index covering, where `deleted_at IS NULL` would read every row it passes.
  if (!filters.includeDeleted)
    parts.push({
      sql: 't.row_id NOT IN (SELECT d.row_id FROM bank_transactions d WHERE d.deleted_at IS NOT NULL)',
      params: {},
    });
  if (filters.ids) parts.push(inPart('t.id', 'f_id', caseVariants(filters.ids)));
  if (filters.bookingDateFrom)
    parts.push({ sql: 't.booking_date >= @f_from', params: { f_from: filters.bookingDateFrom } });
  if (filters.bookingDateTo)
    parts.push({ sql: 't.booking_date <= @f_to', params: { f_to: filters.bookingDateTo } });
  if (filters.accountIds)
    parts.push(inPart('t.bank_account_id', 'f_acc', storedAccountIds(sqlite, filters.accountIds)));
  if (filters.matched !== undefined)
    parts.push({ sql: 't.matched = @f_matched', params: { f_matched: filters.matched ? 1 : 0 } });
  parts.push(...reviewConditions('transaction', 't.id', filters));
  if (filters.amount) parts.push(amountPart(filters.amount));
  if (filters.transactionTypes) parts.push(inPart('t.transaction_type', 'f_type', filters.transactionTypes));
  if (filters.currencies) parts.push(inPart('t.amount_currency', 'f_cur', filters.currencies));
  const text = searchText(filters.freeText);
  return { base: allOf(parts), text: text === '' ? null : textConditions(sqlite, text) };
}

/** The whole filter set as one condition; the index answers free text where it can. */
export function transactionWhere(sqlite: Database.Database, filters: TransactionFilters): SqlPart {
  const { base, text } = transactionConditions(sqlite, filters);
  return text ? allOf([base, text.fts ?? text.scan]) : base;
}

/**
 * Three or more characters can go through the trigram index as one quoted phrase
 * (ftsLiteral: quotes, `*`, NEAR, OR and parentheses mean nothing inside it). Shorter text
 * has no trigram and can only be tested row by row, on the narrow text table where its four
 * values are one string. All forms mean the same substring test.
 */
function textConditions(sqlite: Database.Database, text: string): TextConditions {
  let scan: SqlPart;
  let hit: SqlPart;
  let rows: SqlPart;
  const onTextRow = !text.includes(TEXT_SEPARATOR);
  if (!onTextRow) {
    // The joined string could match across two values; test the columns themselves.
    scan = containsAny(
      sqlite,
      V0_TEXT_COLUMNS.map((column) => `t.${column}`),
      text,
      'f_text',
    );
    hit = scan;
    rows = { sql: `SELECT t.row_id FROM bank_transactions t WHERE ${scan.sql}`, params: scan.params };
  } else {
    hit = containsAny(sqlite, ['x.text'], text, 'f_text');
    scan = {
      sql: `EXISTS (SELECT 1 FROM ${TEXT_TABLE} x WHERE x.row_id = t.row_id AND (${hit.sql}))`,
      params: hit.params,
    };
    rows = { sql: `SELECT x.row_id FROM ${TEXT_TABLE} x WHERE ${hit.sql}`, params: hit.params };
  }
  const inIndex = onTextRow ? containsAny(sqlite, [`(${TEXT_VALUE('t')})`], text, 'f_text') : null;
  if (charCount(text) < TRIGRAM) return { fts: null, scan, hit, rows, match: null, onTextRow, inIndex };
  const match = `${FTS_COLUMN_FILTER} : ${ftsLiteral(text)}`;
  return {
    fts: {
      sql: `t.row_id IN (SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @f_fts)`,
      params: { f_fts: match },
    },
    scan,
    hit,
    rows,
    match,
    onTextRow,
    inIndex,
  };
}

/**
 * Of the case variants of the given account ids, those the cache holds (normally one per
 * id: the API's own spelling). Same meaning as all the variants, but an account filter of
 * one stored id is an equality, which lets `(account, matched, booking date, id, text)` and
 * `(account, booking date, id)` serve the default order without a sort.
 */
function storedAccountIds(sqlite: Database.Database, ids: readonly string[]): string[] {
  const exists = prepared(
    sqlite,
    'SELECT EXISTS (SELECT 1 FROM bank_transactions WHERE bank_account_id = ?)',
  ).pluck();
  return caseVariants(ids).filter((id) => exists.get(id) === 1);
}

function inPart(column: string, prefix: string, values: readonly string[]): SqlPart {
  const list = inList(prefix, values);
  return { sql: `${column} IN ${list.sql}`, params: list.params };
}

/** Bounds become integer minor units of the range's currency: never floats. */
function amountPart(range: AmountRange): SqlPart {
  const min = range.min === undefined ? undefined : parseAmount(range.min, range.currency);
  const max = range.max === undefined ? undefined : parseAmount(range.max, range.currency);
  const params = { f_amount_cur: range.currency, f_min: min ?? null, f_max: max ?? null };
  const bounded = (column: string) =>
    [min === undefined ? null : `${column} >= @f_min`, max === undefined ? null : `${column} <= @f_max`]
      .filter((c) => c !== null)
      .join(' AND ') || '1';
  if (!range.ignoreSign) {
    return { sql: `t.amount_currency = @f_amount_cur AND ${bounded('t.amount_minor')}`, params };
  }
  // |amount| in [min, max] is amount in [min, max] or in [-max, -min]: two index ranges.
  const negative = [
    max === undefined ? null : 't.amount_minor >= -@f_max',
    `t.amount_minor <= -${min === undefined ? '0' : '@f_min'}`,
  ]
    .filter((c) => c !== null)
    .join(' AND ');
  const positive = [
    `t.amount_minor >= ${min === undefined ? '0' : '@f_min'}`,
    max === undefined ? null : 't.amount_minor <= @f_max',
  ]
    .filter((c) => c !== null)
    .join(' AND ');
  return { sql: `t.amount_currency = @f_amount_cur AND ((${positive}) OR (${negative}))`, params };
}
