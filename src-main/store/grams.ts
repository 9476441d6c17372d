import type Database from 'better-sqlite3';
import { TEXT_TABLE } from './text-table';

/**
 * What the gram blocks (gram-blocks.ts) and the gram row lists (gram-rows.ts) share: blocks of
 * row_ids, the folding of code units to symbols, gram ids, and the stale blocks.
 */

/** Rows per block: row_id >> BLOCK_SHIFT is the block (the trigger of 0008 spells it out). */
export const BLOCK_SHIFT = 3;
export const BLOCK_ROWS = 1 << BLOCK_SHIFT;

export const SYMBOLS = 128;
/** Gram ids: `a * SYMBOLS + b` for a pair, UNIGRAM + a for one symbol. */
export const UNIGRAM = SYMBOLS * SYMBOLS;
export const GRAMS = UNIGRAM + SYMBOLS;
/** A lower-cased UTF-16 code unit as one of SYMBOLS symbols. */
function symbolOf(unit: number): number {
  if (unit >= 0x80) return 70 + (unit % 58);
  if (unit < 0x20 || unit === 0x7f) return 0;
  const lower = unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
  // 0x20–0x40 → 1–33; 0x5b–0x7e → 34–69 (upper-case letters never remain).
  return lower <= 0x40 ? lower - 0x1f : lower - 0x39;
}

/** symbolOf for every code unit, looked up: a million rows are about 100 million units. */
export const SYMBOL = Uint8Array.from({ length: 0x10000 }, (_, unit) => symbolOf(unit));

/** The blocks written since their last refresh (filled by the triggers of 0008-0010). */
export const GRAM_STALE_TABLE = 'bank_transaction_gram_stale';

/** The blocks written since their last refresh, ascending. */
export function staleBlocks(sqlite: Database.Database): number[] {
  return sqlite.prepare(`SELECT block FROM ${GRAM_STALE_TABLE} ORDER BY block`).pluck().all() as number[];
}

/** Whether any block was written since its last refresh. */
export function hasStaleBlocks(sqlite: Database.Database): boolean {
  return sqlite.prepare(`SELECT EXISTS (SELECT 1 FROM ${GRAM_STALE_TABLE})`).pluck().get() === 1;
}

/**
 * The grams a row must hold to contain `needle`: its pairs, or its one symbol when it is a
 * single code unit. Any text holding the needle holds all of them.
 */
export function needleGrams(needle: string): number[] {
  const lower = needle.toLowerCase();
  if (lower.length === 1) return [UNIGRAM + SYMBOL[lower.charCodeAt(0)]!];
  const grams = new Set<number>();
  for (let i = 1; i < lower.length; i++)
    grams.add(SYMBOL[lower.charCodeAt(i - 1)]! * SYMBOLS + SYMBOL[lower.charCodeAt(i)]!);
  return [...grams];
}

/** Bits set per byte value. */
export const BITS = Uint8Array.from({ length: 256 }, (_, byte) => {
  let count = 0;
  for (let bits = byte; bits; bits &= bits - 1) count++;
  return count;
});

/** Ascending block numbers as runs of consecutive blocks, `[first, last]`. */
export function blockRuns(sorted: number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const block of sorted) {
    const last = runs.at(-1);
    if (last && last[1] === block - 1) last[1] = block;
    else runs.push([block, block]);
  }
  return runs;
}

/** Rows read per statement call. */
const READ_SLICE = 8192;

/**
 * Calls `visit` with the row_id, narrow text and one column of `bank_transactions t` (a SQL
 * expression, such as `t.booking_date`) of every row in `blocks` (ascending block numbers),
 * or of every row when `blocks` is 'all', in row_id order.
 */
export function eachTextRow(
  sqlite: Database.Database,
  blocks: readonly number[] | 'all',
  column: string,
  visit: (rowId: number, text: string, value: unknown) => void,
): void {
  const from = `SELECT x.row_id, x.text, ${column} FROM ${TEXT_TABLE} x
    CROSS JOIN bank_transactions t ON t.row_id = x.row_id`;
  if (blocks === 'all') {
    const rows = sqlite.prepare(`${from} ORDER BY x.row_id`).raw();
    for (const [rowId, text, value] of rows.iterate() as Iterable<[number, string, unknown]>)
      visit(rowId, text, value);
    return;
  }
  // Slices read with all(): iterate() interleaved with the caller's work is slower.
  const read = sqlite.prepare(`${from} WHERE x.row_id BETWEEN ? AND ? ORDER BY x.row_id`).raw();
  for (const [firstBlock, lastBlock] of blockRuns([...blocks])) {
    const end = ((lastBlock + 1) << BLOCK_SHIFT) - 1;
    for (let start = firstBlock << BLOCK_SHIFT; start <= end; start += READ_SLICE)
      for (const [rowId, text, value] of read.all(start, Math.min(end, start + READ_SLICE - 1)) as [
        number,
        string,
        unknown,
      ][])
        visit(rowId, text, value);
  }
}
