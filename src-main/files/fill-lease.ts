import { FILLING_ELSEWHERE_MESSAGE } from '../../src-shared/files';
import type { CacheDb } from '../store';
import {
  createRowLeases,
  type HeldLease,
  type LeaseLostError,
  type RowLeaseOptions,
} from '../sync/row-lease';

/**
 * One fill of an organisation's offline file cache at a time, across processes. The app and
 * the command line (`satchel sync`) are separate processes on one data folder and each fills
 * the cache after its syncs: two fills at once would fetch the same files into the same
 * `.part` files, and one's sweep would remove what the other is writing. Within a process the
 * fills (fills.ts) already keep one fill an organisation; across processes a fill first takes
 * the one row of `offline_fill_lease` (migration 0024) and removes it when it ends, as a sync
 * takes its lease (sync/lease.ts, whose rules for a holder gone or silent this follows). A fill
 * that finds the row held by another live process does not run: that one brings the cache to
 * its scope. A fill records its copies (`expense_files`) only through the lease's `write`, and
 * writes, renames and removes files in the folder only after its `check` (row-lease.ts): one
 * taken over while its process was silent stops at its first write after it wakes.
 */

export { FILLING_ELSEWHERE_MESSAGE };

export type FillLeaseOptions = RowLeaseOptions;

export interface FillLeases {
  /**
   * Takes the cache's fill for this process: what the fill writes through and gives it back
   * with, or null when another live process fills it now. `onLost` is told once if a heartbeat,
   * a check or a write finds it taken over (this process was silent for the expiry: a suspended
   * laptop); the fill must stop then.
   */
  take(cache: CacheDb, onLost: (error: LeaseLostError) => void): HeldLease | null;
  /** Whether another live process fills the cache now. */
  elsewhere(cache: CacheDb): boolean;
  /** Between two renewals of a held lease: how often a skipped fill looks whether it is free. */
  readonly heartbeatMs: number;
}

export function createFillLeases(options: FillLeaseOptions = {}): FillLeases {
  const rows = createRowLeases<number>(
    'offline_fill_lease',
    'id',
    () => 'the offline fill',
    FILLING_ELSEWHERE_MESSAGE,
    options,
  );
  return {
    heartbeatMs: rows.heartbeatMs,
    elsewhere: (cache) => rows.elsewhere(cache, 1),
    take: (cache, onLost) => rows.take(cache, 1, onLost),
  };
}
