import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AppError } from '../../src-shared/errors';
import { FILLING_ELSEWHERE_MESSAGE } from '../../src-shared/files';
import { log } from '../log';
import type { CacheDb } from '../store';
import { EXPIRY_MS, HEARTBEAT_MS, holderGone } from '../sync/lease';

/**
 * One fill of an organisation's offline file cache at a time, across processes. The app and
 * the command line (`satchel sync`) are separate processes on one data folder and each fills
 * the cache after its syncs: two fills at once would fetch the same files into the same
 * `.part` files, and one's sweep would remove what the other is writing. Within a process the
 * fills (fills.ts) already keep one fill an organisation; across processes a fill first takes
 * the one row of `offline_fill_lease` (migration 0024) and removes it when it ends, as a sync
 * takes its lease (sync/lease.ts, whose rules for a holder gone or silent this follows). A fill
 * that finds the row held by another live process does not run: that one brings the cache to
 * its scope.
 */

export { FILLING_ELSEWHERE_MESSAGE };

export interface FillLeaseOptions {
  heartbeatMs?: number;
  expiryMs?: number;
}

interface LeaseRow {
  owner: string;
  pid: number;
  host: string;
  heartbeat_at: string;
}

export interface FillLeases {
  /**
   * Takes the cache's fill for this process: the function that gives it back, or null when
   * another live process fills it now. `onLost` is told once if a heartbeat finds it taken over
   * (this process was silent for the expiry: a suspended laptop); the fill must stop then.
   */
  take(cache: CacheDb, onLost: (error: AppError) => void): (() => void) | null;
  /** Whether another live process fills the cache now. */
  elsewhere(cache: CacheDb): boolean;
  /** Between two renewals of a held lease: how often a skipped fill looks whether it is free. */
  readonly heartbeatMs: number;
}

export function createFillLeases(options: FillLeaseOptions = {}): FillLeases {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const expiryMs = options.expiryMs ?? EXPIRY_MS;
  const owner = `${process.pid}:${randomUUID()}`;
  const host = hostname();

  const read = (cache: CacheDb) =>
    cache.sqlite
      .prepare('SELECT owner, pid, host, heartbeat_at FROM offline_fill_lease WHERE id = 1')
      .get() as LeaseRow | undefined;
  const heldByAnother = (row: LeaseRow | undefined, now: number) =>
    row !== undefined && row.owner !== owner && !holderGone(row, host, now, expiryMs);

  return {
    heartbeatMs,
    elsewhere: (cache) => heldByAnother(read(cache), Date.now()),
    take(cache, onLost) {
      const { sqlite } = cache;
      const taken = sqlite
        .transaction(() => {
          const now = Date.now();
          if (heldByAnother(read(cache), now)) return false;
          const stamp = new Date(now).toISOString();
          sqlite
            .prepare(
              `INSERT INTO offline_fill_lease (id, owner, pid, host, taken_at, heartbeat_at)
               VALUES (1, ?, ?, ?, ?, ?)
               ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
                 host = excluded.host, taken_at = excluded.taken_at, heartbeat_at = excluded.heartbeat_at`,
            )
            .run(owner, process.pid, host, stamp, stamp);
          return true;
        })
        .immediate();
      if (!taken) return null;

      let lost = false;
      const heartbeat = setInterval(() => {
        let changed: number;
        try {
          changed = sqlite
            .prepare('UPDATE offline_fill_lease SET heartbeat_at = ? WHERE id = 1 AND owner = ?')
            .run(new Date().toISOString(), owner).changes;
        } catch (error) {
          // Refused now (a lock held past the busy timeout): the next beat may pass.
          log.warn('the offline fill could not be renewed:', error);
          return;
        }
        if (changed > 0) return;
        log.warn('the offline fill was taken over by another process; the fill here stops');
        lost = true;
        clearInterval(heartbeat);
        onLost(new AppError('BUSY', FILLING_ELSEWHERE_MESSAGE));
      }, heartbeatMs);
      heartbeat.unref();

      let released = false;
      return () => {
        if (released) return;
        released = true;
        clearInterval(heartbeat);
        if (lost) return;
        try {
          sqlite.prepare('DELETE FROM offline_fill_lease WHERE id = 1 AND owner = ?').run(owner);
        } catch (error) {
          // A cache closed or refusing writes: the row goes stale and the next fill takes it over.
          log.warn('the offline fill could not be given back:', error);
        }
      };
    },
  };
}
