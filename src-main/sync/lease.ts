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
 */

export const BUSY_MESSAGE =
  'This organisation is syncing in another Satchel window or command; try again when it ends.';

const HEARTBEAT_MS = 15_000;
const EXPIRY_MS = 2 * 60_000;

export interface Leases {
  /**
   * Takes the organisation's lease for this core, or throws `BUSY` when another holds it.
   * Nested holds of one core (a sync and the push it starts) share it; the returned function
   * gives one back, and the last gives the lease back.
   */
  hold(profileId: string, cache: CacheDb): () => void;
}

interface LeaseRow {
  owner: string;
  pid: number;
  host: string;
  heartbeat_at: string;
}

/** Whether a process of this machine is still there (EPERM: it is, but not ours to signal). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function createLeases(): Leases {
  const owner = `${process.pid}:${randomUUID()}`;
  const host = hostname();
  const held = new Map<string, { count: number; cache: CacheDb; heartbeat: NodeJS.Timeout }>();

  function stale(row: LeaseRow, now: number): boolean {
    if (row.host === host && !processAlive(row.pid)) return true;
    const beat = Date.parse(row.heartbeat_at);
    return Number.isNaN(beat) || now - beat > EXPIRY_MS;
  }

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

  function renew(cache: CacheDb): void {
    try {
      const changed = cache.sqlite
        .prepare('UPDATE sync_lease SET heartbeat_at = ? WHERE id = 1 AND owner = ?')
        .run(new Date().toISOString(), owner).changes;
      if (changed === 0) log.warn('the sync lease was taken over by another process');
    } catch (error) {
      log.warn('the sync lease could not be renewed:', error);
    }
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
    hold(profileId, cache) {
      const current = held.get(profileId);
      if (current) current.count += 1;
      else {
        take(cache);
        const heartbeat = setInterval(() => renew(cache), HEARTBEAT_MS);
        heartbeat.unref();
        held.set(profileId, { count: 1, cache, heartbeat });
      }
      let released = false;
      return () => {
        const entry = held.get(profileId);
        if (released || !entry) return;
        released = true;
        entry.count -= 1;
        if (entry.count > 0) return;
        clearInterval(entry.heartbeat);
        held.delete(profileId);
        giveBack(entry.cache);
      };
    },
  };
}
