import type Database from 'better-sqlite3';
import { and, eq, getTableColumns, getTableName, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { parseMoney } from '../../src-shared/money';
import type { Tx } from './types';

/**
 * Writing API records into the cache: upsert on the record's id, refreshing every column the
 * rows carry (`raw` and `synced_at` included) and clearing `deleted_at` (a record that is
 * back is not deleted). Columns the rows do not carry — a file's local copy, the edit flag —
 * keep their value. Tables with `local_edit_pending` keep their row while an offline edit is
 * unsent: the upsert's WHERE leaves such rows alone, so a pull never overwrites a user's edit.
 *
 * This is the hot path of a sync (a million transactions on a first sync), so each statement
 * is prepared once per connection and run row by row inside the page's transaction, instead
 * of building and preparing a new multi-row statement for every page.
 */

type Row = Record<string, unknown>;

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function prepared(db: Database.Database, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The SQL names of the row's keys, in the row's key order. */
function sqlColumns(table: SQLiteTable, keys: string[]): string[] {
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  return keys.map((key) => {
    const column = columns[key];
    if (!column) throw new Error(`${getTableName(table)} has no column ${key}`);
    return column.name;
  });
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null: booleans become 0/1. */
function bind(row: Row, keys: string[]): unknown[] {
  return keys.map((key) => {
    const value = row[key];
    return value === undefined ? null : typeof value === 'boolean' ? (value ? 1 : 0) : value;
  });
}

export function upsertRows(db: Database.Database, table: SQLiteTable, rows: Row[], key = 'id'): number {
  const first = rows[0];
  if (!first) return 0;
  const keys = Object.keys(first);
  const names = sqlColumns(table, keys);
  const [target] = sqlColumns(table, [key]);
  const updates = names
    .filter((name) => name !== target && name !== 'row_id')
    .map((name) => `${quote(name)} = excluded.${quote(name)}`);
  const guarded = 'localEditPending' in getTableColumns(table);
  const statement = prepared(
    db,
    `INSERT INTO ${quote(getTableName(table))} (${names.map(quote).join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (${quote(target ?? key)}) DO UPDATE SET ${updates.join(', ')}${guarded ? ' WHERE local_edit_pending = 0' : ''}`,
  );
  for (const row of rows) {
    const { changes } = statement.run(bind(row, keys));
    if (guarded && changes === 0 && typeof row['raw'] === 'string') keepAsBase(db, row[key], row['raw']);
  }
  return rows.length;
}

/**
 * The server's version of a record whose row a pull left alone for its unsent edits becomes
 * the version those edits apply to (`outbox.base`): the pull's high-water mark moves past it,
 * so a discard of the edits must bring back this version, not the older one they were made
 * on. Their `based_on` stays, so the push still finds the server changed and asks the user.
 */
function keepAsBase(db: Database.Database, id: unknown, raw: string): void {
  prepared(
    db,
    `UPDATE outbox SET base = ? WHERE record_id = ? AND status IN ('pending', 'sending', 'failed', 'conflict')`,
  ).run(raw, id);
}

/** Plain insert, for child rows whose old set was just deleted (fees, line dimensions). */
export function insertRows(db: Database.Database, table: SQLiteTable, rows: Row[]): number {
  const first = rows[0];
  if (!first) return 0;
  const keys = Object.keys(first);
  const names = sqlColumns(table, keys);
  const statement = prepared(
    db,
    `INSERT INTO ${quote(getTableName(table))} (${names.map(quote).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
  );
  for (const row of rows) statement.run(bind(row, keys));
  return rows.length;
}

/** Deletes the child rows of the given parents (`column` = parent id), one prepared statement. */
export function deleteChildren(
  db: Database.Database,
  table: SQLiteTable,
  column: string,
  parentIds: string[],
): void {
  const [name] = sqlColumns(table, [column]);
  const statement = prepared(
    db,
    `DELETE FROM ${quote(getTableName(table))} WHERE ${quote(name ?? column)} = ?`,
  );
  for (const id of parentIds) statement.run(id);
}

/**
 * Marks rows a complete read did not return as deleted: those matching `scope` whose
 * `synced_at` is older than when the read began. Rows with unsent edits are left alone, and
 * so are the records the read listed but could not parse (`unread`, by id): they exist
 * upstream, and keep their last good version until they can be read.
 */
export function markUnseenDeleted(
  tx: Tx,
  table: SQLiteTable,
  scope: SQL | undefined,
  readStartedAt: string,
  now: string,
  unread: readonly string[] = [],
): number {
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const syncedAt = columns['syncedAt'];
  const deletedAt = columns['deletedAt'];
  const id = columns['id'];
  if (!syncedAt || !deletedAt || !id) throw new Error('table has no id/synced_at/deleted_at');
  const pending = columns['localEditPending'];
  const where = and(
    scope,
    lt(syncedAt, readStartedAt),
    isNull(deletedAt),
    pending ? eq(pending, false) : undefined,
    unread.length > 0
      ? sql`${id} NOT IN (SELECT value FROM json_each(${JSON.stringify(unread)}))`
      : undefined,
  );
  return tx
    .update(table)
    .set({ deletedAt: now } as never)
    .where(where)
    .run().changes;
}

/** Minor units and currency of an optional Money member, as two columns. */
export function money(value: { amount: string; currency: string } | null | undefined): {
  minor: number | null;
  currency: string | null;
} {
  if (!value) return { minor: null, currency: null };
  return { minor: parseMoney(value).minor, currency: value.currency };
}
