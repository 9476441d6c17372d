import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { log } from '../log';
import type { CacheDb } from '../store';

/**
 * A lease held in one row of an organisation's cache, by one process at a time: the sync lease
 * (`sync_lease`, lease.ts), the download runs (`download_runs`, a row a job) and the offline
 * fill (`offline_fill_lease`, one row). Taken in a `BEGIN IMMEDIATE` transaction, so two
 * processes never both see it free; renewed every `heartbeatMs`; taken over when its process is
 * gone, or its heartbeat is older than `expiryMs` whatever its process id says (the id reused by
 * another program, a holder on another machine sharing the folder); removed when the holder
 * ends. A holder whose renewal finds it taken over is told (`onLost`) and stops.
 */

export const HEARTBEAT_MS = 15_000;
export const EXPIRY_MS = 2 * 60_000;

/** Whether a process of this machine is still there (EPERM: it is, but not ours to signal). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a lease's holder no longer holds it: a process of this machine gone, or a stale heartbeat. */
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

export interface RowLeaseOptions {
  /** Between two renewals of a held lease; 15 s by default. */
  heartbeatMs?: number;
  /** How long another holder's lease may go unrenewed before it is taken over; 2 minutes by default. */
  expiryMs?: number;
}

export interface RowLeases<K extends string | number> {
  /**
   * Takes the row `key` for this process: the function that gives it back, or null when another
   * live process holds it. `onLost` is called once if a renewal finds it taken over.
   */
  take(cache: CacheDb, key: K, onLost: () => void): (() => void) | null;
  /** Whether another live process holds the row `key` now. */
  elsewhere(cache: CacheDb, key: K): boolean;
  readonly heartbeatMs: number;
}

interface LeaseRow {
  owner: string;
  pid: number;
  host: string;
  heartbeat_at: string;
}

/** `table` and `keyColumn` are this module's callers' constants, never input. */
export function createRowLeases<K extends string | number>(
  table: 'sync_lease' | 'download_runs' | 'offline_fill_lease',
  keyColumn: 'job_id' | 'id',
  /** What the log calls it: "the sync lease", "download 1234…", "the offline fill". */
  describe: (key: K) => string,
  options: RowLeaseOptions = {},
): RowLeases<K> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const expiryMs = options.expiryMs ?? EXPIRY_MS;
  const owner = `${process.pid}:${randomUUID()}`;
  const host = hostname();

  const read = (cache: CacheDb, key: K) =>
    cache.sqlite
      .prepare(`SELECT owner, pid, host, heartbeat_at FROM ${table} WHERE ${keyColumn} = ?`)
      .get(key) as LeaseRow | undefined;
  const heldByAnother = (row: LeaseRow | undefined, now: number) =>
    row !== undefined && row.owner !== owner && !holderGone(row, host, now, expiryMs);

  return {
    heartbeatMs,
    elsewhere: (cache, key) => heldByAnother(read(cache, key), Date.now()),
    take(cache, key, onLost) {
      const { sqlite } = cache;
      const taken = sqlite
        .transaction(() => {
          const now = Date.now();
          if (heldByAnother(read(cache, key), now)) return false;
          const stamp = new Date(now).toISOString();
          sqlite
            .prepare(
              `INSERT INTO ${table} (${keyColumn}, owner, pid, host, taken_at, heartbeat_at)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (${keyColumn}) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
                 host = excluded.host, taken_at = excluded.taken_at, heartbeat_at = excluded.heartbeat_at`,
            )
            .run(key, owner, process.pid, host, stamp, stamp);
          return true;
        })
        .immediate();
      if (!taken) return null;

      let lost = false;
      const heartbeat = setInterval(() => {
        let changed: number;
        try {
          changed = sqlite
            .prepare(`UPDATE ${table} SET heartbeat_at = ? WHERE ${keyColumn} = ? AND owner = ?`)
            .run(new Date().toISOString(), key, owner).changes;
        } catch (error) {
          // Refused now (a lock held past the busy timeout): the next beat may pass.
          log.warn(`${describe(key)} could not renew its lease:`, error);
          return;
        }
        if (changed > 0) return;
        log.warn(`${describe(key)} was taken over by another process; it stops here`);
        lost = true;
        clearInterval(heartbeat);
        onLost();
      }, heartbeatMs);
      heartbeat.unref();

      let released = false;
      return () => {
        if (released) return;
        released = true;
        clearInterval(heartbeat);
        if (lost) return;
        try {
          sqlite.prepare(`DELETE FROM ${table} WHERE ${keyColumn} = ? AND owner = ?`).run(key, owner);
        } catch (error) {
          // A cache closed or refusing writes: the row goes stale and the next holder takes it over.
          log.warn(`${describe(key)} could not give its lease back:`, error);
        }
      };
    },
  };
}
