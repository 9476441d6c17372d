import { AppError } from '../../src-shared/errors';

/**
 * Why a cache could not be opened. The message says what to do; `reason` lets the UI offer
 * the matching action (e.g. "Remove organisation" for NOT_A_DATABASE and NEWER_SCHEMA).
 * In every case the file is left exactly as it was found.
 */
export type CacheOpenFailure =
  | 'NOT_A_DATABASE'
  | 'NEWER_SCHEMA'
  | 'CANNOT_OPEN'
  | 'MIGRATION_FAILED'
  | 'NO_MIGRATIONS'
  /** The copy cannot be written and needs what only writing does: an update of its schema. */
  | 'READ_ONLY';

export class CacheOpenError extends AppError {
  readonly reason: CacheOpenFailure;

  constructor(reason: CacheOpenFailure, message: string, options?: { cause: unknown }) {
    super('INTERNAL', message);
    this.name = 'CacheOpenError';
    this.reason = reason;
    if (options) this.cause = options.cause;
  }
}

/**
 * Whether an error is a refusal to write, from SQLite (a read-only file, an I/O error a write
 * met, a file it cannot open) or from the file system: worth asking the copy whether it can
 * still be written (core.ts `noteWriteRefused`).
 */
export function refusedWrite(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return /^(SQLITE_(READONLY|IOERR|CANTOPEN|PERM)|EROFS$|EPERM$|EACCES$)/.test(code);
}

/** Whether SQLite raised the error (better-sqlite3 gives it an `SQLITE_…` code). */
export function isSqliteError(error: unknown): error is Error & { code: string } {
  return (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('SQLITE_')
  );
}

/** Whether SQLite found the file damaged (a malformed page, not a database at all). */
export function isCorruption(error: unknown): boolean {
  return isSqliteError(error) && /^SQLITE_(CORRUPT|NOTADB)/.test(error.code);
}

/**
 * Why SQLite refused a write to a cache, said so that a person can act on it: a full disk, a
 * file that cannot be written, another program holding it. Anything else is SQLite's own words
 * (they name no path and no secret).
 */
export function cacheWriteProblem(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'SQLITE_FULL') return 'the disk is full; free some space';
  if (isCorruption(error))
    return 'the offline copy is damaged; set it aside and rebuild it, which keeps the unsent edits and review marks it can still read';
  if (code.startsWith('SQLITE_READONLY'))
    return 'the cache file cannot be written; check that it and its folder are writable';
  if (code.startsWith('SQLITE_IOERR')) return 'the disk reported an error while writing; check it';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
    return 'another program (a satchel command, say) kept the cache busy';
  return error instanceof Error ? error.message : String(error);
}
