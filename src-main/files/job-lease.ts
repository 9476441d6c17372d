import { AppError } from '../../src-shared/errors';
import type { CacheDb } from '../store';
import {
  createRowLeases,
  type HeldLease,
  type LeaseLostError,
  type RowLeaseOptions,
} from '../sync/row-lease';

/**
 * One run of a download job at a time, across processes. The app and the command line
 * (`satchel download`) are separate processes on one cache: the same request made in both, or
 * the app resuming at start a job the command line is running, would run the job twice — every
 * file fetched twice, the same `.part` files written by both. Within a process the file service
 * already keeps one run a job; across processes a run first takes the job's row of
 * `download_runs` (migration 0022) and removes it when it ends, as a sync takes its lease
 * (sync/lease.ts, whose rules for a holder gone or silent this follows).
 *
 * A run writes the queue (its files' outcomes, the job's status) only through the lease's
 * `write`, and its files (`.part` files, renames into place, the manifest) only after its
 * `check` (row-lease.ts): a run whose process was silent for two minutes (a suspended laptop)
 * and was taken over stops at its first write after it wakes, with nothing written, rather than
 * at its next heartbeat.
 */

export const RUNNING_ELSEWHERE_MESSAGE =
  'This download is running in another Satchel window or command; it goes on there. Pause or cancel it there, or wait for it to end.';

export const RUN_TAKEN_OVER_MESSAGE =
  'Another Satchel window or command took this download over while this one was silent for two minutes, so this one stopped; it goes on there.';

export type JobLeaseOptions = RowLeaseOptions;

export interface JobLeases {
  /**
   * Takes the job's run for this process, or throws `BUSY` (RUNNING_ELSEWHERE_MESSAGE) when
   * another process holds it. `onLost` is told once (RUN_TAKEN_OVER_MESSAGE) if a heartbeat, a
   * check or a write finds it taken over; the run writes through what is returned, and gives it
   * back with its `release`.
   */
  take(cache: CacheDb, jobId: string, onLost: (error: LeaseLostError) => void): HeldLease;
  /** Whether another live process runs the job now. */
  elsewhere(cache: CacheDb, jobId: string): boolean;
}

export function createJobLeases(options: JobLeaseOptions = {}): JobLeases {
  const rows = createRowLeases<string>(
    'download_runs',
    'job_id',
    (jobId) => `download ${jobId}`,
    RUN_TAKEN_OVER_MESSAGE,
    options,
  );
  return {
    elsewhere: (cache, jobId) => rows.elsewhere(cache, jobId),
    take(cache, jobId, onLost) {
      const held = rows.take(cache, jobId, onLost);
      if (!held) throw new AppError('BUSY', RUNNING_ELSEWHERE_MESSAGE);
      return held;
    },
  };
}
