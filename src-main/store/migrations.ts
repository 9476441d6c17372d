import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';

/**
 * The cache's migrations as drizzle-kit writes them: `<dir>/NNNN_name.sql` plus
 * `<dir>/meta/_journal.json`, whose entries (in order) are the schema versions this build
 * knows. A cache's version is the number of migrations recorded in its `__drizzle_migrations`
 * table; drizzle's migrator stamps each with the journal entry's `when`.
 */

export const MIGRATIONS_TABLE = '__drizzle_migrations';

/** `resources/migrations/cache` of the repository, found from this module's own location. */
export function defaultMigrationsDir(): string {
  return fileURLToPath(new URL('../../resources/migrations/cache', import.meta.url));
}

interface JournalEntry {
  tag: string;
  when: number;
}

/** The journal's entries, or null when the folder has no journal. */
export function readJournal(migrationsDir: string): JournalEntry[] | null {
  const journal = path.join(migrationsDir, 'meta', '_journal.json');
  if (!existsSync(journal)) return null;
  const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { entries?: unknown };
  if (!Array.isArray(parsed.entries)) return [];
  return parsed.entries.filter(
    (e): e is JournalEntry =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as JournalEntry).tag === 'string' &&
      typeof (e as JournalEntry).when === 'number',
  );
}

/** How many migrations this build ships: the schema version a fully migrated cache has. */
export function shippedSchemaVersion(migrationsDir: string): number {
  return readJournal(migrationsDir)?.length ?? 0;
}

export interface AppliedMigrations {
  /** Number of migrations recorded in the file: its schema version. */
  count: number;
  /** The newest migration's journal timestamp, or null for a new file. */
  newestWhen: number | null;
}

/** What the file says about itself. Reads only; safe on a file from any version. */
export function appliedMigrations(sqlite: Database.Database): AppliedMigrations {
  const table = sqlite
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`)
    .get(MIGRATIONS_TABLE);
  if (!table) return { count: 0, newestWhen: null };
  const row = sqlite
    .prepare(
      `SELECT count(*) AS count, max(CAST(created_at AS INTEGER)) AS newest FROM "${MIGRATIONS_TABLE}"`,
    )
    .get() as { count: number; newest: number | null };
  return { count: row.count, newestWhen: row.newest };
}

/**
 * Whether the file was migrated by a build that knows more migrations than this one. Either
 * sign suffices: more migrations than shipped, or one stamped later than our newest (which
 * drizzle's migrator would otherwise take as "all applied" and run against a schema it does
 * not know).
 */
export function isNewerThanShipped(applied: AppliedMigrations, journal: JournalEntry[]): boolean {
  const newestShipped = journal.reduce((max, e) => Math.max(max, e.when), 0);
  return applied.count > journal.length || (applied.newestWhen ?? 0) > newestShipped;
}
