import type Database from 'better-sqlite3';

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

/** The blocks written since their last refresh, ascending. */
export function staleBlocks(sqlite: Database.Database): number[] {
  return sqlite
    .prepare(`SELECT block FROM bank_transaction_gram_stale ORDER BY block`)
    .pluck()
    .all() as number[];
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
