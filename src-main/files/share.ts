import type { ApiClient } from '../api/client';
import type { BucketSnapshot } from '../api/rate-governor';

/**
 * How much of the API's `read` bucket file downloads may use. Sync and the user's own
 * requests (a preview, a check of the credentials) draw on the same bucket, so file
 * downloads leave a reserve in every window: a small one while nothing else runs, half the
 * window while the organisation syncs. The governor asks `delayMs()` for a download right
 * before each attempt's permit (retries too) and takes it at once when the answer is 0
 * (docs/files.md, "Rate limit").
 */

export interface ReadShare {
  /** 0 when a download request may go now; otherwise how long to wait before asking again. */
  delayMs(): number;
  /** The read bucket as last seen, and the reserve kept in it; null before the first answer. */
  bucket(): (BucketSnapshot & { reserve: number }) | null;
}

export interface ReadShareOptions {
  client: ApiClient;
  /** Whether something else needs the bucket now (the organisation's sync). */
  busy: () => boolean;
  now?: () => number;
  /** Fraction of each window kept free while `busy`; 0.5 by default. */
  busyReserve?: number;
  /** Fraction kept free otherwise (at least one request); 0.05 by default. */
  idleReserve?: number;
}

export const READ_SCOPE = 'read';

export function reserveOf(limit: number, busy: boolean, busyReserve = 0.5, idleReserve = 0.05): number {
  if (limit <= 1) return 0;
  return Math.min(limit - 1, Math.max(1, Math.ceil(limit * (busy ? busyReserve : idleReserve))));
}

export function createReadShare(options: ReadShareOptions): ReadShare {
  const now = options.now ?? Date.now;
  const reserve = (limit: number) =>
    reserveOf(limit, options.busy(), options.busyReserve, options.idleReserve);
  return {
    bucket() {
      const found = options.client.governor.bucket(READ_SCOPE);
      return found && { ...found, reserve: reserve(found.limit) };
    },
    delayMs() {
      // Asked before every request: no more than the one bucket's figures.
      const current = options.client.governor.bucket(READ_SCOPE);
      if (!current || current.remaining > reserve(current.limit)) return 0;
      // The governor's own margin after a reset is 250 ms; ask again just after it.
      return Math.max(50, current.resetAt.getTime() - now() + 300);
    },
  };
}
