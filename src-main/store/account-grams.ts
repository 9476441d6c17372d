import type Database from 'better-sqlite3';
import {
  BLOCK_SHIFT,
  eachTextRow,
  GRAMS,
  hasStaleBlocks,
  needleGrams,
  staleBlocks,
  SYMBOL,
  SYMBOLS,
  UNIGRAM,
} from './grams';

/**
 * Per account, the ASCII grams its transactions' free text may hold (migration
 * `0010_account_grams.sql`): a bitmap over the gram ids of gram-blocks.ts. Printable ASCII
 * text with a gram missing from every account a search asks for matches nothing there
 * (textAbsentFromAccounts), whatever the search would test it with: each code unit counts as
 * itself lower-cased and as every ASCII character a case mapping makes of it (SQLite's LIKE
 * folds ASCII only, FTS5 folds the Kelvin sign to "k" and the long s to "s", JavaScript
 * lower-cases "İ" to "i" and a dot).
 *
 * A superset kept by the gram refresh (refreshGramBlocks): the grams of every stale block's
 * rows are added to their account's set; nothing is ever removed except by a rebuild. Until
 * the first refresh after the migration has computed every set from all rows (the state's
 * `account_grams_ready`), and while any block is stale, no text is said to be absent.
 */

const TABLE = 'bank_transaction_account_grams';
const STATE_TABLE = 'bank_transaction_gram_state';
const BYTES = GRAMS >> 3;

/** For each code unit, the symbols of the printable ASCII characters a search may fold it to. */
const FOLDS: readonly (readonly number[])[] = Array.from({ length: 0x10000 }, (_, unit) => {
  const char = String.fromCharCode(unit);
  const symbols = new Set<number>();
  for (const folded of [char.toLowerCase(), char.toUpperCase().toLowerCase()])
    for (const c of folded) {
      const code = c.charCodeAt(0);
      if (code >= 0x20 && code < 0x7f) symbols.add(SYMBOL[code]!);
    }
  return [...symbols];
});

/** Sets the bits of every ASCII gram `text` may hold, as any search folds it. */
function markText(bits: Uint8Array, text: string): void {
  let previous: readonly number[] = [];
  for (let i = 0; i < text.length; i++) {
    const symbols = FOLDS[text.charCodeAt(i)]!;
    for (const symbol of symbols) {
      const unigram = UNIGRAM + symbol;
      bits[unigram >> 3]! |= 1 << (unigram & 7);
      for (const before of previous) {
        const pair = before * SYMBOLS + symbol;
        bits[pair >> 3]! |= 1 << (pair & 7);
      }
    }
    previous = symbols;
  }
}

const isPrintableAscii = (text: string) => /^[\x20-\x7e]+$/.test(text);

/** Whether every account's set has been computed (since the migration or the last rebuild). */
export const accountGramsReady = (sqlite: Database.Database) =>
  sqlite.prepare(`SELECT account_grams_ready FROM ${STATE_TABLE} WHERE id = 1`).pluck().get() === 1;

/**
 * True when no transaction of `accounts` (ids as stored; others hold no rows) can hold
 * `needle`: it is printable ASCII and each account's set lacks one of its grams. False when
 * that cannot be told (other text, sets not computed yet, stale blocks).
 */
export function textAbsentFromAccounts(
  sqlite: Database.Database,
  needle: string,
  accounts: readonly string[],
): boolean {
  if (!isPrintableAscii(needle) || !accountGramsReady(sqlite)) return false;
  if (hasStaleBlocks(sqlite)) return false;
  const grams = needleGrams(needle);
  const read = sqlite.prepare(`SELECT grams FROM ${TABLE} WHERE account = ?`).pluck();
  return accounts.every((account) => {
    const bits = read.get(account) as Buffer | undefined;
    // With every set computed and no block stale, an account without a set has no rows.
    return bits === undefined || grams.some((gram) => (bits[gram >> 3]! & (1 << (gram & 7))) === 0);
  });
}

/**
 * Brings the sets up to date inside the gram refresh's transaction: every set computed from
 * all rows when they are not yet (after the migration or a rebuild), else the grams of the
 * stale blocks' rows added to their accounts' sets. Returns whether anything was to do.
 */
export function updateAccountGrams(sqlite: Database.Database, stale: readonly number[]): boolean {
  const all = !accountGramsReady(sqlite);
  if (!all && stale.length === 0) return false;
  const sets = new Map<string, Uint8Array>();
  const setOf = (account: string) => {
    let bits = sets.get(account);
    if (!bits) {
      const stored = all
        ? undefined
        : (sqlite.prepare(`SELECT grams FROM ${TABLE} WHERE account = ?`).pluck().get(account) as
            Buffer | undefined);
      bits = new Uint8Array(BYTES);
      if (stored) bits.set(stored.subarray(0, BYTES));
      sets.set(account, bits);
    }
    return bits;
  };
  eachTextRow(sqlite, all ? 'all' : stale, 't.bank_account_id', (_, text, account) =>
    markText(setOf(account as string), text),
  );
  if (all) sqlite.prepare(`DELETE FROM ${TABLE}`).run();
  const write = sqlite.prepare(`INSERT OR REPLACE INTO ${TABLE} (account, grams) VALUES (?, ?)`);
  for (const [account, bits] of sets) write.run(account, Buffer.from(bits));
  if (all) sqlite.prepare(`UPDATE ${STATE_TABLE} SET account_grams_ready = 1 WHERE id = 1`).run();
  return true;
}

/** Forgets every set; the next refresh computes them from all rows. */
export function clearAccountGrams(sqlite: Database.Database): void {
  sqlite.prepare(`DELETE FROM ${TABLE}`).run();
  sqlite.prepare(`UPDATE ${STATE_TABLE} SET account_grams_ready = 0 WHERE id = 1`).run();
}

/**
 * True when every fresh row's grams are in its account's set (stale rows are added by the
 * next refresh), or the sets are not computed yet. One pass over the text and accounts.
 */
export function accountGramsAreConsistent(sqlite: Database.Database): boolean {
  if (!accountGramsReady(sqlite)) return true;
  const stale = new Set(staleBlocks(sqlite));
  const stored = new Map(
    (sqlite.prepare(`SELECT account, grams FROM ${TABLE}`).raw().all() as [string, Buffer][]).map(
      ([account, grams]) => [account, grams],
    ),
  );
  const expected = new Map<string, Uint8Array>();
  eachTextRow(sqlite, 'all', 't.bank_account_id', (rowId, text, account) => {
    if (stale.has(rowId >> BLOCK_SHIFT)) return;
    let bits = expected.get(account as string);
    if (!bits) expected.set(account as string, (bits = new Uint8Array(BYTES)));
    markText(bits, text);
  });
  for (const [account, bits] of expected) {
    const kept = stored.get(account);
    if (!kept || bits.some((byte, i) => (byte & ~(kept[i] ?? 0)) !== 0)) return false;
  }
  return true;
}
