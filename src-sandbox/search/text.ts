import type { TransactionTable } from '../data/transactions';

/**
 * Free text: a case-insensitive substring of id, groupId, counterparty or bankAccountNumber.
 * Counterparties and account numbers are dictionary codes, so the query is tested once per
 * distinct string. Ids and group ids are lower-case hex: a query with any other character
 * cannot match them. Otherwise each id's hex bigrams (pairs of adjacent hex digits, 256
 * possible) are kept as a 256-bit set per row; only rows holding every bigram of the query
 * can match, and only those few are tested on the id's bytes (37 per row). A query with no
 * hex bigram (one digit, or digits split by dashes) runs `Buffer#indexOf` over all ids. Both
 * are built on first use and kept until rows are appended.
 */

const ROW_WIDTH = 37;
const HEXISH = /^[0-9a-f-]+$/;

const WORDS = 8; // 256 bigram bits per id

interface IdIndex {
  version: number;
  ids: Buffer;
  groups: Buffer;
  idBigrams: Uint32Array;
  groupBigrams: Uint32Array;
}
const indexes = new WeakMap<TransactionTable, IdIndex>();

/** All ids as ASCII, 37 bytes a row ("\n" after each), so one Buffer#indexOf pass finds every hit. */
function idBytes(count: number, write: (i: number, out: Uint8Array, offset: number) => void): Buffer {
  const out = Buffer.alloc(count * ROW_WIDTH, 10);
  for (let i = 0; i < count; i++) write(i, out, i * ROW_WIDTH);
  return out;
}

function idIndex(table: TransactionTable): IdIndex {
  let index = indexes.get(table);
  if (!index || index.version !== table.version()) {
    const ids = idBytes(table.size(), table.writeId);
    const groups = idBytes(table.groupCount(), table.writeGroupId);
    index = {
      version: table.version(),
      ids,
      groups,
      idBigrams: bigramSets(ids, table.size()),
      groupBigrams: bigramSets(groups, table.groupCount()),
    };
    indexes.set(table, index);
  }
  return index;
}

/** 0–15 for a lower-case hex digit's byte, -1 otherwise. */
const NIBBLE = new Int8Array(256).fill(-1);
for (let digit = 0; digit < 16; digit++) NIBBLE[digit.toString(16).charCodeAt(0)] = digit;

/** The bigrams of some bytes as bit numbers (high digit * 16 + low digit). */
function bigramsOf(bytes: Uint8Array, from: number, to: number, visit: (bit: number) => void): void {
  for (let i = from; i + 1 < to; i++) {
    const high = NIBBLE[bytes[i] as number] as number;
    const low = NIBBLE[bytes[i + 1] as number] as number;
    if (high >= 0 && low >= 0) visit(high * 16 + low);
  }
}

function bigramSets(bytes: Buffer, count: number): Uint32Array {
  const sets = new Uint32Array(count * WORDS);
  for (let i = 0; i < count; i++) {
    const base = i * WORDS;
    bigramsOf(bytes, i * ROW_WIDTH, i * ROW_WIDTH + ROW_WIDTH - 1, (bit) => {
      sets[base + (bit >>> 5)] = (sets[base + (bit >>> 5)] as number) | (1 << (bit & 31));
    });
  }
  return sets;
}

/**
 * Marks every position (row or group) whose 36-character id contains the query: rows whose
 * bigram set holds all of the query's bigrams are tested on their bytes.
 */
function hits(bytes: Buffer, sets: Uint32Array, count: number, query: string): Uint8Array {
  const needle = Buffer.from(query, 'latin1');
  const wanted = new Uint32Array(WORDS);
  let any = false;
  bigramsOf(needle, 0, needle.length, (bit) => {
    wanted[bit >>> 5] = (wanted[bit >>> 5] as number) | (1 << (bit & 31));
    any = true;
  });
  if (!any) return scanHits(bytes, count, needle);
  const words: number[] = [];
  for (let w = 0; w < WORDS; w++) if (wanted[w] !== 0) words.push(w);
  const marks = new Uint8Array(count);
  outer: for (let i = 0; i < count; i++) {
    const base = i * WORDS;
    for (const w of words) {
      const want = wanted[w] as number;
      if (((sets[base + w] as number) & want) >>> 0 !== want) continue outer;
    }
    if (bytes.subarray(i * ROW_WIDTH, i * ROW_WIDTH + ROW_WIDTH - 1).includes(needle)) marks[i] = 1;
  }
  return marks;
}

/** Every position whose id contains the needle, by one `indexOf` pass over all ids. */
function scanHits(bytes: Buffer, count: number, needle: Buffer): Uint8Array {
  const marks = new Uint8Array(count);
  let from = 0;
  for (;;) {
    const at = bytes.indexOf(needle, from);
    if (at < 0) break;
    const position = Math.floor(at / ROW_WIDTH);
    marks[position] = 1;
    from = (position + 1) * ROW_WIDTH;
  }
  return marks;
}

function dictionaryMask(lower: string[], query: string): Uint8Array {
  const mask = new Uint8Array(Math.max(1, lower.length));
  lower.forEach((text, code) => {
    if (text.includes(query)) mask[code] = 1;
  });
  return mask;
}

/** Masks that decide a row's text match, or null when the query is blank (no filter). */
export interface TextMasks {
  counterparty: Uint8Array;
  accountNumber: Uint8Array;
  /** Per row / per group; null when the query cannot occur in a hex id. */
  ids: Uint8Array | null;
  groups: Uint8Array | null;
}

export function textMasks(table: TransactionTable, freeText: string | undefined): TextMasks | null {
  const query = (freeText ?? '').trim().toLowerCase();
  if (query === '') return null;
  const counterparty = dictionaryMask(table.counterparties.lower, query);
  const accountNumber = dictionaryMask(table.bankAccountNumbers.lower, query);
  if (query.length > 36 || !HEXISH.test(query))
    return { counterparty, accountNumber, ids: null, groups: null };
  const index = idIndex(table);
  return {
    counterparty,
    accountNumber,
    ids: hits(index.ids, index.idBigrams, table.size(), query),
    groups: hits(index.groups, index.groupBigrams, table.groupCount(), query),
  };
}
