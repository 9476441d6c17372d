import type { TransactionTable } from '../data/transactions';

/**
 * Free text: a case-insensitive substring of id, groupId, counterparty or bankAccountNumber.
 * Counterparties and account numbers are dictionary codes, so the query is tested once per
 * distinct string. Ids and group ids are lower-case hex: a query with any other character
 * cannot match them; otherwise the query runs `Buffer#indexOf` over the bytes of all ids
 * (37 bytes per row), built on first use and kept until rows are appended.
 */

const ROW_WIDTH = 37;
const HEXISH = /^[0-9a-f-]+$/;

interface IdIndex {
  version: number;
  ids: Buffer;
  groups: Buffer;
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
    index = {
      version: table.version(),
      ids: idBytes(table.size(), table.writeId),
      groups: idBytes(table.groupCount(), table.writeGroupId),
    };
    indexes.set(table, index);
  }
  return index;
}

/** Marks every position (row or group) whose 36-character id contains the query. */
function hits(bytes: Buffer, count: number, query: string): Uint8Array {
  const marks = new Uint8Array(count);
  const needle = Buffer.from(query, 'latin1');
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
    ids: hits(index.ids, table.size(), query),
    groups: hits(index.groups, table.groupCount(), query),
  };
}
