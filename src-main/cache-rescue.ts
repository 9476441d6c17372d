import { existsSync, renameSync } from 'node:fs';
import Database from 'better-sqlite3';
import { log } from './log';
import { chainBase, OPEN_STATUSES, rebuildRow } from './outbox/queue';
import type { OutboxResource } from './outbox/records';
import type { CacheDb } from './store';

/**
 * A damaged offline copy, set aside instead of deleted. The cache is a copy of the server and
 * a sync rebuilds it, but the unsent edits, review marks, tags and the organisation's settings
 * exist only in it: they are the user's work. So a cache that cannot be opened is moved aside
 * whole (with its WAL), a fresh one made in its place, and whatever of that work can still be
 * read is copied into the fresh one (docs/store.md, "A damaged offline copy").
 */

/** What of the user's own work a damaged copy still gives up, counted before setting it aside. */
export interface ReadableWork {
  edits: number;
  marks: number;
}

export interface RescuedWork extends ReadableWork {
  tags: number;
}

/** The user's own tables, in the order they are copied (the outbox last: its rows are rebuilt). */
const OWN_TABLES = ['review_marks', 'review_tags', 'organisation_settings', 'outbox'] as const;

const SUFFIXES = ['', '-wal', '-shm'];

function openReadOnly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true });
}

/**
 * Counts the unsent edits and review marks SQLite can still read in `file`, without writing to
 * it; null when it gives up nothing (not a database, or its tables unreadable).
 */
export function readableWork(file: string): ReadableWork | null {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = openReadOnly(file);
    const count = (sql: string) => Number(sqlite!.prepare(sql).pluck().get());
    const statuses = OPEN_STATUSES.map((status) => `'${status}'`).join(', ');
    return {
      edits: hasTable(sqlite, 'outbox')
        ? count(`SELECT count(*) FROM outbox WHERE status IN (${statuses})`)
        : 0,
      marks: hasTable(sqlite, 'review_marks') ? count('SELECT count(*) FROM review_marks') : 0,
    };
  } catch {
    return null;
  } finally {
    sqlite?.close();
  }
}

/**
 * Renames the cache file and its WAL and shared-memory files to `<name>.damaged-<when>.sqlite…`
 * beside it, never over an earlier one; returns the new name of the main file.
 */
export function setAsideCache(file: string, now: Date): string {
  const stem = file.replace(/\.sqlite$/, '');
  const when = now.toISOString().replace(/[:.]/g, '-');
  let target = `${stem}.damaged-${when}.sqlite`;
  for (let n = 2; SUFFIXES.some((suffix) => existsSync(`${target}${suffix}`)); n += 1)
    target = `${stem}.damaged-${when}-${n}.sqlite`;
  // The WAL first: a main file moved without it would lose its last commits.
  for (const suffix of ['-wal', '-shm', '']) {
    if (existsSync(`${file}${suffix}`)) renameSync(`${file}${suffix}`, `${target}${suffix}`);
  }
  return target;
}

function hasTable(sqlite: Database.Database, table: string): boolean {
  return (
    sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined
  );
}

function columnsOf(sqlite: Database.Database, table: string): string[] {
  return (sqlite.pragma(`table_info(${table})`) as Array<{ name: string }>).map((column) => column.name);
}

/**
 * Copies what can be read of the user's own tables from the set-aside copy into the fresh cache:
 * the columns both know (a copy from a newer version may have more), row by row until SQLite
 * cannot read further (a damaged page), then the rows of every open edit rebuilt as they showed
 * before (`rebuildRow`), so a pull does not overwrite them. Never writes to `from`.
 */
export function rescueWork(from: string, into: CacheDb): RescuedWork {
  const rescued: RescuedWork = { edits: 0, marks: 0, tags: 0 };
  let source: Database.Database;
  try {
    source = openReadOnly(from);
  } catch (error) {
    log.warn(`nothing could be read from the set-aside copy ${from}:`, error);
    return rescued;
  }
  try {
    for (const table of OWN_TABLES) {
      const copied = copyTable(source, into, table);
      if (table === 'review_marks') rescued.marks = copied;
      if (table === 'review_tags') rescued.tags = copied;
    }
    rescued.edits = rebuildEditedRows(into);
  } finally {
    source.close();
  }
  return rescued;
}

/** Copies the readable rows of one table; how many were copied (0 when none could be read). */
function copyTable(source: Database.Database, into: CacheDb, table: string): number {
  const rows: unknown[][] = [];
  let columns: string[] = [];
  try {
    if (!hasTable(source, table)) return 0;
    const known = new Set(columnsOf(into.sqlite, table));
    columns = columnsOf(source, table).filter((column) => known.has(column));
    const where =
      table === 'outbox' ? ` WHERE status IN (${OPEN_STATUSES.map((s) => `'${s}'`).join(', ')})` : '';
    const read = source.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table}${where}`);
    for (const row of read.raw().iterate()) rows.push(row as unknown[]);
  } catch (error) {
    // A damaged page part-way: what was read before it is kept.
    log.warn(`reading ${table} of a damaged offline copy stopped after ${rows.length} rows:`, error);
  }
  if (rows.length === 0) return 0;
  const insert = into.sqlite.prepare(
    `INSERT OR IGNORE INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  let copied = 0;
  into.sqlite.transaction(() => {
    for (const row of rows) {
      try {
        copied += insert.run(...row).changes;
      } catch (error) {
        // A row the schema's checks refuse (damaged text) is left behind, not the others.
        log.warn(`a row of ${table} could not be kept:`, error);
      }
    }
  })();
  return copied;
}

/** Writes the rows of every record with open edits, as the edits showed them; the edits kept. */
function rebuildEditedRows(cache: CacheDb): number {
  return cache.db.transaction((tx) => {
    const records = cache.sqlite
      .prepare(
        `SELECT resource, record_id AS recordId, count(*) AS edits FROM outbox
         WHERE status IN (${OPEN_STATUSES.map((s) => `'${s}'`).join(', ')})
         GROUP BY resource, record_id ORDER BY min(seq)`,
      )
      .all() as Array<{ resource: OutboxResource; recordId: string; edits: number }>;
    let edits = 0;
    for (const { resource, recordId, edits: count } of records) {
      rebuildRow(tx, resource, recordId, chainBase(tx, recordId));
      edits += count;
    }
    return edits;
  });
}
