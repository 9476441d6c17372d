import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AppError } from '../../src-shared/errors';
import { log } from '../log';
import type { CacheDb } from '../store';
import { refusedWrite } from '../store/errors';

/**
 * A lease held in one row of an organisation's cache, by one process at a time: the sync lease
 * (`sync_lease`, lease.ts), the download runs (`download_runs`, a row a job) and the offline
 * fill (`offline_fill_lease`, one row). Taken in a `BEGIN IMMEDIATE` transaction, so two
 * processes never both see it free; renewed every `heartbeatMs`; taken over when its process is
 * gone, or its heartbeat is older than `expiryMs` whatever its process id says (the id reused by
 * another program, a holder on another machine sharing the folder); removed when the holder
 * ends. A holder whose renewal finds it taken over is told (`onLost`) and stops.
 *
 * A holder silent for the expiry (a suspended laptop: its wall clock moves on, its timers do
 * not, so its next heartbeat comes up to `heartbeatMs` after it wakes) may have been taken over
 * without knowing it yet. So a holder does not wait for its heartbeat to learn that: what it
 * writes to the cache goes through `write`, which looks at the row in the same `BEGIN IMMEDIATE`
 * transaction as the write (no window in which another process can take it over in between),
 * and what it writes to files goes after `check`, which looks at the row whenever the last
 * renewal is older than half the expiry by the wall clock (at once after a suspend; never in
 * between, when no other process can have taken the row over).
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
  /**
   * The wall clock (`Date.now` by default): the time of each renewal, and how old the last one
   * is. A test moves it on as a suspend does, while the timers stand still.
   */
  now?: () => number;
}

/** The lease is no longer this holder's: another process took it over. Nothing was written. */
export class LeaseLostError extends AppError {
  constructor(message: string) {
    super('BUSY', message);
  }
}

/** What a holder writes through, so that nothing lands once the lease is another's. */
export interface LeaseGuard {
  /**
   * Throws LeaseLostError (and `onLost` is told) once the lease is another process's: called
   * before each write to a file of the holder's work (a `.part` file, a rename into place, a
   * removal). Looks at the row only when the last renewal is older than half the expiry.
   */
  check(): void;
  /**
   * `write` in one `BEGIN IMMEDIATE` transaction that first renews the row, only while it is
   * still this holder's; otherwise throws LeaseLostError (`onLost` told) and writes nothing.
   */
  write<T>(write: () => T): T;
}

/** For work held by no lease (a caller that runs it alone). */
export const UNGUARDED: LeaseGuard = { check: () => undefined, write: (write) => write() };

export interface HeldLease extends LeaseGuard {
  /** Gives the lease back (once; nothing when it was lost). */
  release(): void;
}

export interface RowLeases<K extends string | number> {
  /**
   * Takes the row `key` for this process, or null when another live process holds it. `onLost`
   * is called once, with the error `check` and `write` throw from then on, when a renewal, a
   * check or a write finds it taken over.
   */
  take(cache: CacheDb, key: K, onLost: (error: LeaseLostError) => void): HeldLease | null;
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

/** Thrown inside a guarded write's transaction (rolling it back) when the row is another's. */
const NOT_OURS = Symbol('lease not ours');

/** `table` and `keyColumn` are this module's callers' constants, never input. */
export function createRowLeases<K extends string | number>(
  table: 'sync_lease' | 'download_runs' | 'offline_fill_lease',
  keyColumn: 'job_id' | 'id',
  /** What the log calls it: its holder, "the sync", "download 1234…", "the offline fill". */
  describe: (key: K) => string,
  /** What a holder that lost the lease is told (the message of its LeaseLostError). */
  lostMessage: string,
  options: RowLeaseOptions = {},
): RowLeases<K> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const expiryMs = options.expiryMs ?? EXPIRY_MS;
  const clock = options.now ?? Date.now;
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
    elsewhere: (cache, key) => heldByAnother(read(cache, key), clock()),
    take(cache, key, onLost) {
      const { sqlite } = cache;
      const takenAt = sqlite
        .transaction(() => {
          const now = clock();
          if (heldByAnother(read(cache, key), now)) return null;
          const stamp = new Date(now).toISOString();
          sqlite
            .prepare(
              `INSERT INTO ${table} (${keyColumn}, owner, pid, host, taken_at, heartbeat_at)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (${keyColumn}) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
                 host = excluded.host, taken_at = excluded.taken_at, heartbeat_at = excluded.heartbeat_at`,
            )
            .run(key, owner, process.pid, host, stamp, stamp);
          return now;
        })
        .immediate();
      if (takenAt === null) return null;

      /** When the row was last renewed by this holder, by the wall clock. */
      let renewedAt = takenAt;
      let lost: LeaseLostError | null = null;
      const renewal = sqlite.prepare(
        `UPDATE ${table} SET heartbeat_at = ? WHERE ${keyColumn} = ? AND owner = ?`,
      );
      /** Renews the row if it is still this holder's; false when it is not. */
      const renew = (): boolean => {
        const at = clock();
        if (renewal.run(new Date(at).toISOString(), key, owner).changes === 0) return false;
        renewedAt = at;
        return true;
      };
      const lose = (): LeaseLostError => {
        if (lost) return lost;
        log.warn(`${describe(key)} was taken over by another process; it stops here`);
        lost = new LeaseLostError(lostMessage);
        clearInterval(heartbeat);
        onLost(lost);
        return lost;
      };

      const heartbeat = setInterval(() => {
        try {
          if (renew()) return;
        } catch (error) {
          // Refused now (a lock held past the busy timeout): the next beat may pass.
          log.warn(`${describe(key)} could not renew its lease:`, error);
          return;
        }
        lose();
      }, heartbeatMs);
      heartbeat.unref();

      let released = false;
      return {
        check() {
          if (lost) throw lost;
          // Renewed within half the expiry: no other process can have taken it over since.
          if (clock() - renewedAt < expiryMs / 2) return;
          let mine: boolean;
          try {
            mine = renew();
          } catch (error) {
            // Not renewed now (a lock held past the busy timeout): still ours if the row says so.
            log.warn(`${describe(key)} could not renew its lease:`, error);
            mine = read(cache, key)?.owner === owner;
          }
          if (!mine) throw lose();
        },
        write(write) {
          if (lost) throw lost;
          let at = 0;
          try {
            const result = sqlite
              .transaction(() => {
                at = clock();
                if (renewal.run(new Date(at).toISOString(), key, owner).changes === 0) throw NOT_OURS;
                return write();
              })
              .immediate();
            renewedAt = at;
            return result;
          } catch (error) {
            // Rolled back; those told of the loss are told once the transaction is over.
            if (error === NOT_OURS) throw lose();
            throw error;
          }
        },
        release() {
          if (released) return;
          released = true;
          clearInterval(heartbeat);
          if (lost) return;
          try {
            sqlite.prepare(`DELETE FROM ${table} WHERE ${keyColumn} = ? AND owner = ?`).run(key, owner);
          } catch (error) {
            // A cache closed or refusing writes: the row stays, and the next holder takes it over
            // (at once in this process, whose row it is; in another once it expires).
            if (refusedWrite(error))
              log.warn(
                `${describe(key)} left its lease in the offline copy, which cannot be written now (${(error as { code: string }).code}); a later run of this process takes it over at once, another process once this one quits or the lease expires`,
              );
            else log.warn(`${describe(key)} could not give its lease back:`, error);
          }
        },
      };
    },
  };
}
