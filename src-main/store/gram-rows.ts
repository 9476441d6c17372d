import type Database from 'better-sqlite3';
import { BITS, BLOCK_SHIFT, eachTextRow, GRAMS, staleBlocks, SYMBOL, SYMBOLS, UNIGRAM } from './grams';

/**
 * Exact row lists for grams found in few blocks (migration `0009_gram_rows.sql`), so that one
 * or two characters found in a few thousand rows are answered without reading those rows:
 * per key the rows that hold it, ascending, each with its booking day. A page in date order
 * is then found from the list (gram-rows-page.ts); only the rows of the days the page spans
 * are read (for their ids, the tie-break).
 *
 * Keys: the gram ids of gram-blocks.ts for printable ASCII (one character, or two adjacent),
 * which are exact for ASCII; and UNIT_KEY + unit for one lower-cased non-ASCII code unit
 * ("é", "ü"), whose gram symbol is shared by many units. A key has a list while its gram
 * (the unit's symbol for a unit key) is set in at most `listBlocks` blocks: a list holds every
 * row of a fresh block that has the key. Rows of stale blocks are not in it (they are read and
 * tested at search time, like the gram blocks' candidates), and a refresh recomputes them.
 *
 * Exactness: a row's keys are read off its lower-cased text (JavaScript's toLowerCase, as the
 * gram blocks and the function for non-ASCII needles fold). For an ASCII needle the search
 * tests with SQLite's LIKE, which folds ASCII only; the two differ only for text holding a
 * character whose lower case is ASCII ("İ" is "i" and a combining dot, the Kelvin sign is
 * "k"), and such rows are marked to be tested as before.
 */

const ROWS_TABLE = 'bank_transaction_gram_rows';

/** Keys of one lower-cased non-ASCII UTF-16 code unit: UNIT_KEY + unit. */
const UNIT_KEY = GRAMS;

/**
 * A gram set in at most `listBlocks` blocks (of 8 rows) has its keys listed: on a million rows
 * of the demo data 213 grams, 2.3 million entries, 30 MB. A setting rather than a constant so that tests
 * cross it with a few rows; a cache must be rebuilt (rebuildGramBlocks) after changing it.
 */
export const gramRowSettings = { listBlocks: 24_000 };

/** Code units whose lower case holds an ASCII character (where LIKE and toLowerCase part). */
const LOWERS_TO_ASCII = Uint8Array.from({ length: 0x10000 }, (_, unit) =>
  unit >= 0x80 && [...String.fromCharCode(unit).toLowerCase()].some((c) => c.charCodeAt(0) < 0x80) ? 1 : 0,
);

/** The gram whose bitmap decides whether `key` is listed. */
function gramOf(key: number): number {
  return key < UNIT_KEY ? key : UNIGRAM + SYMBOL[key - UNIT_KEY]!;
}

/** Whether a gram can have lists: grams of control characters (symbol 0) fold many into one. */
function listableGram(gram: number): boolean {
  if (gram >= UNIGRAM) return gram !== UNIGRAM;
  return gram % SYMBOLS !== 0 && Math.floor(gram / SYMBOLS) !== 0;
}

/** Every key: the gram ids, then one per UTF-16 code unit. */
const KEYS = UNIT_KEY + 0x10000;

/**
 * The keys of a row's lower-cased text whose gram is wanted, without repeats: a million rows
 * hold about 60 million keys, so each is checked against a stamp per key, not a Set.
 */
class RowKeys {
  private readonly seen = new Int32Array(KEYS);
  private stamp = 0;
  private readonly keys: number[] = [];

  constructor(private readonly wanted: Uint8Array) {}

  of(lower: string): readonly number[] {
    const { seen, keys, wanted } = this;
    const stamp = ++this.stamp;
    keys.length = 0;
    const add = (key: number, gram: number) => {
      if (wanted[gram] === 1 && seen[key] !== stamp) {
        seen[key] = stamp;
        keys.push(key);
      }
    };
    let previous = 0;
    for (let i = 0; i < lower.length; i++) {
      const unit = lower.charCodeAt(i);
      const symbol = SYMBOL[unit]!;
      if (unit >= 0x80) add(UNIT_KEY + unit, UNIGRAM + symbol);
      else if (symbol !== 0) {
        add(UNIGRAM + symbol, UNIGRAM + symbol);
        if (previous !== 0) add(previous * SYMBOLS + symbol, previous * SYMBOLS + symbol);
      }
      previous = unit >= 0x80 ? 0 : symbol;
    }
    return keys;
  }
}

/** A flag per gram id, set for `grams`. */
function gramFlags(grams: Iterable<number>): Uint8Array {
  const flags = new Uint8Array(GRAMS);
  for (const gram of grams) flags[gram] = 1;
  return flags;
}

/**
 * The key whose list answers `needle` (a case-insensitive substring of the narrow text): one
 * ASCII character, two ASCII characters, or one non-ASCII code unit once lower-cased; null for
 * anything else (those are answered from the gram blocks).
 */
export function needleKey(needle: string): number | null {
  const lower = needle.toLowerCase();
  if (lower.length === 1) {
    const unit = lower.charCodeAt(0);
    if (unit >= 0x80) return UNIT_KEY + unit;
    return SYMBOL[unit] === 0 ? null : UNIGRAM + SYMBOL[unit]!;
  }
  if (lower.length !== 2) return null;
  const [a, b] = [lower.charCodeAt(0), lower.charCodeAt(1)];
  if (a >= 0x80 || b >= 0x80 || SYMBOL[a] === 0 || SYMBOL[b] === 0) return null;
  return SYMBOL[a]! * SYMBOLS + SYMBOL[b]!;
}

/** An ISO date: month 01-12, day 01-31 (what pageInDateOrder's ordinal tells apart). */
const ISO_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/**
 * A booking date as a number that sorts as the text does (YYYYMMDD), or -1 for anything but
 * an ISO date (never sent by the API; a search meeting such a row takes the gram blocks).
 */
export function dayNumber(date: unknown): number {
  if (typeof date !== 'string' || !ISO_DATE.test(date)) return -1;
  return Number(date.slice(0, 4)) * 10_000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/** A list entry's day: the day number times two, plus one when the row must still be tested. */
function entryDay(text: string, date: unknown): number {
  const day = dayNumber(date);
  if (day < 0) return -1;
  let test = 0;
  for (let i = 0; i < text.length && test === 0; i++) test = LOWERS_TO_ASCII[text.charCodeAt(i)]!;
  return day * 2 + test;
}

/** One key's rows (ascending) and their entry days. */
export interface GramRowList {
  rowIds: Float64Array;
  days: Int32Array;
}

/** A list being collected, row by row in ascending order. */
interface Collected {
  rowIds: number[];
  days: number[];
}

const listOf = (collected: Collected): GramRowList => ({
  rowIds: Float64Array.from(collected.rowIds),
  days: Int32Array.from(collected.days),
});

const EMPTY: GramRowList = { rowIds: new Float64Array(0), days: new Int32Array(0) };

const bytesOf = (array: Float64Array | Int32Array) =>
  Buffer.from(array.buffer, array.byteOffset, array.byteLength);

function decode(rowIds: Buffer, days: Buffer): GramRowList {
  // Copied: a blob's bytes need not be aligned for a typed array.
  return {
    rowIds: new Float64Array(new Uint8Array(rowIds).buffer),
    days: new Int32Array(new Uint8Array(days).buffer),
  };
}

/**
 * Lists are stored in chunks of CHUNK_ROWS row_ids, so that a sync, which writes mostly new
 * rows at the end, rewrites the last chunk of the lists it touches rather than whole lists.
 */
const CHUNK_ROWS = 65_536;
const chunkOf = (rowId: number) => Math.floor(rowId / CHUNK_ROWS);

/** The stored list of `key` (all its chunks), or null when it has none. */
export function readGramRows(sqlite: Database.Database, key: number): GramRowList | null {
  const chunks = (
    sqlite.prepare(`SELECT row_ids, days FROM ${ROWS_TABLE} WHERE key = ? ORDER BY chunk`).raw().all(key) as [
      Buffer,
      Buffer,
    ][]
  ).map(([rowIds, days]) => decode(rowIds, days));
  if (chunks.length === 0) return null;
  if (chunks.length === 1) return chunks[0]!;
  const list: GramRowList = {
    rowIds: new Float64Array(chunks.reduce((sum, chunk) => sum + chunk.rowIds.length, 0)),
    days: new Int32Array(chunks.reduce((sum, chunk) => sum + chunk.days.length, 0)),
  };
  let at = 0;
  for (const chunk of chunks) {
    list.rowIds.set(chunk.rowIds, at);
    list.days.set(chunk.days, at);
    at += chunk.rowIds.length;
  }
  return list;
}

function readChunk(sqlite: Database.Database, key: number, chunk: number): GramRowList {
  const row = sqlite
    .prepare(`SELECT row_ids, days FROM ${ROWS_TABLE} WHERE key = ? AND chunk = ?`)
    .raw()
    .get(key, chunk) as [Buffer, Buffer] | undefined;
  return row ? decode(row[0], row[1]) : EMPTY;
}

/** Writes one chunk of `key`'s list (rows of that chunk only); an empty one is removed. */
function writeChunk(sqlite: Database.Database, key: number, chunk: number, list: GramRowList): void {
  if (list.rowIds.length === 0) {
    sqlite.prepare(`DELETE FROM ${ROWS_TABLE} WHERE key = ? AND chunk = ?`).run(key, chunk);
    return;
  }
  sqlite
    .prepare(`INSERT OR REPLACE INTO ${ROWS_TABLE} (key, chunk, row_ids, days) VALUES (?, ?, ?, ?)`)
    .run(key, chunk, bytesOf(list.rowIds), bytesOf(list.days));
}

/** `list` (ascending) cut into its chunks. */
function chunksOf(list: GramRowList): Map<number, GramRowList> {
  const chunks = new Map<number, GramRowList>();
  let start = 0;
  for (let i = 1; i <= list.rowIds.length; i++) {
    if (i < list.rowIds.length && chunkOf(list.rowIds[i]!) === chunkOf(list.rowIds[start]!)) continue;
    chunks.set(chunkOf(list.rowIds[start]!), {
      rowIds: list.rowIds.subarray(start, i),
      days: list.days.subarray(start, i),
    });
    start = i;
  }
  return chunks;
}

/** Blocks set per bitmap, remembered: a refresh's new bitmaps are the next one's old ones. */
const counts = new WeakMap<Uint8Array, number>();

function popcount(map: Uint8Array | undefined): number {
  if (map === undefined) return 0;
  let count = counts.get(map);
  if (count !== undefined) return count;
  count = 0;
  const words = map.byteOffset % 4 === 0 ? Math.floor(map.length / 4) : 0;
  const view = new Uint32Array(map.buffer, map.byteOffset, words);
  for (let word of view) {
    word -= (word >>> 1) & 0x55555555;
    word = (word & 0x33333333) + ((word >>> 2) & 0x33333333);
    count += Math.imul((word + (word >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  for (let i = words * 4; i < map.length; i++) count += BITS[map[i]!]!;
  counts.set(map, count);
  return count;
}

const listed = (map: Uint8Array | undefined): boolean => {
  const blocks = popcount(map);
  return blocks > 0 && blocks <= gramRowSettings.listBlocks;
};

/** The blocks set in `map`, ascending. */
function blocksOf(map: Uint8Array): number[] {
  const blocks: number[] = [];
  map.forEach((bits, byte) => {
    for (let bit = 0; bits !== 0 && bit < 8; bit++) if (bits & (1 << bit)) blocks.push(byte * 8 + bit);
  });
  return blocks;
}

/**
 * Brings the lists up to date after a refresh of the gram blocks (inside its transaction):
 * `before` and `after` are the bitmaps before and after it, `stale` the blocks it recomputed.
 * Only grams with a bit in a stale block can change: a gram that becomes listed gets its
 * lists built from its blocks, one no longer listed loses them, and one listed before and
 * after has the entries of its stale blocks recomputed.
 */
export function updateGramRows(
  sqlite: Database.Database,
  before: readonly (Uint8Array | undefined)[],
  after: readonly (Uint8Array | undefined)[],
  stale: readonly number[],
): void {
  const staleBytes = [...new Set(stale.map((block) => block >> 3))];
  const staleMask = new Map<number, number>();
  for (const block of stale) staleMask.set(block >> 3, (staleMask.get(block >> 3) ?? 0) | (1 << (block & 7)));
  const build = new Set<number>();
  const drop = new Set<number>();
  const keep = new Set<number>();
  for (let gram = 0; gram < GRAMS; gram++) {
    const [old, now] = [before[gram], after[gram]];
    if ((old === undefined && now === undefined) || !listableGram(gram)) continue;
    const touched = staleBytes.some((i) => (((old?.[i] ?? 0) | (now?.[i] ?? 0)) & staleMask.get(i)!) !== 0);
    if (!touched) continue;
    const [was, is] = [listed(old), listed(now)];
    if (is && !was) build.add(gram);
    else if (was && !is) drop.add(gram);
    else if (was && is) keep.add(gram);
  }
  if (build.size + drop.size + keep.size === 0) return;
  const stored = sqlite.prepare(`SELECT DISTINCT key FROM ${ROWS_TABLE}`).pluck().all() as number[];
  const remove = sqlite.prepare(`DELETE FROM ${ROWS_TABLE} WHERE key = ?`);
  for (const key of stored) if (drop.has(gramOf(key)) || build.has(gramOf(key))) remove.run(key);

  const collect = (lists: Map<number, Collected>, grams: Set<number>) => {
    const keys = new RowKeys(gramFlags(grams));
    return (rowId: number, text: string, date: unknown) => {
      const found = keys.of(text.toLowerCase());
      if (found.length === 0) return;
      const day = entryDay(text, date);
      for (const key of found) {
        let list = lists.get(key);
        if (!list) lists.set(key, (list = { rowIds: [], days: [] }));
        list.rowIds.push(rowId);
        list.days.push(day);
      }
    };
  };

  if (keep.size > 0) {
    // The stale blocks' entries, read again with their dates.
    const fresh = new Map<number, Collected>();
    eachTextRow(sqlite, stale, 't.booking_date', collect(fresh, keep));
    const isStale = (rowId: number) => {
      const block = rowId >> BLOCK_SHIFT;
      return ((staleMask.get(block >> 3) ?? 0) & (1 << (block & 7))) !== 0;
    };
    const affected = new Set([...stored.filter((key) => keep.has(gramOf(key))), ...fresh.keys()]);
    const staleChunks = [...new Set(stale.map((block) => chunkOf(block << BLOCK_SHIFT)))];
    for (const key of affected) {
      const added = fresh.get(key);
      const addedChunks = added ? chunksOf(listOf(added)) : new Map<number, GramRowList>();
      for (const chunk of staleChunks) {
        const kept = readChunk(sqlite, key, chunk);
        const more = addedChunks.get(chunk) ?? EMPTY;
        if (kept.rowIds.length + more.rowIds.length > 0)
          writeChunk(sqlite, key, chunk, merge(kept, isStale, more));
      }
    }
  }

  if (build.size > 0) {
    const blocks = new Set<number>();
    for (const gram of build) for (const block of blocksOf(after[gram]!)) blocks.add(block);
    const built = new Map<number, Collected>();
    eachTextRow(
      sqlite,
      [...blocks].sort((a, b) => a - b),
      't.booking_date',
      collect(built, build),
    );
    for (const [key, list] of built)
      for (const [chunk, part] of chunksOf(listOf(list))) writeChunk(sqlite, key, chunk, part);
  }
}

/** `kept` without the rows `dropped` says, and `added` (both ascending), ascending. */
function merge(kept: GramRowList, dropped: (rowId: number) => boolean, added: GramRowList): GramRowList {
  const rowIds = new Float64Array(kept.rowIds.length + added.rowIds.length);
  const days = new Int32Array(rowIds.length);
  let [i, j, n] = [0, 0, 0];
  while (i < kept.rowIds.length || j < added.rowIds.length) {
    if (j < added.rowIds.length && (i === kept.rowIds.length || added.rowIds[j]! < kept.rowIds[i]!)) {
      rowIds[n] = added.rowIds[j]!;
      days[n++] = added.days[j++]!;
    } else if (dropped(kept.rowIds[i]!)) i++;
    else {
      rowIds[n] = kept.rowIds[i]!;
      days[n++] = kept.days[i++]!;
    }
  }
  return { rowIds: rowIds.subarray(0, n), days: days.subarray(0, n) };
}

/** Forgets every list (a rebuild recomputes them with the bitmaps). */
export function clearGramRows(sqlite: Database.Database): void {
  sqlite.prepare(`DELETE FROM ${ROWS_TABLE}`).run();
}

/**
 * True when the stored lists are exactly what the rows say outside stale blocks: a list for
 * every key of a listed gram that some fresh row holds, with every such row and its day, and
 * no other list. One pass over the narrow text table and the booking dates.
 */
export function gramRowsAreConsistent(
  sqlite: Database.Database,
  bitmaps: readonly (Uint8Array | undefined)[],
): boolean {
  const stale = new Set(staleBlocks(sqlite));
  const grams = new Set<number>();
  bitmaps.forEach((map, gram) => {
    if (listableGram(gram) && listed(map)) grams.add(gram);
  });
  const expected = new Map<number, Collected>();
  const keys = new RowKeys(gramFlags(grams));
  eachTextRow(sqlite, 'all', 't.booking_date', (rowId, text, date) => {
    if (stale.has(rowId >> BLOCK_SHIFT)) return;
    for (const key of keys.of(text.toLowerCase())) {
      let list = expected.get(key);
      if (!list) expected.set(key, (list = { rowIds: [], days: [] }));
      list.rowIds.push(rowId);
      list.days.push(entryDay(text, date));
    }
  });
  const stored = sqlite.prepare(`SELECT DISTINCT key FROM ${ROWS_TABLE}`).pluck().all() as number[];
  for (const key of stored) {
    if (expected.has(key)) continue;
    // A list none of whose rows is fresh any more is kept until the next refresh.
    const kept = readGramRows(sqlite, key);
    if (!grams.has(gramOf(key)) || kept!.rowIds.some((rowId) => !stale.has(rowId >> BLOCK_SHIFT)))
      return false;
  }
  for (const [key, list] of expected) {
    const kept = readGramRows(sqlite, key);
    if (kept === null) return false;
    const fresh = Array.from(kept.rowIds).flatMap((rowId, i) =>
      stale.has(rowId >> BLOCK_SHIFT) ? [] : [[rowId, kept.days[i]!]],
    );
    if (JSON.stringify(fresh) !== JSON.stringify(list.rowIds.map((rowId, i) => [rowId, list.days[i]!])))
      return false;
  }
  return true;
}
