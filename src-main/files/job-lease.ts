import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AppError } from '../../src-shared/errors';
import { log } from '../log';
import type { CacheDb } from '../store';
import { EXPIRY_MS, HEARTBEAT_MS, holderGone } from '../sync/lease';

/**
 * One run of a download job at a time, across processes. The app and the command line
 * (`satchel download`) are separate processes on one cache: the same request made in both, or
 * the app resuming at start a job the command line is running, would run the job twice — every
 * file fetched twice, the same `.part` files written by both. Within a process the file service
 * already keeps one run a job; across processes a run first takes the job's row of
 * `download_runs` (migration 0022) and removes it when it ends, as a sync takes its lease
 * (sync/lease.ts, whose rules for a holder gone or silent this follows).
 */

export const RUNNING_ELSEWHERE_MESSAGE =
  'This download is running in another Satchel window or command; it goes on there. Pause or cancel it there, or wait for it to end.';

export const RUN_TAKEN_OVER_MESSAGE =
  'Another Satchel window or command took this download over while this one was silent for two minutes, so this one stopped; it goes on there.';

export interface JobLeaseOptions {
  heartbeatMs?: number;
  expiryMs?: number;
}

interface RunRow {
  owner: string;
  pid: number;
  host: string;
  heartbeat_at: string;
}

export interface JobLeases {
  /**
   * Takes the job's run for this process, or throws `BUSY` (RUNNING_ELSEWHERE_MESSAGE) when
   * another process holds it. `onLost` is told once if a heartbeat finds it taken over; the
   * returned function gives it back.
   */
  take(cache: CacheDb, jobId: string, onLost: (error: AppError) => void): () => void;
  /** Whether another live process runs the job now. */
  elsewhere(cache: CacheDb, jobId: string): boolean;
}

export function createJobLeases(options: JobLeaseOptions = {}): JobLeases {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const expiryMs = options.expiryMs ?? EXPIRY_MS;
  const owner = `${process.pid}:${randomUUID()}`;
  const host = hostname();

  const read = (cache: CacheDb, jobId: string) =>
    cache.sqlite
      .prepare('SELECT owner, pid, host, heartbeat_at FROM download_runs WHERE job_id = ?')
      .get(jobId) as RunRow | undefined;
  const heldByAnother = (row: RunRow | undefined, now: number) =>
    row !== undefined && row.owner !== owner && !holderGone(row, host, now, expiryMs);

  return {
    elsewhere(cache, jobId) {
      return heldByAnother(read(cache, jobId), Date.now());
    },
    take(cache, jobId, onLost) {
      const { sqlite } = cache;
      sqlite
        .transaction(() => {
          const now = Date.now();
          if (heldByAnother(read(cache, jobId), now)) throw new AppError('BUSY', RUNNING_ELSEWHERE_MESSAGE);
          const stamp = new Date(now).toISOString();
          sqlite
            .prepare(
              `INSERT INTO download_runs (job_id, owner, pid, host, taken_at, heartbeat_at)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (job_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
                 host = excluded.host, taken_at = excluded.taken_at, heartbeat_at = excluded.heartbeat_at`,
            )
            .run(jobId, owner, process.pid, host, stamp, stamp);
        })
        .immediate();

      let lost = false;
      const heartbeat = setInterval(() => {
        let changed: number;
        try {
          changed = sqlite
            .prepare('UPDATE download_runs SET heartbeat_at = ? WHERE job_id = ? AND owner = ?')
            .run(new Date().toISOString(), jobId, owner).changes;
        } catch (error) {
          // Refused now (a lock held past the busy timeout): the next beat may pass.
          log.warn(`download ${jobId}: its run could not be renewed:`, error);
          return;
        }
        if (changed > 0) return;
        log.warn(`download ${jobId} was taken over by another process; its run here stops`);
        lost = true;
        clearInterval(heartbeat);
        onLost(new AppError('BUSY', RUN_TAKEN_OVER_MESSAGE));
      }, heartbeatMs);
      heartbeat.unref();

      let released = false;
      return () => {
        if (released) return;
        released = true;
        clearInterval(heartbeat);
        if (lost) return;
        try {
          sqlite.prepare('DELETE FROM download_runs WHERE job_id = ? AND owner = ?').run(jobId, owner);
        } catch (error) {
          // A cache closed or refusing writes: the row goes stale and the next run takes it over.
          log.warn(`download ${jobId}: its run could not be given back:`, error);
        }
      };
    },
  };
}
