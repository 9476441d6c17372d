import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { log } from '../log';
import { CacheOpenError } from './errors';
import { refreshGramBlocks } from './gram-blocks';
import { appliedMigrations, isNewerThanShipped, readJournal } from './migrations';
import * as schema from './schema';
import { writeProblem, type WriteProblem } from './writable';

export { defaultMigrationsDir, shippedSchemaVersion } from './migrations';

export type CacheSchema = typeof schema;
export type CacheDrizzle = BetterSQLite3Database<CacheSchema>;

/** One organisation's open cache. */
export interface CacheDb {
  /** Drizzle over the schema, for typed queries. */
  readonly db: CacheDrizzle;
  /** The better-sqlite3 handle, for FTS, pragmas and hand-written SQL. */
  readonly sqlite: Database.Database;
  /** Migrations applied to this file; equals shippedSchemaVersion after a successful open. */
  readonly schemaVersion: number;
  readonly file: string;
  /**
   * Why the copy cannot be written, when it cannot: it is then open read-only (SQLite refuses
   * every write) and nothing of it is changed. Null: an ordinary, writable copy.
   */
  readonly readOnly: WriteProblem | null;
  /**
   * The file the connection reads: `file`, or, for a read-only copy SQLite cannot read in place,
   * a private snapshot of it in the system's temporary folder (see openReadOnly). Readers beside
   * this connection (the totals thread) open this one.
   */
  readonly readFile: string;
  /** Closes the file (SQLite checkpoints the WAL on the last close). Safe to call twice. */
  close(): void;
}

export interface OpenCacheOptions {
  /** Folder with the SQL migrations and meta/_journal.json (defaultMigrationsDir() in dev). */
  migrationsDir: string;
  /** How long a statement waits for another connection's lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /**
   * Folders the copy's work writes to besides its own (the organisation's files folder): when
   * one cannot be written, the copy opens read-only too, so that nothing half-works.
   */
  alsoWritten?: readonly string[];
}

const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * SQLite's page cache per open cache, in KiB: 64 MiB instead of SQLite's 2 MiB. A search of a
 * million rows walks index pages (the date order, an account's entries, the trigram index's
 * lists) that the next searches walk again; held here they are read once, not fetched from the
 * operating system for every query, and stay while the OS drops file pages it thinks idle.
 * Filled only as pages are read: a small organisation's cache stays small.
 */
export const PAGE_CACHE_KIB = 64 * 1024;

/**
 * Opens (creating if needed) the cache file and brings its schema up to date.
 *
 * Order matters, so that a file we must not touch is never written:
 * 1. the header is read with plain fs (a non-SQLite file is refused before SQLite opens it);
 * 2. the file's migration record is read, and a newer schema is refused;
 * 3. only then pragmas that write (WAL) and the migrations, which run in one transaction.
 */
export function openCache(file: string, options: OpenCacheOptions): CacheDb {
  const resolved = path.resolve(file);
  const journal = readJournal(options.migrationsDir);
  if (!journal || journal.length === 0) {
    throw new CacheOpenError(
      'NO_MIGRATIONS',
      `Satchel could not find its database migrations in ${options.migrationsDir}. Reinstall the app.`,
    );
  }
  // Snapshots of read-only copies left by a process that was killed: removed at every open, not
  // only the next read-only one (the copy may be writable again by then).
  removeStaleSnapshots();
  refuseNonSqlite(resolved);
  // Its folder (SQLite makes its -wal and -shm files there; on a read-only disk it is what to
  // name), the file, those files if they are left, and what else the copy writes to: asked
  // before SQLite opens anything.
  const problem = writeProblem([
    path.dirname(resolved),
    resolved,
    ...['-wal', '-shm'].map((suffix) => `${resolved}${suffix}`).filter((file) => existsSync(file)),
    ...(options.alsoWritten ?? []),
  ]);
  if (problem) return openReadOnly(resolved, journal, problem, options);
  mkdirSync(path.dirname(resolved), { recursive: true });

  let sqlite: Database.Database;
  try {
    sqlite = new Database(resolved);
  } catch (error) {
    throw new CacheOpenError(
      'CANNOT_OPEN',
      `Satchel could not open the offline copy at ${resolved} (${messageOf(error)}). Check that the folder exists and that you may write to it.`,
      { cause: error },
    );
  }

  try {
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    const before = readApplied(sqlite, resolved);
    if (isNewerThanShipped(before, journal)) {
      throw new CacheOpenError(
        'NEWER_SCHEMA',
        `The offline copy at ${resolved} was written by a newer version of Satchel. Update the app, or set the copy aside and rebuild it (Satchel keeps the unsent edits and review marks it can read).`,
      );
    }
    configure(sqlite, resolved);
    const db = drizzle({ client: sqlite, schema });
    if (before.count < journal.length) {
      runMigrations(db, sqlite, resolved, options.migrationsDir, journal.length);
      // An upgraded cache may have new indexes: they are filled and the planner learns them
      // now, not at the next sync (which may be a flight away).
      if (before.count > 0)
        refreshAfterWrites({ sqlite }, (what, error) =>
          log.warn(`after updating ${resolved}, refreshing the ${what} failed:`, error),
        );
    }
    // Foreign keys stay off while migrating (see runMigrations) and are on from here.
    sqlite.pragma('foreign_keys = ON');
    const schemaVersion = appliedMigrations(sqlite).count;
    return {
      db,
      sqlite,
      schemaVersion,
      file: resolved,
      readOnly: null,
      readFile: resolved,
      close() {
        if (sqlite.open) sqlite.close();
      },
    };
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/**
 * Opens a copy that cannot be written for reading only: SQLite's `readonly` connection, plus
 * `query_only`, so that every write is refused by SQLite itself and the file is left exactly as
 * it was (no WAL switch, no migration, no statistics).
 *
 * SQLite reads a WAL database read-only only when its `-shm` file exists or can be made; a copy
 * closed cleanly has none, and in a folder that cannot be written none can be made (it says
 * SQLITE_CANTOPEN, and better-sqlite3 takes no `immutable=1` URI). Such a copy is read from a
 * private snapshot instead: the file (and its WAL, when one was left) copied into the system's
 * temporary folder, removed again on close. Nothing can change the original meanwhile, so the
 * snapshot is as current as the copy.
 *
 * A copy that needs an update of its schema cannot be read by this version without being
 * updated, and updating is writing: refused with what to do, nothing changed.
 */
function openReadOnly(
  file: string,
  journal: NonNullable<ReturnType<typeof readJournal>>,
  problem: WriteProblem,
  options: OpenCacheOptions,
): CacheDb {
  if (!existsSync(file) || statSync(file).size === 0) {
    throw new CacheOpenError(
      'READ_ONLY',
      `There is no offline copy at ${file} yet, and Satchel cannot make one: ${problem.why}. Make it writable again, then open the organisation again.`,
    );
  }
  let snapshot: string | null = null;
  let sqlite: Database.Database | null = null;
  const open = (name: string) => {
    const connection = new Database(name, { readonly: true, fileMustExist: true });
    try {
      connection.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
      return { connection, applied: readApplied(connection, file) };
    } catch (error) {
      connection.close();
      throw error;
    }
  };
  try {
    let opened: ReturnType<typeof open>;
    try {
      opened = open(file);
    } catch (error) {
      if (sqliteCode(error) !== 'SQLITE_CANTOPEN') throw error;
      snapshot = snapshotOf(file);
      opened = open(snapshot);
    }
    sqlite = opened.connection;
    if (isNewerThanShipped(opened.applied, journal)) {
      throw new CacheOpenError(
        'NEWER_SCHEMA',
        `The offline copy at ${file} was written by a newer version of Satchel. Update the app, or set the copy aside and rebuild it (Satchel keeps the unsent edits and review marks it can read).`,
      );
    }
    if (opened.applied.count < journal.length) {
      throw new CacheOpenError(
        'READ_ONLY',
        `The offline copy at ${file} must be updated for this version of Satchel before it can be read, and it cannot be written: ${problem.why}. Nothing was changed. Make it writable again, then choose Check again or start Satchel again.`,
      );
    }
    sqlite.pragma('query_only = ON');
    sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    sqlite.pragma('foreign_keys = ON');
    const connection = sqlite;
    const copy = snapshot;
    return {
      db: drizzle({ client: connection, schema }),
      sqlite: connection,
      schemaVersion: opened.applied.count,
      file,
      readOnly: problem,
      readFile: copy ?? file,
      close() {
        if (connection.open) connection.close();
        if (copy) rmSync(path.dirname(copy), { recursive: true, force: true });
      },
    };
  } catch (error) {
    sqlite?.close();
    if (snapshot) rmSync(path.dirname(snapshot), { recursive: true, force: true });
    if (error instanceof CacheOpenError) throw error;
    throw new CacheOpenError(
      'CANNOT_OPEN',
      `Satchel could not open the offline copy at ${file} for reading (${messageOf(error)}); it cannot be written either: ${problem.why}.`,
      { cause: error },
    );
  }
}

const SNAPSHOT_PREFIX = 'satchel-read-only-';

/**
 * The file and the WAL it may have left, copied into a new private temporary folder, named
 * `satchel-read-only-<pid>-<random>` after the process that reads it: close removes it, and
 * the next open of any copy, in any process, removes those whose process is gone
 * (removeStaleSnapshots).
 */
function snapshotOf(file: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), `${SNAPSHOT_PREFIX}${process.pid}-`));
  const copy = path.join(folder, path.basename(file));
  try {
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  return copy;
}

/**
 * Removes the snapshots (snapshotOf) that a process killed while it had a read-only copy open
 * left in the temporary folder: each is a whole copy of a database. Only folders of our naming
 * with a process id, and only when no process of that id runs (`kill(pid, 0)` says ESRCH; EPERM
 * is a live process of another user): a live process's snapshot, this one's among them, stays.
 * A process id reused since keeps its folder until that process is gone too. Best effort: what
 * cannot be listed or removed is left, and the open goes on.
 */
export function removeStaleSnapshots(folder = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = Number(new RegExp(`^${SNAPSHOT_PREFIX}(\\d+)-[^-]+$`).exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || processRuns(pid)) continue;
    try {
      rmSync(path.join(folder, name), { recursive: true, force: true });
      removed.push(name);
    } catch (error) {
      log.warn(`could not remove the stale read-only snapshot ${path.join(folder, name)}:`, error);
    }
  }
  return removed;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Refuses a non-empty file that does not start with the SQLite header; reads only. */
function refuseNonSqlite(file: string): void {
  if (!existsSync(file)) return;
  const stats = statSync(file);
  if (stats.isDirectory()) {
    throw new CacheOpenError(
      'NOT_A_DATABASE',
      `${file} is a folder, not an offline copy. Remove the organisation and sync again.`,
    );
  }
  if (stats.size === 0) return; // SQLite treats an empty file as a new database.
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== SQLITE_HEADER) throw notADatabase(file);
}

function notADatabase(file: string, cause?: unknown): CacheOpenError {
  return new CacheOpenError(
    'NOT_A_DATABASE',
    `${file} is not a Satchel offline copy (it is not an SQLite database, or it is damaged). Satchel left it untouched; set it aside and rebuild it (Satchel keeps the unsent edits and review marks it can still read), or restore the file from a backup.`,
    cause === undefined ? undefined : { cause },
  );
}

/** The first read of the file: SQLite's own verdict on a damaged file lands here. */
function readApplied(sqlite: Database.Database, file: string) {
  try {
    return appliedMigrations(sqlite);
  } catch (error) {
    if (sqliteCode(error)?.match(/^SQLITE_(NOTADB|CORRUPT)/)) throw notADatabase(file, error);
    throw error;
  }
}

/**
 * A read-only connection to a cache that {@link openCache} has opened (and migrated): for
 * reading beside the app's own connection, from another thread (search/totals-thread.ts).
 * WAL lets it read while the app writes; it never writes, so it runs no migrations and
 * holds no lock a writer waits for. Its page cache is as large as the app's, for the same
 * index walks.
 */
export function openCacheReader(file: string): Database.Database {
  const sqlite = new Database(path.resolve(file), { readonly: true, fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  return sqlite;
}

function configure(sqlite: Database.Database, file: string): void {
  // WAL: readers (the UI's searches) never wait for the sync writer, and a crash mid-write
  // leaves the last committed page intact. NORMAL is durable across application crashes;
  // only a power loss may drop the last transactions, which the next sync fetches again.
  const mode = sqlite.pragma('journal_mode = WAL', { simple: true });
  if (String(mode).toLowerCase() !== 'wal') {
    throw new CacheOpenError(
      'CANNOT_OPEN',
      `Satchel could not switch the offline copy at ${file} to WAL mode (got ${String(mode)}). Keep the data folder on a local disk, not a network share.`,
    );
  }
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  // REPLACE conflict resolution fires delete triggers only with recursive_triggers on; the FTS
  // index relies on its delete trigger seeing every removed row.
  sqlite.pragma('recursive_triggers = ON');
}

/**
 * Applies pending migrations (called only when some are pending, so the full-table
 * foreign_key_check below is paid once per upgrade, not at every start); drizzle runs them all in one transaction, so a failure leaves
 * the file as it was. Foreign keys are OFF meanwhile: drizzle-kit rebuilds a table by
 * creating a copy, dropping the original and renaming, and with foreign keys on that DROP
 * would cascade-delete the children (an expense's lines). `foreign_key_check` afterwards
 * proves the rebuilt tables still agree.
 */
function runMigrations(
  db: CacheDrizzle,
  sqlite: Database.Database,
  file: string,
  migrationsDir: string,
  shipped: number,
): void {
  sqlite.pragma('foreign_keys = OFF');
  try {
    migrate(db, { migrationsFolder: migrationsDir });
  } catch (error) {
    // Another process (the CLI beside the app) may have migrated first; then all is well.
    if (appliedMigrations(sqlite).count === shipped) return;
    throw new CacheOpenError(
      'MIGRATION_FAILED',
      `Satchel could not update the offline copy at ${file} (${messageOf(error)}). Nothing was changed; try again, and if it persists set the copy aside and rebuild it.`,
      { cause: error },
    );
  }
  const violations = sqlite.pragma('foreign_key_check') as unknown[];
  if (violations.length > 0) {
    throw new CacheOpenError(
      'MIGRATION_FAILED',
      `The offline copy at ${file} has ${violations.length} broken references after an update. Remove the organisation and sync again.`,
    );
  }
}

function sqliteCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Keeps the query planner's statistics (`sqlite_stat1`) current: analyzes the tables that were
 * never analyzed or changed much since, each within a bounded sample (SQLite's own
 * `PRAGMA optimize=0x10002`). Without statistics SQLite misjudges some searches of a large
 * cache (an amount range over a million rows took 690 ms instead of 1). A no-op when nothing
 * changed much; about 1.5 s the first time for a million transactions. Run after each sync,
 * and when opening a cache that migrations just changed.
 */
export function refreshStatistics(cache: Pick<CacheDb, 'sqlite'>): void {
  cache.sqlite.pragma('optimize=0x10002');
}

/**
 * The upkeep after many rows were written (a sync, a migration): the gram blocks the rows
 * marked stale are recomputed (refreshGramBlocks), then the planner's statistics refreshed,
 * then the page cache emptied (`shrink_memory`): a sync of a big organisation leaves up to
 * PAGE_CACHE_KIB of written pages in it, and the app syncs every organisation in turn, so
 * each would keep its 64 MiB while only the one on screen is searched. Emptied, the next
 * organisation's sync reuses that memory (three million-row caches walked one after the
 * other: 37 MB more in the process instead of 208), and a search reads back what it needs.
 * None is needed for a right answer — stale blocks are searched row by row, old statistics
 * still plan — so a failure (a full disk) goes to `onError` and never fails the caller.
 */
export function refreshAfterWrites(
  cache: Pick<CacheDb, 'sqlite'>,
  onError: (what: string, error: unknown) => void,
): void {
  const steps: Array<[string, () => void]> = [
    ['gram blocks', () => refreshGramBlocks(cache.sqlite)],
    ['planner statistics', () => refreshStatistics(cache)],
    ['page cache', () => cache.sqlite.pragma('shrink_memory')],
  ];
  for (const [what, step] of steps) {
    try {
      step();
    } catch (error) {
      onError(what, error);
    }
  }
}
