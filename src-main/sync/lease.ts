import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AppError } from '../../src-shared/errors';
import { log } from '../log';
import type { CacheDb } from '../store';

/**
 * One organisation is synced, and its offline edits pushed, by one process at a time. The app
 * and the command line (`satchel sync`, `satchel edits push`) are separate processes on one
 * data folder: two runs at once would each write checkpoints and history, mark the other's run
 * `interrupted`, and send the same queued create twice. Within a process the sync service and
 * the outbox already join a run in progress; across processes each run takes the lease row in
 * the organisation's cache (`sync_lease`, migration 0019) before it starts and gives it back
 * when it ends.
 *
 * The lease is taken in a `BEGIN IMMEDIATE` transaction, so two processes never both see it
 * free. A lease whose process is gone (killed, crashed) is taken over at once; one whose
 * heartbeat has not been renewed for `EXPIRY_MS` is taken over too, whatever its process id
 * says (the id reused by another program, or a holder on another machine sharing the folder).
 * A holder whose heartbeat finds the lease taken over stops its run at the next page or edit
 * (the `onLost` of `hold`), rather than go on writing beside the new owner.
 */

export const BUSY_MESSAGE =
  'This organisation is syncing in another Satchel window or command; try again when it ends.';

/** Why a run stopped half-way: its lease went stale (a suspended laptop, a stalled disk) and was taken. */
export const LEASE_LOST_MESSAGE =
  'Another Satchel window or command took over syncing this organisation while this one was silent for two minutes, so this one stopped. What it stored is kept; sync again when the other ends.';

export const HEARTBEAT_MS = 15_000;
export const EXPIRY_MS = 2 * 60_000;

export interface LeaseOptions {
  /** Between two renewals of a held lease; 15 s by default. */
  heartbeatMs?: number;
  /** How long another holder's lease may go unrenewed before it is taken over; 2 minutes by default. */
  expiryMs?: number;
}

export interface Leases {
  /**
   * Takes the organisation's lease for this core, or throws `BUSY` when another holds it.
   * Nested holds of one core (a sync and the push it starts) share it; the returned function
   * gives one back, and the last gives the lease back. `onLost` is told (once) when a renewal
   * finds the lease taken over by another process: the holder must stop its run.
   */
  hold(profileId: string, cache: CacheDb, onLost?: (error: AppError) => void): () => void;
}

interface LeaseRow {
  owner: string;
  pid: number;
  host: string;
  heartbeat_at: string;
}

/** Whether a process of this machine is still there (EPERM: it is, but not ours to signal). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a lease's holder no longer holds it: a process of this machine that is gone, or a
 * heartbeat older than `expiryMs` (a process id reused by another program, a holder on another
 * machine sharing the folder). Shared with the download runs' leases (files/job-lease.ts).
 */
export function holderGone(
  row: { pid: number; host: string; heartbeat_at: string },
  host: string,
  now: number,
  expiryMs: number,
): boolean {
  if (row.host === host && !processAlive(row.pid)) return true;
  const beat = Date.parse(row.heartbeat_at);
  return Number.isNaN(beat) || now - beat >= expiryMs;
}

interface Held {
  count: number;
  cache: CacheDb;
  heartbeat: NodeJS.Timeout | undefined;
  lost: boolean;
  onLost: Set<(error: AppError) => void>;
}

export function createLeases(options: LeaseOptions = {}): Leases {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const expiryMs = options.expiryMs ?? EXPIRY_MS;
  const owner = `${process.pid}:${randomUUID()}`;
  const host = hostname();
  const held = new Map<string, Held>();

  const stale = (row: LeaseRow, now: number) => holderGone(row, host, now, expiryMs);

  function take(cache: CacheDb): void {
    const { sqlite } = cache;
    sqlite
      .transaction(() => {
        const row = sqlite
          .prepare('SELECT owner, pid, host, heartbeat_at FROM sync_lease WHERE id = 1')
          .get() as LeaseRow | undefined;
        const now = Date.now();
        // Taking over a stale lease is the normal way on after a kill: nothing to warn about.
        if (row && row.owner !== owner && !stale(row, now)) throw new AppError('BUSY', BUSY_MESSAGE);
        const stamp = new Date(now).toISOString();
        sqlite
          .prepare(
            `INSERT INTO sync_lease (id, owner, pid, host, taken_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host,
               taken_at = excluded.taken_at, heartbeat_at = excluded.heartbeat_at`,
          )
          .run(owner, process.pid, host, stamp, stamp);
      })
      .immediate();
  }

  function renew(profileId: string, entry: Held): void {
    let changed: number;
    try {
      changed = entry.cache.sqlite
        .prepare('UPDATE sync_lease SET heartbeat_at = ? WHERE id = 1 AND owner = ?')
        .run(new Date().toISOString(), owner).changes;
    } catch (error) {
      // A write refused now (a lock held past the busy timeout) may pass at the next beat.
      log.warn('the sync lease could not be renewed:', error);
      return;
    }
    if (changed > 0) return;
    log.warn('the sync lease was taken over by another process; its run here stops');
    // Lost for good: the next hold of this process takes the lease afresh (or is told BUSY),
    // and the holds still out give nothing back, as the lease is no longer theirs.
    entry.lost = true;
    clearInterval(entry.heartbeat);
    if (held.get(profileId) === entry) held.delete(profileId);
    const error = new AppError('BUSY', LEASE_LOST_MESSAGE);
    for (const onLost of [...entry.onLost]) onLost(error);
    entry.onLost.clear();
  }

  function giveBack(cache: CacheDb): void {
    try {
      cache.sqlite.prepare('DELETE FROM sync_lease WHERE id = 1 AND owner = ?').run(owner);
    } catch (error) {
      // A cache closed or refusing writes: the lease goes stale and the next run takes it over.
      log.warn('the sync lease could not be given back:', error);
    }
  }

  return {
    hold(profileId, cache, onLost) {
      let entry = held.get(profileId);
      if (entry) entry.count += 1;
      else {
        take(cache);
        const fresh: Held = { count: 1, cache, heartbeat: undefined, lost: false, onLost: new Set() };
        fresh.heartbeat = setInterval(() => renew(profileId, fresh), heartbeatMs);
        fresh.heartbeat.unref();
        held.set(profileId, (entry = fresh));
      }
      const own = entry;
      if (onLost) own.onLost.add(onLost);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (onLost) own.onLost.delete(onLost);
        own.count -= 1;
        if (own.count > 0 || own.lost) return;
        clearInterval(own.heartbeat);
        held.delete(profileId);
        giveBack(own.cache);
      };
    },
  };
}
