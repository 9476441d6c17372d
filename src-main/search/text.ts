import type Database from 'better-sqlite3';
import { likeContains } from '../store/fts';
import type { SqlPart } from './sql';

/**
 * Case-insensitive substring conditions over plain columns (no index): the short-text
 * fallback of transaction search and the whole of expense and supplier search.
 *
 * SQLite's LIKE folds ASCII letters only. Text with only ASCII characters therefore uses
 * LIKE (fast, in C); text with any other character ("Zür", "ü") uses a small JS function that
 * folds like JavaScript's toLowerCase, the same folding the sandbox's v0 search uses, so
 * "bÜro" finds "Büroshop24". Such text is rare and the slower path is still correct.
 */

const FUNCTION = 'satchel_icontains';
const registered = new WeakSet<Database.Database>();

function registerFolding(sqlite: Database.Database): void {
  if (registered.has(sqlite)) return;
  sqlite.function(FUNCTION, { deterministic: true }, (haystack: unknown, needle: unknown) =>
    typeof haystack === 'string' && typeof needle === 'string' && haystack.toLowerCase().includes(needle)
      ? 1
      : 0,
  );
  registered.add(sqlite);
}

/** The search text as searched: trimmed, NUL characters dropped. Empty means "no filter". */
export function searchText(text: string | undefined): string {
  return (text ?? '').replaceAll('\u0000', '').trim();
}

export const isAscii = (text: string) => /^[\x20-\x7e]*$/.test(text);

/** Number of characters (not UTF-16 units). */
export const charCount = (text: string) => [...text].length;

/**
 * `text` is a case-insensitive substring of one of `columns` (SQL expressions). `name` is
 * the parameter name to use; `text` must already be non-empty.
 */
export function containsAny(
  sqlite: Database.Database,
  columns: string[],
  text: string,
  name: string,
): SqlPart {
  if (isAscii(text)) {
    return {
      sql: columns.map((column) => `${column} LIKE @${name} ESCAPE '\\'`).join(' OR '),
      params: { [name]: likeContains(text) },
    };
  }
  registerFolding(sqlite);
  return {
    sql: columns.map((column) => `${FUNCTION}(${column}, @${name})`).join(' OR '),
    params: { [name]: text.toLowerCase() },
  };
}
