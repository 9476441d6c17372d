import type Database from 'better-sqlite3';
import { gramBlocksAreConsistent, rebuildGramBlocks } from './gram-blocks';
import { TEXT_TABLE, TEXT_VALUE } from './text-table';

/**
 * Free-text search helpers for `bank_transactions_fts` (migration `0001_fts.sql`): an FTS5
 * trigram index over id, group_id, counterparty, bank_account_number and description; and for
 * the narrow text table `bank_transaction_text` (migration `0005_transaction_text.sql`, named in
 * text-table.ts), which the row-by-row tests read, with its gram blocks (gram-blocks.ts). All
 * three are rebuilt and checked together, below. The expense documents and their trigram index
 * (migration `0015_expense_text.sql`) are rebuilt and checked at the end of this file.
 *
 * Usage, for a user's text `q`:
 *
 *   isIndexable(q)
 *     ? `t.row_id IN (SELECT rowid FROM bank_transactions_fts WHERE bank_transactions_fts MATCH ?)`
 *       with ftsLiteral(q)
 *     : `(t.id LIKE @q ESCAPE '\' OR t.group_id LIKE @q ESCAPE '\' OR …)` with likeContains(q)
 *
 * Both mean "case-insensitive substring of one of the columns". The trigram index only knows
 * 3-character windows, so 1–2 character text cannot use it and is tested row by row on the
 * narrow text table, on the blocks its gram index names (gram-blocks.ts).
 */

export const FTS_TABLE = 'bank_transactions_fts';

/**
 * Expense documents (migration `0015_expense_text.sql`): one per expense (its description,
 * booking text and merchant name; `line_id` NULL) and one per line (its description), kept by
 * triggers on expenses and expense_lines.
 */
export const EXPENSE_TEXT_TABLE = 'expense_text';

/** The trigram index over {@link EXPENSE_TEXT_TABLE} (external content, keyed by `row_id`). */
export const EXPENSE_FTS_TABLE = 'expense_text_fts';

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
 * Re-derives the search indexes from the table: the trigram index, the narrow text table and
 * its gram blocks. The repair for indexes that drifted (e.g. a migration that recreated the
 * table and its triggers). Takes seconds per million rows.
 */
export function rebuildTransactionSearch(sqlite: Database.Database): void {
  sqlite.transaction(() => {
    sqlite.prepare(`INSERT INTO ${FTS_TABLE} (${FTS_TABLE}) VALUES ('rebuild')`).run();
    sqlite.prepare(`DELETE FROM ${TEXT_TABLE}`).run();
    sqlite
      .prepare(
        `INSERT INTO ${TEXT_TABLE} (row_id, text) SELECT t.row_id, ${TEXT_VALUE('t')} FROM bank_transactions t`,
      )
      .run();
    rebuildGramBlocks(sqlite);
  })();
}

/**
 * FTS5's integrity-check with rank 1 compares an external-content index against its content
 * table; it throws SQLITE_CORRUPT_VTAB when they differ.
 */
function indexAgrees(sqlite: Database.Database, table: string): boolean {
  try {
    sqlite.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 1)`).run();
    return true;
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_CORRUPT'))
      return false;
    throw error;
  }
}

/**
 * True when the indexes agree with the table, row by row: the trigram index (indexAgrees), the
 * text table holding exactly one row per transaction with its values, and every row's gram
 * block stale or holding the row's grams.
 */
export function transactionSearchIsConsistent(sqlite: Database.Database): boolean {
  if (!indexAgrees(sqlite, FTS_TABLE)) return false;
  const differing = sqlite
    .prepare(
      `SELECT (SELECT count(*) FROM bank_transactions t LEFT JOIN ${TEXT_TABLE} x ON x.row_id = t.row_id
                WHERE x.text IS NOT ${TEXT_VALUE('t')})
            + (SELECT count(*) FROM ${TEXT_TABLE} x
                WHERE NOT EXISTS (SELECT 1 FROM bank_transactions t WHERE t.row_id = x.row_id))`,
    )
    .pluck()
    .get() as number;
  return differing === 0 && gramBlocksAreConsistent(sqlite);
}

/** The documents of every expense and line, as the triggers of migration 0015 write them. */
const EXPENSE_DOCUMENTS = `
  SELECT id AS expense_id, NULL AS line_id, description, booking_text, merchant_name FROM expenses
  UNION ALL
  SELECT expense_id, id, json_extract(raw, '$.description'), NULL, NULL FROM expense_lines`;

/**
 * Re-derives the expense documents and their trigram index from expenses and expense_lines:
 * the repair for a drifted index (a migration that recreated either table and its triggers).
 */
export function rebuildExpenseSearch(sqlite: Database.Database): void {
  sqlite.transaction(() => {
    // First the index from the documents as they are, so that the triggers' 'delete' of each
    // old document below finds it (on an index that had drifted it would fail as corrupt).
    sqlite.prepare(`INSERT INTO ${EXPENSE_FTS_TABLE} (${EXPENSE_FTS_TABLE}) VALUES ('rebuild')`).run();
    sqlite.prepare(`DELETE FROM ${EXPENSE_TEXT_TABLE}`).run();
    sqlite
      .prepare(
        `INSERT INTO ${EXPENSE_TEXT_TABLE} (expense_id, line_id, description, booking_text, merchant_name)
         ${EXPENSE_DOCUMENTS}`,
      )
      .run();
  })();
}

/**
 * True when the expense documents are exactly those of the expenses and lines (one each, with
 * their values) and the trigram index agrees with the documents.
 */
export function expenseSearchIsConsistent(sqlite: Database.Database): boolean {
  if (!indexAgrees(sqlite, EXPENSE_FTS_TABLE)) return false;
  // Both ways, duplicates counted (SQLite has no EXCEPT ALL): grouped rows with their counts.
  const differing = sqlite
    .prepare(
      `WITH want AS (SELECT expense_id, line_id, description, booking_text, merchant_name, count(*) AS n
                     FROM (${EXPENSE_DOCUMENTS}) GROUP BY 1, 2, 3, 4, 5),
            have AS (SELECT expense_id, line_id, description, booking_text, merchant_name, count(*) AS n
                     FROM ${EXPENSE_TEXT_TABLE} GROUP BY 1, 2, 3, 4, 5)
       SELECT (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM have))
            + (SELECT count(*) FROM (SELECT * FROM have EXCEPT SELECT * FROM want))`,
    )
    .pluck()
    .get() as number;
  return differing === 0;
}
