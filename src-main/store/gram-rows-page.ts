import type Database from 'better-sqlite3';
import { BLOCK_SHIFT, blockRuns, staleBlocks } from './grams';
import { dayNumber, needleKey, readGramRows } from './gram-rows';
import { TEXT_TABLE } from './text-table';

/**
 * A page of one or two characters in date order from their row list (gram-rows.ts): the
 * list's rows filtered by deleted rows and dates, rows of stale blocks and marked rows read
 * and tested, the rows counted per day and only the days the page spans read for their ids.
 */

/** One page of a short text's matches in date order, as gramRowsPage reads it. */
export interface GramRowsPageQuery {
  needle: string;
  /** The text test on the narrow row `x`, for marked rows and rows of stale blocks. */
  hit: { sql: string; params: Record<string, unknown> };
  includeDeleted: boolean;
  from?: string | undefined;
  to?: string | undefined;
  descending: boolean;
  offset: number;
  limit: number;
}

/**
 * The row_ids of one page of `needle`'s matches ordered by booking date and id (both in the
 * same direction, as the search's date order), from the needle's list; null when it has none
 * (the caller then takes the gram blocks). Rows of stale blocks are read and tested, as are
 * marked rows; only the rows of the days the page spans are read, for their ids. Read in one
 * transaction, so a commit by another connection in between cannot mix two versions.
 */
export function gramRowsPage(sqlite: Database.Database, query: GramRowsPageQuery): number[] | null {
  const key = needleKey(query.needle);
  if (key === null) return null;
  return sqlite.transaction(() => pageFromList(sqlite, key, query))();
}

/** Most stale blocks a search reads and tests beside a list. */
const STALE_MAX = 4096;

function pageFromList(sqlite: Database.Database, key: number, query: GramRowsPageQuery): number[] | null {
  const list = readGramRows(sqlite, key);
  if (list === null) return null;
  const from = query.from === undefined ? -Infinity : dayNumber(query.from);
  const to = query.to === undefined ? Infinity : dayNumber(query.to);
  if (from === -1 || to === -1) return null;
  const stale = staleBlocks(sqlite);
  // Right after a big write (before its refresh) the gram blocks' plans read less.
  if (stale.length > STALE_MAX) return null;
  const staleSet = stale.length > 0 ? new Set(stale) : null;
  const deletedRows = query.includeDeleted
    ? []
    : (sqlite
        .prepare('SELECT row_id FROM bank_transactions WHERE deleted_at IS NOT NULL')
        .pluck()
        .all() as number[]);
  const deleted = deletedRows.length > 0 ? new Set(deletedRows) : null;
  // Typed arrays: a list holds up to 200,000 rows, and arrays of numbers are 3 times slower.
  const found = new Matches(list.rowIds.length);
  const marked = new Map<number, number>();
  const { rowIds, days } = list;
  for (let i = 0; i < rowIds.length; i++) {
    const entry = days[i]!;
    if (entry < 0) return null;
    const day = entry >> 1;
    if (day < from || day > to) continue;
    const rowId = rowIds[i]!;
    if (staleSet?.has(rowId >> BLOCK_SHIFT) || deleted?.has(rowId)) continue;
    if (entry & 1) marked.set(rowId, day);
    else found.add(rowId, day);
  }
  const params = { ...query.hit.params };
  if (marked.size > 0) {
    const passed = sqlite
      .prepare(
        `SELECT x.row_id FROM ${TEXT_TABLE} x
         WHERE x.row_id IN (SELECT value FROM json_each(@g_rows)) AND (${query.hit.sql})`,
      )
      .pluck()
      .all({ ...params, g_rows: JSON.stringify([...marked.keys()]) }) as number[];
    for (const rowId of passed) found.add(rowId, marked.get(rowId)!);
  }
  if (stale.length > 0) {
    const ranges = blockRuns(stale).map(([first, last]) => [
      first << BLOCK_SHIFT,
      ((last + 1) << BLOCK_SHIFT) - 1,
    ]);
    const rows = sqlite
      .prepare(
        `SELECT x.row_id, t.booking_date, t.deleted_at FROM json_each(@g_ranges) g
         CROSS JOIN ${TEXT_TABLE} x ON x.row_id BETWEEN g.value ->> 0 AND g.value ->> 1
         CROSS JOIN bank_transactions t ON t.row_id = x.row_id
         WHERE ${query.hit.sql}`,
      )
      .raw()
      .all({ ...params, g_ranges: JSON.stringify(ranges) }) as [number, unknown, unknown][];
    for (const [rowId, date, deletedAt] of rows) {
      if (!query.includeDeleted && deletedAt !== null) continue;
      const day = dayNumber(date);
      if (day < 0) return null;
      if (day >= from && day <= to) found.add(rowId, day);
    }
  }
  return pageInDateOrder(sqlite, found, query);
}

/** Rows and their day numbers, in typed arrays that grow when needed. */
class Matches {
  rowIds: Float64Array;
  days: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.rowIds = new Float64Array(Math.max(16, capacity));
    this.days = new Int32Array(this.rowIds.length);
  }

  add(rowId: number, day: number): void {
    if (this.length === this.rowIds.length) {
      const [rowIds, days] = [new Float64Array(this.length * 2), new Int32Array(this.length * 2)];
      rowIds.set(this.rowIds);
      days.set(this.days);
      [this.rowIds, this.days] = [rowIds, days];
    }
    this.rowIds[this.length] = rowId;
    this.days[this.length++] = day;
  }
}

/**
 * A day number (YYYYMMDD, of an ISO date: dayNumber) as a small ordinal in the same order,
 * one per day: 31 days a month, 12 months.
 */
const ordinal = (day: number) =>
  Math.floor(day / 10_000) * 372 + (Math.floor(day / 100) % 100) * 31 + (day % 100);

/** Most distinct ordinals counted in an array (about 2,700 years); beyond, a Map counts. */
const ORDINALS_MAX = 1_000_000;

/**
 * The page of `matches` in date order, ties by id, without sorting them all: the rows
 * counted per day, the page's days found from the counts, and only the rows of those days
 * read for their ids and sorted by day and id as SQLite compares text (UTF-8 bytes).
 */
function pageInDateOrder(sqlite: Database.Database, matches: Matches, query: GramRowsPageQuery): number[] {
  const { rowIds, days, length } = matches;
  if (length === 0) return [];
  let [low, high] = [Infinity, -Infinity];
  for (let i = 0; i < length; i++) {
    const at = ordinal(days[i]!);
    if (at < low) low = at;
    if (at > high) high = at;
  }
  // Rows per day, in the sort's direction.
  const perDay: [number, number][] = [];
  if (high - low < ORDINALS_MAX) {
    const counts = new Int32Array(high - low + 1);
    const dayAt = new Int32Array(high - low + 1);
    for (let i = 0; i < length; i++) {
      const at = ordinal(days[i]!) - low;
      counts[at]!++;
      dayAt[at] = days[i]!;
    }
    counts.forEach((count, at) => {
      if (count > 0) perDay.push([dayAt[at]!, count]);
    });
  } else {
    const counts = new Map<number, number>();
    for (let i = 0; i < length; i++) counts.set(days[i]!, (counts.get(days[i]!) ?? 0) + 1);
    perDay.push(...[...counts].sort((a, b) => a[0] - b[0]));
  }
  if (query.descending) perDay.reverse();
  const end = query.offset + query.limit;
  const spanned = new Set<number>();
  let position = 0;
  let first = -1; // the position of the first row of the first day spanned
  for (const [day, count] of perDay) {
    if (position + count > query.offset) {
      if (first < 0) first = position;
      spanned.add(day);
    }
    position += count;
    if (position >= end) break;
  }
  if (spanned.size === 0) return [];
  const span: number[] = [];
  const dayOf = new Map<number, number>();
  for (let i = 0; i < length; i++) {
    if (!spanned.has(days[i]!)) continue;
    span.push(rowIds[i]!);
    dayOf.set(rowIds[i]!, days[i]!);
  }
  const ids = new Map(
    (
      sqlite
        .prepare('SELECT row_id, id FROM bank_transactions WHERE row_id IN (SELECT value FROM json_each(?))')
        .raw()
        .all(JSON.stringify(span)) as [number, string][]
    ).map(([rowId, id]) => [rowId, Buffer.from(id)]),
  );
  const sign = query.descending ? -1 : 1;
  span.sort((a, b) => sign * (dayOf.get(a)! - dayOf.get(b)! || Buffer.compare(ids.get(a)!, ids.get(b)!)));
  return span.slice(query.offset - first, end - first);
}
