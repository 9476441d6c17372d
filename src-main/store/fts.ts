import type Database from 'better-sqlite3';

/**
 * Free-text search helpers for `bank_transactions_fts` (migration `0001_fts.sql`): an FTS5
 * trigram index over id, group_id, counterparty, bank_account_number and description.
 *
 * Usage, for a user's text `q`:
 *
 *   isIndexable(q)
 *     ? `t.row_id IN (SELECT rowid FROM bank_transactions_fts WHERE bank_transactions_fts MATCH ?)`
 *       with ftsLiteral(q)
 *     : `(t.id LIKE @q ESCAPE '\' OR t.group_id LIKE @q ESCAPE '\' OR …)` with likeContains(q)
 *
 * Both mean "case-insensitive substring of one of the columns". The trigram index only knows
 * 3-character windows, so 1–2 character text cannot use it and scans instead (fast enough for
 * a short word typed into a search box; the UI may also wait for the third character).
 */

export const FTS_TABLE = 'bank_transactions_fts';

/** Shortest text the trigram index can answer; shorter text must use {@link likeContains}. */
export const FTS_MIN_CHARS = 3;

/** Characters, not UTF-16 units: "€€€" is three characters and three-character trigrams. */
const charCount = (text: string) => [...text].length;

/** NUL ends a C string inside SQLite's tokenizer; nobody types one on purpose. */
const withoutNul = (text: string) => text.replaceAll('\u0000', '');

/** Whether `text` is long enough for the index (after dropping NUL characters). */
export function isIndexable(text: string): boolean {
  return charCount(withoutNul(text)) >= FTS_MIN_CHARS;
}

/**
 * Turns user text into an FTS5 query that matches it literally as a substring: one string
 * (phrase) in double quotes, inner quotes doubled. Inside a string FTS5 gives no meaning to
 * `*`, `^`, `:`, `(`, `)`, `-`, `+`, AND, OR, NOT or NEAR, so none of them can change the
 * query or make it a syntax error. The text is not trimmed: leading or trailing spaces are
 * part of the substring, and trimming is the caller's decision.
 */
export function ftsLiteral(text: string): string {
  return `"${withoutNul(text).replaceAll('"', '""')}"`;
}

/**
 * The LIKE pattern for the short-text fallback: `%text%` with `%`, `_` and the escape
 * character escaped; use with `ESCAPE '\'`. SQLite's LIKE is case-insensitive for ASCII only,
 * which matches what an accountant types into a 1–2 character search.
 */
export function likeContains(text: string): string {
  return `%${withoutNul(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Re-derives the whole index from the table: the repair for an index that drifted (e.g. a
 * migration that recreated the table and its triggers). Takes seconds per million rows.
 */
export function rebuildTransactionSearch(sqlite: Database.Database): void {
  sqlite.prepare(`INSERT INTO ${FTS_TABLE} (${FTS_TABLE}) VALUES ('rebuild')`).run();
}

/**
 * True when the index agrees with the table, row by row. FTS5's integrity-check with rank 1
 * compares an external-content index against its content table; it throws SQLITE_CORRUPT_VTAB
 * when they differ.
 */
export function transactionSearchIsConsistent(sqlite: Database.Database): boolean {
  try {
    sqlite.prepare(`INSERT INTO ${FTS_TABLE} (${FTS_TABLE}, rank) VALUES ('integrity-check', 1)`).run();
    return true;
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_CORRUPT'))
      return false;
    throw error;
  }
}
