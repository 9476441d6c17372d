import type Database from 'better-sqlite3';
import type {
  Pagination,
  TransactionFilters,
  TransactionSorting,
  TransactionSortField,
} from '../../src-shared/search';
import { FTS_TABLE } from '../store/fts';
import { gramRowsPage } from '../store/gram-rows-page';
import { TEXT_TABLE } from '../store/text-table';
import { memoized, remembered } from './memo';
import { allOf, offsetOf, prepared, type SqlPart } from './sql';
import { charCount, searchText } from './text';
import {
  fewCandidates,
  inRows,
  liveIf,
  narrowed,
  TEXT_JOIN,
  transactionConditions,
  type TextConditions,
} from './transaction-where';

/**
 * Which rows (row_ids, in order) make up one page of a transaction search. The answer is
 * always the same (the filters' matches in the total order, sliced); what varies is the plan,
 * chosen so that a page of a million-row cache costs milliseconds:
 *
 * - Every order is a `(col, id)` index (SORT_KEYS), so without free text SQLite walks the
 *   index in order and stops after the page.
 * - Text that the accounts asked for cannot hold (a gram missing from each account's set,
 *   store/account-grams.ts) matches nothing, answered without reading a row
 *   (`account-grams`).
 * - One or two characters found in few rows, in date order with no filter but dates, are
 *   paged from the gram's exact row list and its booking days (store/gram-rows.ts,
 *   `gram-rows`).
 * - Free text that is common ("hotel", "DE89", two characters) is answered by a window: walk
 *   the order without the text filter for a bounded number of rows, test the text on each
 *   (LIKE on the narrow text table, in SQL), keep the page. If the window holds the page's
 *   last match, those are exactly the first matches of the whole order, so the answer is the
 *   same as the index's. Short text whose window came back short gets one wider window sized
 *   by the density that window showed.
 * - Rare free text (fewer than FTS_SAMPLE matches in the trigram index) fetches its few rows
 *   through the index and sorts them; one or two characters that the gram index confines to
 *   few blocks (store/gram-blocks.ts) are read from those blocks' rows and sorted.
 * - Text that is common but not in the window (other filters exclude most of its rows) walks
 *   the order's index and looks each row up in the set of matches (the probe), stopping at
 *   the page's end; short text that no window row matched has few matches, looked up and
 *   sorted like rare text.
 * - Except within accounts in date order: there the account index, which also holds each
 *   row's free-text value, is read for those accounts and the text tested on its entries
 *   (`account-text`), never touching the table or a set of matches elsewhere; an account's
 *   entries are at most a few hundred thousand short ones, the matches elsewhere can be
 *   every row of the table. For one account with `matched` given that index is in the
 *   page's order, so its walk comes before any window (which would walk the same rows).
 * - Deep pages (OFFSET beyond DEEP_OFFSET) read the whole ordered id list once per filter set
 *   and data version, index-only, and slice it; later deep pages are a lookup. So do the
 *   plans that sort every match anyway (`short-set`): turning their pages costs nothing.
 */

/**
 * Sort keys per field, ascending; DESC reverses every key, `id` included, so ties fall in
 * the sort's own direction exactly as in the v0 search. bankAccountId and matched have no
 * `(col, id)` index but `(col, booking_date, id)`, so they sort by date within a value.
 */
const SORT_KEYS: Record<TransactionSortField, string[]> = {
  bookingDate: ['t.booking_date', 't.id'],
  valueDate: ['t.value_date', 't.id'],
  amount: ['t.amount_minor', 't.id'],
  counterparty: ['t.counterparty', 't.id'],
  description: ['t.description', 't.id'],
  transactionType: ['t.transaction_type', 't.id'],
  bankAccountId: ['t.bank_account_id', 't.booking_date', 't.id'],
  matched: ['t.matched', 't.booking_date', 't.id'],
  id: ['t.id'],
};

export function orderBy(sorting: TransactionSorting, alias = (key: string, _i: number) => key): string {
  return SORT_KEYS[sorting.field].map((key, i) => `${alias(key, i)} ${sorting.direction}`).join(', ');
}

const FTS_SAMPLE = 2000;
const WINDOW_MIN = 1000;
const WINDOW_MAX = 30_000;
/** Offsets from which a page is a slice of the whole ordered list ({@link wholeOrder}). */
export const DEEP_OFFSET = 20_000;

/**
 * The plans a page can take (see the module comment), reported to {@link observePagePlans}:
 * `index` (no text), `account-grams` (text the accounts cannot hold), `gram-rows` (short
 * text from its row list), `trigram` (rare text driven by its matches), `window`, `wider-window`
 * (short text, a second window), `account-text` (accounts' index entries tested, text
 * and all, in date order), `probe` and `short-probe` (the order walked, each row looked
 * up in the trigram index's or the narrow table's matches), `short-set` (short text rare in
 * the whole table: its matches looked up and sorted).
 */
export type PagePlan =
  | 'index'
  | 'account-grams'
  | 'gram-rows'
  | 'trigram'
  | 'window'
  | 'wider-window'
  | 'account-text'
  | 'probe'
  | 'short-probe'
  | 'short-set';

let planObserver: ((plan: PagePlan) => void) | null = null;

/**
 * Reports every page's plan to `observer` until the returned function is called: lets tests
 * prove that each plan is exercised (and answers like the reference), and benchmarks show
 * which plan a slow query took. Costs nothing while nobody observes.
 */
export function observePagePlans(observer: (plan: PagePlan) => void): () => void {
  planObserver = observer;
  return () => {
    if (planObserver === observer) planObserver = null;
  };
}

const took = <T>(plan: PagePlan, rows: T): T => {
  planObserver?.(plan);
  return rows;
};

export function pageRowIds(
  sqlite: Database.Database,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  page: Pagination,
): number[] {
  const { base, others, live, text, none } = transactionConditions(sqlite, filters);
  // Plans that test the text on every row they walk test it before the deleted rows' lookup.
  const tested = (test: SqlPart) => allOf([others, liveIf(test, live)]);
  // The accounts' index entries in date order, the text tested on each (`account-text`).
  const accountText = (inIndex: SqlPart) =>
    took('account-text', ordered(sqlite, tested(inIndex), sorting, page, filters, ACCOUNT_TEXT_INDEX));
  if (none) return took('account-grams', []);
  if (!text) return took('index', ordered(sqlite, base, sorting, page, filters));
  // One or two characters in few rows, in date order: sorted from the gram's row list.
  const listed = text.onTextRow ? fromRowList(sqlite, filters, sorting, page, text) : null;
  if (listed !== null) return took('gram-rows', listed);
  // Short text confined by the gram index to few blocks: its matches are read from those
  // rows and sorted, cheaper than any walk of the order that has to find them.
  if (fewCandidates(text))
    return took(
      'short-set',
      ordered(sqlite, allOf([base, inRows(text)]), sorting, page, filters, undefined, true),
    );
  const density = text.match === null ? null : ftsDensity(sqlite, text.match);
  if (density !== null && density.sparse)
    return took('trigram', ordered(sqlite, allOf([base, text.fts as SqlPart]), sorting, page, filters));
  // One account with `matched` set, in date order: its entries in the account index are
  // already in that order, text and all, so testing them costs less per row than a window,
  // which walks the same rows and looks each up in the narrow text table, and a window that
  // comes back short is followed by this walk anyway (5 ms of 14 for "hotel" on page 2 of an
  // account where it is rare).
  if (text.inIndex && accountTextInOrder(filters, sorting)) return accountText(text.inIndex);
  const budget = windowBudget(page, density, narrowed(filters));
  if (budget !== null) {
    const first = fromWindow(sqlite, others, live, text, sorting, page, budget);
    if ('rows' in first) return took('window', first.rows);
    // Short text has no index to fall back on cheaply: a window that came back short says
    // how dense the text is, so one wider window is tried when it predicts the page in reach.
    const wider = text.fts ? null : widerBudget(page, first);
    const second = wider === null ? null : fromWindow(sqlite, others, live, text, sorting, page, wider);
    if (second && 'rows' in second) return took('wider-window', second.rows);
  }
  if (text.inIndex && filters.accountIds?.length && sorting.field === 'bookingDate')
    return accountText(text.inIndex);
  // Text that is not common enough for a window: the order's index is walked and each row
  // looked up in the set of matches (the trigram index's, or for one or two characters one
  // pass over the narrow text table). The `+` keeps SQLite from driving the query by that
  // set instead, which would look up and sort every match to keep a page of them — except
  // for short text that is rare in the whole table: its few matches are best looked up and
  // sorted.
  if (text.fts) return took('probe', ordered(sqlite, tested(probe(text.fts)), sorting, page, filters));
  const matches = inRows(text);
  if (fewShortMatches(sqlite, text))
    return took(
      'short-set',
      ordered(sqlite, allOf([base, matches]), sorting, page, filters, undefined, true),
    );
  return took('short-probe', ordered(sqlite, tested(probe(matches)), sorting, page, filters));
}

/**
 * Whether the account index (account, matched, booking date, id, text) holds the filters'
 * rows in the sort's order: one account, `matched` given, booking date order. Then walking it
 * costs only the entries up to the page's last match.
 */
function accountTextInOrder(filters: TransactionFilters, sorting: TransactionSorting): boolean {
  return filters.accountIds?.length === 1 && filters.matched !== undefined && sorting.field === 'bookingDate';
}

/** The filters a row list answers besides the text: booking dates, and deleted rows or not. */
const LIST_FILTERS = new Set(['freeText', 'bookingDateFrom', 'bookingDateTo', 'includeDeleted']);

/**
 * The page from the row list of a one- or two-character text (store/gram-rows.ts), when the
 * order is the booking date and no filter but dates narrows the rows; null otherwise, or when
 * the text has no list (common text, or found nowhere: the other plans answer those).
 */
function fromRowList(
  sqlite: Database.Database,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  page: Pagination,
  text: TextConditions,
): number[] | null {
  if (sorting.field !== 'bookingDate') return null;
  if (Object.entries(filters).some(([key, value]) => value !== undefined && !LIST_FILTERS.has(key)))
    return null;
  const needle = searchText(filters.freeText);
  if (charCount(needle) > 2) return null;
  return gramRowsPage(sqlite, {
    needle,
    hit: text.hit,
    includeDeleted: filters.includeDeleted === true,
    from: filters.bookingDateFrom,
    to: filters.bookingDateTo,
    descending: sorting.direction === 'DESC',
    offset: offsetOf(page),
    limit: page.pageSize,
  });
}

/** Narrow text rows a short text is tested on to estimate its matches in the whole table. */
const SHORT_SAMPLE = 50_000;

/**
 * Whether short text (no trigram, so no index estimate) is expected to match fewer than
 * FTS_SAMPLE rows of the whole table, judged from its matches among the first SHORT_SAMPLE
 * rows of the narrow text table (a few milliseconds). "Absent from these filters" is not
 * "rare": two letters of another country's IBANs match nothing in one account and 80,000
 * rows elsewhere, and looking all of those up to sort them costs far more than the probe.
 */
function fewShortMatches(sqlite: Database.Database, text: TextConditions): boolean {
  // Text holding the values' separator is tested on the columns, not the narrow row; it is
  // all but absent from real data.
  if (!text.onTextRow) return true;
  const sample = prepared(
    sqlite,
    `SELECT count(*) AS hits, (SELECT max(row_id) FROM ${TEXT_TABLE}) AS last,
            (SELECT row_id FROM ${TEXT_TABLE} ORDER BY row_id LIMIT 1 OFFSET ${SHORT_SAMPLE - 1}) AS edge
     FROM (SELECT x.text FROM ${TEXT_TABLE} x ORDER BY x.row_id LIMIT ${SHORT_SAMPLE}) x
     WHERE ${text.hit.sql}`,
  ).get(text.hit.params) as { hits: number; last: number | null; edge: number | null };
  // The sample is the whole table when the table is smaller than it.
  if (sample.edge === null || sample.last === null) return sample.hits < FTS_SAMPLE;
  return (sample.hits * sample.last) / sample.edge < FTS_SAMPLE;
}

/** `part` (a `t.row_id IN (…)` condition) as a test on each row, never an index to drive by. */
const probe = (part: SqlPart): SqlPart => ({ sql: `+${part.sql}`, params: part.params });

/** The account index with each row's free-text value (migration 0007). */
export const ACCOUNT_TEXT_INDEX = 'bank_transactions_account_text_idx';

/** A page's query without LIMIT: the row_ids of `where` in the sort's order, through `index` if given. */
export function pageQuery(where: SqlPart, sorting: TransactionSorting, index?: string): string {
  const from = index ? `bank_transactions t INDEXED BY ${index}` : 'bank_transactions t';
  return `SELECT t.row_id AS r FROM ${from} WHERE ${where.sql} ORDER BY ${orderBy(sorting)}`;
}

/**
 * The plain plan: the index walk with LIMIT/OFFSET, or the memoised id list for deep pages;
 * through `index` when given (INDEXED BY: SQLite would otherwise prefer the date index).
 * `whole`: the plan sorts every match anyway (a set of short text's matches), so the whole
 * ordered list costs what one page does; it is remembered, and the next pages are slices.
 */
function ordered(
  sqlite: Database.Database,
  where: SqlPart,
  sorting: TransactionSorting,
  page: Pagination,
  filters: TransactionFilters,
  index?: string,
  whole = false,
): number[] {
  const offset = offsetOf(page);
  const text = pageQuery(where, sorting, index);
  if (offset < DEEP_OFFSET && !whole) {
    const rows = prepared(sqlite, `${text} LIMIT @limit OFFSET @offset`)
      .pluck()
      .all({
        ...where.params,
        limit: page.pageSize,
        offset,
      }) as number[];
    return rows;
  }
  const all = wholeOrder(sqlite, filters, sorting, () => ({ sql: text, params: where.params }));
  return Array.from(all.subarray(offset, offset + page.pageSize));
}

const ORDER_SPACE = 'transaction-order';
const orderKey = (filters: TransactionFilters, sorting: TransactionSorting) =>
  JSON.stringify([filters, sorting]);

/** `wholeOrder`'s list if it is remembered and current; undefined (and nothing read) if not. */
export function rememberedOrder(
  sqlite: Database.Database,
  filters: TransactionFilters,
  sorting: TransactionSorting,
): Float64Array | undefined {
  return remembered(sqlite, ORDER_SPACE, orderKey(filters, sorting));
}

/**
 * Every row_id of the filters' result in the sort's order, remembered per filter set, order
 * and data version (four lists at most): what deep pages slice, and where a record's place is
 * looked up (transaction-position.ts), so that the page it scrolls to next is a slice of the
 * list its place was read from. `query` is the statement to read it with when it is not
 * remembered: any plan's, as every plan answers the same rows in the same (total) order.
 */
export function wholeOrder(
  sqlite: Database.Database,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  query: () => SqlPart,
): Float64Array {
  return memoized(
    sqlite,
    ORDER_SPACE,
    orderKey(filters, sorting),
    () => {
      const { sql, params } = query();
      return Float64Array.from(prepared(sqlite, sql).pluck().all(params) as number[]);
    },
    4,
  );
}

/**
 * How dense the text is, from the first FTS_SAMPLE matches in row_id order: fewer than that
 * in the whole index is "sparse"; otherwise the share of rows up to the last sampled one,
 * and from it the estimated number of matches in the whole table.
 */
interface Density {
  sparse: boolean;
  perRow: number;
  matches: number;
}

function ftsDensity(sqlite: Database.Database, match: string): Density {
  const sample = prepared(
    sqlite,
    `SELECT count(*) AS n, max(rowid) AS last FROM
       (SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match LIMIT ${FTS_SAMPLE})`,
  ).get({ match }) as { n: number; last: number | null };
  if (sample.n < FTS_SAMPLE || sample.last === null) return { sparse: true, perRow: 0, matches: sample.n };
  const span = prepared(
    sqlite,
    `SELECT (SELECT min(row_id) FROM bank_transactions) AS first,
            (SELECT max(row_id) FROM bank_transactions) AS last`,
  ).get() as {
    first: number;
    last: number;
  };
  const perRow = sample.n / Math.max(1, sample.last - span.first + 1);
  return { sparse: false, perRow, matches: Math.ceil(perRow * Math.max(1, span.last - span.first + 1)) };
}

/**
 * Rows to walk for a page: three times what the density predicts, or null when too many.
 * With other filters the text may be much rarer among their rows than overall, and a failed
 * window is wasted work; the window is then capped at a quarter of the trigram index's
 * matches (the cost of answering through the index instead), or skipped when the page is not
 * expected within that.
 */
function windowBudget(page: Pagination, density: Density | null, isNarrowed: boolean): number | null {
  const needed = offsetOf(page) + page.pageSize;
  const expected = density === null ? needed * 13 : needed / density.perRow;
  const predicted = Math.ceil(expected * 3);
  if (predicted > WINDOW_MAX * 2) return null;
  let budget = Math.min(WINDOW_MAX, Math.max(WINDOW_MIN, predicted));
  if (isNarrowed && density !== null) {
    const cap = Math.floor(density.matches / 4);
    if (expected * 1.5 > cap) return null;
    budget = Math.min(budget, cap);
  }
  return budget;
}

/** Rows a window may walk when a first one has shown the text's density (short text only). */
const WIDER_MAX = 150_000;

/**
 * The page from the first `budget` rows of the order without the text filter; or, when that
 * window may not hold the whole page (it came back short and the order goes on), how many
 * rows it read and how many of them matched.
 */
function fromWindow(
  sqlite: Database.Database,
  others: SqlPart,
  live: SqlPart | null,
  text: TextConditions,
  sorting: TransactionSorting,
  page: Pagination,
  budget: number,
): { rows: number[] } | { seen: number; hits: number } {
  // The window is read in order as a co-routine and its text tested in SQL, on the narrow
  // text row; the outer LIMIT stops it as soon as the page is full, so a common text costs
  // only the rows up to its page's last match. Deleted rows are walked like any other and
  // only looked up when their text matches (`liveIf`): never a hit, they only take a place
  // in the window.
  const hit = liveIf(text.hit, live);
  const window = `SELECT t.row_id AS r, (${hit.sql}) AS hit FROM bank_transactions t ${TEXT_JOIN}
     WHERE ${others.sql} ORDER BY ${orderBy(sorting)} LIMIT @w_budget`;
  // Every match up to the page's end (so a short answer also counts the window's matches).
  const offset = offsetOf(page);
  const hits = prepared(sqlite, `SELECT r FROM (${window}) WHERE hit LIMIT @w_limit`)
    .pluck()
    .all({
      ...others.params,
      ...hit.params,
      w_budget: budget,
      w_limit: offset + page.pageSize,
    }) as number[];
  if (hits.length === offset + page.pageSize) return { rows: hits.slice(offset) };
  // Short of a page: the whole result if the order has no row beyond the window (an
  // index-only question: the rows the window walks, without the text).
  const beyond = prepared(
    sqlite,
    `SELECT EXISTS (SELECT 1 FROM bank_transactions t WHERE ${others.sql} LIMIT 1 OFFSET @w_budget)`,
  )
    .pluck()
    .get({ ...others.params, w_budget: budget }) as number;
  return beyond ? { seen: budget, hits: hits.length } : { rows: hits.slice(offset) };
}

/**
 * Twice the rows the first window's density predicts for the page, or null when that is
 * beyond WIDER_MAX (or nothing matched at all: the text is rare, a window cannot help).
 */
function widerBudget(page: Pagination, first: { seen: number; hits: number }): number | null {
  if (first.hits === 0) return null;
  const predicted = Math.ceil(((offsetOf(page) + page.pageSize) * first.seen * 2) / first.hits);
  return predicted > first.seen && predicted <= WIDER_MAX ? predicted : null;
}
