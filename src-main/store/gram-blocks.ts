import type Database from 'better-sqlite3';
import {
  BITS,
  BLOCK_SHIFT,
  blockRuns,
  GRAM_STALE_TABLE,
  GRAMS,
  hasStaleBlocks,
  needleGrams,
  staleBlocks,
  SYMBOL,
  SYMBOLS,
  UNIGRAM,
} from './grams';
import { clearGramRows, gramRowsAreConsistent, updateGramRows } from './gram-rows';
import {
  accountGramsAreConsistent,
  accountGramsReady,
  clearAccountGrams,
  updateAccountGrams,
} from './account-grams';
import { TEXT_TABLE } from './text-table';

export { BLOCK_ROWS, BLOCK_SHIFT } from './grams';

/**
 * The gram index of the narrow text table (migration `0008_transaction_grams.sql`): for each
 * gram (one character, or two adjacent characters, of the lower-cased text) a bitmap over
 * blocks of BLOCK_ROWS row_ids, bit set when a row of the block may hold it. One- and
 * two-character text has no trigram; this index says which blocks can hold it, so a search
 * tests the text on those rows only (src-main/search/transaction-where.ts).
 *
 * Exact by construction: a bit is set for every gram of every row of a fresh block, and a
 * block written since its last refresh is stale (triggers mark it: a row written, deleted or
 * given another booking date) and always a candidate. Extra bits (characters folded into
 * one symbol) only add candidates. A refresh also brings the exact row lists of the grams
 * set in few blocks (gram-rows.ts) and the accounts' gram sets (account-grams.ts) up to date,
 * inside the same transaction.
 *
 * Folding: the text and the needle are lower-cased with JavaScript's toLowerCase, and code
 * units mapped to 128 symbols (printable ASCII exactly, controls to one, everything else by
 * code unit modulo 58). Both row tests agree with it: `LIKE` folds ASCII only, and a match
 * of an ASCII needle is a run of ASCII characters whose lower case is the needle's; the
 * function for other text compares `toLowerCase` strings, whose code units are the ones here.
 */

const GRAM_TABLE = 'bank_transaction_grams';
const GRAM_STATE_TABLE = 'bank_transaction_gram_state';

/** Rows read per statement call when recomputing blocks. */
const READ_SLICE = 8192;

/** One connection's copy of the bitmaps, valid while the stored version is `version`. */
interface Bitmaps {
  version: number;
  /** Indexed by gram id; a missing gram is set in no block. */
  blocks: (Uint8Array | undefined)[];
}

const copies = new WeakMap<Database.Database, Bitmaps>();

function storedVersion(sqlite: Database.Database): number {
  return sqlite.prepare(`SELECT version FROM ${GRAM_STATE_TABLE} WHERE id = 1`).pluck().get() as number;
}

/** The bitmaps as stored, read again when another connection (or a rebuild) changed them. */
function bitmaps(sqlite: Database.Database): Bitmaps {
  const version = storedVersion(sqlite);
  const known = copies.get(sqlite);
  if (known && known.version === version) return known;
  const blocks: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(GRAMS);
  const rows = sqlite.prepare(`SELECT gram, blocks FROM ${GRAM_TABLE}`).raw().all() as [number, Buffer][];
  for (const [gram, bits] of rows)
    if (gram >= 0 && gram < GRAMS) blocks[gram] = new Uint8Array(bits.buffer, bits.byteOffset, bits.length);
  const copy = { version, blocks };
  copies.set(sqlite, copy);
  return copy;
}

/** The blocks of rows that may hold a needle (gramCandidates). */
export interface GramCandidates {
  /** How many blocks (of BLOCK_ROWS rows). */
  blocks: number;
  /** How many blocks the table spans (up to its largest row_id). */
  ofBlocks: number;
  /** The blocks as inclusive `[first, last]` row_id ranges, adjacent blocks joined. */
  ranges(): [number, number][];
}

/**
 * The blocks that may hold `needle` (a case-insensitive substring of the narrow text): those
 * holding all its grams, and every stale block. Counting them costs well under a millisecond
 * on a million rows (a bitmap per gram, one bit per block); the ranges are built only when
 * asked for (thousands of them for a common pair).
 */
export function gramCandidates(sqlite: Database.Database, needle: string): GramCandidates {
  const { blocks } = bitmaps(sqlite);
  // The blocks holding every gram (a missing gram, or past a bitmap's end, is in none).
  const maps = needleGrams(needle).map((gram) => blocks[gram] ?? new Uint8Array(0));
  const shared = new Uint8Array(Math.min(...maps.map((map) => map.length)));
  shared.set(maps[0]!.subarray(0, shared.length));
  for (const map of maps.slice(1)) for (let i = 0; i < shared.length; i++) shared[i]! &= map[i]!;
  const stale = staleBlocks(sqlite);
  for (const block of stale) if (block >> 3 < shared.length) shared[block >> 3]! |= 1 << (block & 7);
  // Stale blocks past the bitmaps' end (rows written since the last refresh), ascending.
  const beyond = stale.filter((block) => block >> 3 >= shared.length);
  let count = beyond.length;
  for (const byte of shared) count += BITS[byte]!;
  const last = sqlite.prepare(`SELECT max(row_id) FROM ${TEXT_TABLE}`).pluck().get() as number | null;
  const ofBlocks = last === null ? 0 : (last >> BLOCK_SHIFT) + 1;
  return { blocks: count, ofBlocks, ranges: () => blockRanges(shared, beyond) };
}

/** The blocks set in `bitmap`, then `more` (ascending, past its end), as row_id ranges. */
function blockRanges(bitmap: Uint8Array, more: number[]): [number, number][] {
  const blocks: number[] = [];
  bitmap.forEach((bits, byte) => {
    for (let bit = 0; bits !== 0 && bit < 8; bit++) if (bits & (1 << bit)) blocks.push(byte * 8 + bit);
  });
  return blockRuns([...blocks, ...more]).map(([first, last]) => [
    first << BLOCK_SHIFT,
    ((last + 1) << BLOCK_SHIFT) - 1,
  ]);
}

/**
 * Recomputes the bitmaps of every stale block from the narrow text table, the row lists of
 * the grams those blocks hold (gram-rows.ts) and the accounts' gram sets (account-grams.ts),
 * in one transaction, and bumps the version. Run after a sync and after migrations (on a
 * million rows about 11 s when all are stale, 0.2-0.3 s for a sync's few hundred new rows,
 * nothing when no block is stale and the accounts' sets are computed). Safe to call at any
 * time: until it runs, stale blocks are searched row by row.
 */
export function refreshGramBlocks(sqlite: Database.Database): void {
  if (!hasStaleBlocks(sqlite) && accountGramsReady(sqlite)) return;
  // The new bitmaps become this connection's copy once committed; inside a caller's
  // transaction (which may still roll back) the copy is dropped and read again when needed.
  const nested = sqlite.inTransaction;
  const committed = sqlite.transaction((): Bitmaps | null => {
    const stale = staleBlocks(sqlite);
    // The accounts' sets: every one computed from all rows when not yet, or the stale rows added.
    updateAccountGrams(sqlite, stale);
    if (stale.length === 0) return null;
    const { version, blocks } = bitmaps(sqlite);
    const bytes = Math.max(
      (stale.at(-1)! >> 3) + 1,
      blocks.reduce((max, map) => Math.max(max, map?.length ?? 0), 0),
    );
    const staleMask = new Uint8Array(bytes);
    for (const block of stale) staleMask[block >> 3]! |= 1 << (block & 7);
    // Only the bytes holding a stale block are cleared: a sync's few new blocks cost little.
    const staleBytes = [...new Set(stale.map((block) => block >> 3))];
    // Working copies, as long as the largest block number needs; stale blocks cleared.
    const next: (Uint8Array | undefined)[] = Array.from(blocks, (map) => {
      if (map === undefined) return undefined;
      const grown = new Uint8Array(bytes);
      grown.set(map);
      for (const i of staleBytes) grown[i]! &= ~staleMask[i]!;
      return grown;
    });
    // Read in slices with all(): iterate() row by row, interleaved with the gram loop, is
    // over twice as slow on a million rows.
    const read = sqlite.prepare(`SELECT row_id, text FROM ${TEXT_TABLE} WHERE row_id BETWEEN ? AND ?`).raw();
    for (const [firstBlock, lastBlock] of blockRuns(stale)) {
      const end = ((lastBlock + 1) << BLOCK_SHIFT) - 1;
      for (let from = firstBlock << BLOCK_SHIFT; from <= end; from += READ_SLICE) {
        for (const [rowId, text] of read.all(from, Math.min(end, from + READ_SLICE - 1)) as [
          number,
          string,
        ][]) {
          markRow(next, bytes, rowId, text);
        }
      }
    }
    // Only bitmaps that differ in a stale block are written: new rows mostly repeat the pairs
    // their block already had, and a million-row cache has 12 MB of bitmaps.
    const write = sqlite.prepare(`INSERT OR REPLACE INTO ${GRAM_TABLE} (gram, blocks) VALUES (?, ?)`);
    next.forEach((map, gram) => {
      const before = blocks[gram];
      if (map && staleBytes.some((i) => map[i] !== (before?.[i] ?? 0))) write.run(gram, map);
    });
    updateGramRows(sqlite, blocks, next, stale);
    sqlite.prepare(`DELETE FROM ${GRAM_STALE_TABLE}`).run();
    sqlite.prepare(`UPDATE ${GRAM_STATE_TABLE} SET version = ? WHERE id = 1`).run(version + 1);
    return { version: version + 1, blocks: next };
  })();
  if (committed === null) return;
  if (nested) copies.delete(sqlite);
  else copies.set(sqlite, committed);
}

/**
 * Sets the bits of `rowId`'s block for every gram of `text` in `maps` (creating bitmaps of
 * `bytes` bytes).
 */
function markRow(maps: (Uint8Array | undefined)[], bytes: number, rowId: number, text: string): void {
  const byte = rowId >> (BLOCK_SHIFT + 3);
  const bit = 1 << ((rowId >> BLOCK_SHIFT) & 7);
  const lower = text.toLowerCase();
  let previous = -1;
  for (let i = 0; i < lower.length; i++) {
    const current = SYMBOL[lower.charCodeAt(i)]!;
    setBit(maps, bytes, UNIGRAM + current, byte, bit);
    if (previous >= 0) setBit(maps, bytes, previous * SYMBOLS + current, byte, bit);
    previous = current;
  }
}

function setBit(
  maps: (Uint8Array | undefined)[],
  bytes: number,
  gram: number,
  byte: number,
  bit: number,
): void {
  let map = maps[gram];
  if (map === undefined) maps[gram] = map = new Uint8Array(bytes);
  map[byte]! |= bit;
}

/** Forgets every bitmap and marks every block stale, then recomputes them all (a repair). */
export function rebuildGramBlocks(sqlite: Database.Database): void {
  sqlite.transaction(() => {
    sqlite.prepare(`DELETE FROM ${GRAM_TABLE}`).run();
    clearGramRows(sqlite);
    clearAccountGrams(sqlite);
    sqlite.prepare(`DELETE FROM ${GRAM_STALE_TABLE}`).run();
    sqlite
      .prepare(
        `INSERT OR IGNORE INTO ${GRAM_STALE_TABLE} (block) SELECT row_id >> ${BLOCK_SHIFT} FROM ${TEXT_TABLE}`,
      )
      .run();
    sqlite.prepare(`UPDATE ${GRAM_STATE_TABLE} SET version = version + 1 WHERE id = 1`).run();
    refreshGramBlocks(sqlite);
  })();
}

/**
 * True when every row's block is stale or holds every gram of the row's text: the invariant
 * that keeps short-text searches exact. Recomputes every bitmap (one pass over the narrow
 * text table) and checks that the stored ones hold it outside stale blocks.
 */
export function gramBlocksAreConsistent(sqlite: Database.Database): boolean {
  const { blocks } = bitmaps(sqlite);
  const stale = staleBlocks(sqlite);
  const last = sqlite.prepare(`SELECT max(row_id) FROM ${TEXT_TABLE}`).pluck().get() as number | null;
  const bytes = ((last ?? 0) >> (BLOCK_SHIFT + 3)) + 1;
  const fresh: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(GRAMS);
  const rows = sqlite.prepare(`SELECT row_id, text FROM ${TEXT_TABLE}`).raw();
  for (const [rowId, text] of rows.iterate() as Iterable<[number, string]>)
    markRow(fresh, bytes, rowId, text);
  const staleMask = new Uint8Array(bytes);
  for (const block of stale) if (block >> 3 < bytes) staleMask[block >> 3]! |= 1 << (block & 7);
  const blocksHold = fresh.every((map, gram) => {
    const stored = blocks[gram];
    return map === undefined || map.every((bits, i) => (bits & ~staleMask[i]! & ~(stored?.[i] ?? 0)) === 0);
  });
  return blocksHold && gramRowsAreConsistent(sqlite, blocks) && accountGramsAreConsistent(sqlite);
}
