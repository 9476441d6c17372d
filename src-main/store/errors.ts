import { AppError } from '../../src-shared/errors';

/**
 * Why a cache could not be opened. The message says what to do; `reason` lets the UI offer
 * the matching action (e.g. "Remove organisation" for NOT_A_DATABASE and NEWER_SCHEMA).
 * In every case the file is left exactly as it was found.
 */
export type CacheOpenFailure =
  'NOT_A_DATABASE' | 'NEWER_SCHEMA' | 'CANNOT_OPEN' | 'MIGRATION_FAILED' | 'NO_MIGRATIONS';

export class CacheOpenError extends AppError {
  readonly reason: CacheOpenFailure;

  constructor(reason: CacheOpenFailure, message: string, options?: { cause: unknown }) {
    super('INTERNAL', message);
    this.name = 'CacheOpenError';
    this.reason = reason;
    if (options) this.cause = options.cause;
  }
}
