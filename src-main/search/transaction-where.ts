import type Database from 'better-sqlite3';
import { parseAmount } from '../../src-shared/money';
import type { AmountRange, TransactionFilters } from '../../src-shared/search';
import { textAbsentFromAccounts } from '../store/account-grams';
import { FTS_TABLE, ftsLiteral } from '../store/fts';
import { BLOCK_ROWS, gramCandidates } from '../store/gram-blocks';
import { TEXT_SEPARATOR, TEXT_TABLE, TEXT_VALUE } from '../store/text-table';
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
 * (`TEXT_JOIN`); `rows()` is every matching row_id read from the narrow table alone (for
 * one or two characters, only from the blocks the gram index names; built when asked for).
 */
export interface TextConditions {
  fts: SqlPart | null;
  scan: SqlPart;
  hit: SqlPart;
  rows: () => SqlPart;
  match: string | null;
  /** Whether `hit` reads only the narrow text row `x` (false: it tests the columns of `t`). */
  onTextRow: boolean;
  /**
   * The same test on `t`'s free-text value as the account index holds it (TEXT_VALUE), so a
   * query through that index never reads the table for it; null when the text holds the
   * values' separator (tested on the columns instead).
   */
  inIndex: SqlPart | null;
  /**
   * For one- or two-character text on the narrow row: how many rows the gram index leaves
   * to test (at most; blocks of BLOCK_ROWS), which is what reading `rows()` costs, and their
   * share of the table. Null for text the trigram index answers, or that is tested on the
   * columns.
   */
  candidates: { rows: number; share: number } | null;
}

/** Joins each row of `t` to its narrow text row; CROSS JOIN keeps `t` (and its order) outside. */
export const TEXT_JOIN = `CROSS JOIN ${TEXT_TABLE} x ON x.row_id = t.row_id`;

/**
 * Every condition but the free text (`base`), and the free text on its own (null when
 * blank); `none` when the accounts' gram sets (store/account-grams.ts) show that no row can
 * match. `base` is also given apart as `others` and `live`, the test that leaves deleted rows
 * out (null when none is to be left out), so that a plan testing text on every row it walks
 * can test that first (see {@link liveIf}).
 */
export function transactionConditions(
  sqlite: Database.Database,
  filters: TransactionFilters,
): { base: SqlPart; others: SqlPart; live: SqlPart | null; text: TextConditions | null; none: boolean } {
  const parts: SqlPart[] = [];
  let live: SqlPart | null = null;
  // Deleted rows are few and indexed (partial index); NOT IN over row_id keeps a walk of a
  // (col, id) index covering, where `deleted_at IS NULL` would read every row it passes.
  // Still, the test costs each row passed a lookup (2 ms of the 7 ms a walk of 37,000 index
  // entries takes), so it is left out when the cache holds no deleted row at all (one probe
  // of the partial index; the answer is the same).
  if (!filters.includeDeleted && hasDeletedRows(sqlite))
    live = {
      sql: 't.row_id NOT IN (SELECT d.row_id FROM bank_transactions d WHERE d.deleted_at IS NOT NULL)',
      params: {},
    };
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
  // Text that no transaction of the accounts asked for can hold: nothing matches.
  const none =
    text !== '' &&
    filters.accountIds !== undefined &&
    textAbsentFromAccounts(sqlite, text, caseVariants(filters.accountIds));
  return {
    base: allOf(live ? [live, ...parts] : parts),
    others: allOf(parts),
    live,
    text: text === '' ? null : textConditions(sqlite, text),
    none,
  };
}

/**
 * The whole filter set as one condition; the trigram index answers free text where it can,
 * and the gram blocks short text they confine to few rows.
 */
export function transactionWhere(sqlite: Database.Database, filters: TransactionFilters): SqlPart {
  const { base, text, none } = transactionConditions(sqlite, filters);
  if (none) return { sql: '0', params: {} };
  if (!text) return base;
  if (text.fts) return allOf([base, text.fts]);
  // Short text as the set of its matches when the gram blocks confine them to few rows, or
  // when no other filter narrows the rows: one pass over the narrow text table (its candidate
  // blocks) and a lookup per match, where testing every row of the table looks each one up
  // in the narrow table (totals of "ub" on a million rows: 0.3-0.5 s against 1.0-1.8 s). Rows
  // that other filters narrow are tested one by one.
  return allOf([base, fewCandidates(text) || !narrowed(filters) ? inRows(text) : text.scan]);
}

/**
 * The filters that are set: a value given, text not blank, deleted rows asked for (leaving
 * them out is the default).
 */
export function setFilters(filters: TransactionFilters): Array<keyof TransactionFilters> {
  return (Object.keys(filters) as Array<keyof TransactionFilters>).filter((key) => {
    const value = filters[key];
    if (key === 'freeText') return typeof value === 'string' && value.trim() !== '';
    if (key === 'includeDeleted') return value === true;
    return value !== undefined;
  });
}

/** Whether filters other than the text narrow the rows (the text's density there is unknown). */
export function narrowed(filters: TransactionFilters): boolean {
  return setFilters(filters).some((key) => key !== 'freeText' && key !== 'includeDeleted');
}

/**
 * Most rows of the narrow table that short text's matches are read from (the gram index's
 * candidate blocks) as a set and sorted, rather than found by walking the order: each
 * candidate block and each match is a page read, so on a million rows the set is quicker up
 * to about 3,000 blocks (10 ms for 1,300 matches); beyond, a window finds a page sooner. In a
 * small table, text in more than a quarter of it is common, and a window finds it at once.
 */
const SHORT_SET_ROWS = 24_000;
const SHORT_SET_SHARE = 0.25;

/** Whether short text's matches are best read as a set from its candidate blocks. */
export const fewCandidates = (text: TextConditions): boolean =>
  text.candidates !== null &&
  text.candidates.rows <= SHORT_SET_ROWS &&
  text.candidates.share <= SHORT_SET_SHARE;

/** `t` is one of the text's matches as read from the narrow table (`text.rows()`). */
export function inRows(text: TextConditions): SqlPart {
  const rows = text.rows();
  return { sql: `t.row_id IN (${rows.sql})`, params: rows.params };
}

/**
 * Three or more characters can go through the trigram index as one quoted phrase
 * (ftsLiteral: quotes, `*`, NEAR, OR and parentheses mean nothing inside it). Shorter text
 * has no trigram and is tested row by row, on the narrow text table where its four values
 * are one string: all its matches (`rows`) are read from the blocks of rows that the gram
 * index says may hold it (store/gram-blocks.ts), none for text found nowhere. All forms mean
 * the same substring test.
 */
function textConditions(sqlite: Database.Database, text: string): TextConditions {
  const short = charCount(text) < TRIGRAM;
  const match = short ? null : `${FTS_COLUMN_FILTER} : ${ftsLiteral(text)}`;
  const fts =
    match === null
      ? null
      : {
          sql: `t.row_id IN (SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @f_fts)`,
          params: { f_fts: match },
        };
  if (text.includes(TEXT_SEPARATOR)) {
    // The joined string could match across two values; test the columns themselves.
    const scan = containsAny(
      sqlite,
      V0_TEXT_COLUMNS.map((column) => `t.${column}`),
      text,
      'f_text',
    );
    const rows = () => ({
      sql: `SELECT t.row_id FROM bank_transactions t WHERE ${scan.sql}`,
      params: scan.params,
    });
    return { fts, match, scan, hit: scan, rows, onTextRow: false, inIndex: null, candidates: null };
  }
  const hit = containsAny(sqlite, ['x.text'], text, 'f_text');
  const scan = {
    sql: `EXISTS (SELECT 1 FROM ${TEXT_TABLE} x WHERE x.row_id = t.row_id AND (${hit.sql}))`,
    params: hit.params,
  };
  const inIndex = containsAny(sqlite, [`(${TEXT_VALUE('t')})`], text, 'f_text');
  const blocks = short ? gramCandidates(sqlite, text) : null;
  const rows = () =>
    blocks
      ? {
          sql: `SELECT x.row_id FROM json_each(@f_blocks) g CROSS JOIN ${TEXT_TABLE} x
                  ON x.row_id BETWEEN g.value ->> 0 AND g.value ->> 1 WHERE ${hit.sql}`,
          params: { ...hit.params, f_blocks: JSON.stringify(blocks.ranges()) },
        }
      : { sql: `SELECT x.row_id FROM ${TEXT_TABLE} x WHERE ${hit.sql}`, params: hit.params };
  const candidates = blocks && {
    rows: blocks.blocks * BLOCK_ROWS,
    share: blocks.blocks / Math.max(1, blocks.ofBlocks),
  };
  return { fts, match, scan, hit, rows, onTextRow: true, inIndex, candidates };
}

/**
 * `test`, and then `live` for the rows that pass it: SQLite evaluates the deleted rows' `NOT
 * IN` before any other test of a row however they are written, and with a thousand deleted
 * rows each lookup costs about 0.2 µs — 7.5 of the 18.5 ms a walk of one account's 37,000
 * index entries took for text it held 50 times. CASE makes the text go first, so only its
 * matches are looked up.
 */
export function liveIf(test: SqlPart, live: SqlPart | null): SqlPart {
  if (!live) return test;
  return {
    sql: `CASE WHEN ${test.sql} THEN ${live.sql} ELSE 0 END`,
    params: { ...test.params, ...live.params },
  };
}

/** Whether any transaction is deleted: one probe of the partial index of deleted rows. */
function hasDeletedRows(sqlite: Database.Database): boolean {
  return (
    prepared(sqlite, 'SELECT EXISTS (SELECT 1 FROM bank_transactions WHERE deleted_at IS NOT NULL)')
      .pluck()
      .get() === 1
  );
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

/**
 * `column IN (values)`. An empty list is written `IN (NULL)`, which matches no row just the
 * same (these conditions are only ever ANDed, never negated) but is not a constant: SQLite
 * folds `IN ()` to false and then finds no plan at all for a statement that names its index
 * (`INDEXED BY`, the totals' query).
 */
function inPart(column: string, prefix: string, values: readonly string[]): SqlPart {
  if (values.length === 0) return { sql: `${column} IN (NULL)`, params: {} };
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
