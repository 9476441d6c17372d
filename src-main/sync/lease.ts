import { AppError } from '../../src-shared/errors';
import type { CacheDb } from '../store';
import { createRowLeases, type HeldLease, type RowLeaseOptions } from './row-lease';

/**
 * One organisation is synced, and its offline edits pushed, by one process at a time. The app
 * and the command line (`satchel sync`, `satchel edits push`) are separate processes on one
 * data folder: two runs at once would each write checkpoints and history, mark the other's run
 * `interrupted`, and send the same queued create twice. Within a process the sync service and
 * the outbox already join a run in progress; across processes each run takes the lease row in
 * the organisation's cache (`sync_lease`, migration 0019) before it starts and gives it back
 * when it ends.
 *
 * The row is held by row-lease.ts's rules: a lease whose process is gone (killed, crashed) is
 * taken over at once, one not renewed for two minutes too, whatever its process id says. A
 * holder taken over stops rather than go on writing beside the new owner, and does not wait for
 * its heartbeat to learn it (a suspended laptop wakes up to 15 s before its next one): a sync
 * writes each page, checkpoint, history row and deletion pass through the lease's `write`, and a
 * push its claims and verdicts, so the first write after a takeover finds it in the same
 * transaction, writes nothing and stops the run (`onLost`); a push also `check`s before each
 * edit, so no request of an edit leaves once the lease is another's.
 */

export const BUSY_MESSAGE =
  'This organisation is syncing in another Satchel window or command; try again when it ends.';

/** Why a run stopped half-way: its lease went stale (a suspended laptop, a stalled disk) and was taken. */
export const LEASE_LOST_MESSAGE =
  'Another Satchel window or command took over syncing this organisation while this one was silent for two minutes, so this one stopped. What it stored is kept; sync again when the other ends.';

export type LeaseOptions = RowLeaseOptions;

export interface Leases {
  /**
   * Takes the organisation's lease for this core, or throws `BUSY` when another holds it.
   * Nested holds of one core (a sync and the push it starts) share it, and write through the
   * same guard (row-lease.ts: `write`, `check`); each hold's `release` gives it back, and the
   * last gives the lease back. `onLost` is told (once) when a renewal, a check or a write finds
   * the lease taken over by another process: the holder must stop its run.
   */
  hold(profileId: string, cache: CacheDb, onLost?: (error: AppError) => void): HeldLease;
}

interface Held {
  count: number;
  /** The row's lease, once taken. */
  lease: HeldLease | null;
  lost: boolean;
  onLost: Set<(error: AppError) => void>;
}

export function createLeases(options: LeaseOptions = {}): Leases {
  const rows = createRowLeases<number>('sync_lease', 'id', () => 'the sync', LEASE_LOST_MESSAGE, options);
  const held = new Map<string, Held>();

  return {
    hold(profileId, cache, onLost) {
      let entry = held.get(profileId);
      if (entry) entry.count += 1;
      else {
        const fresh: Held = { count: 1, lease: null, lost: false, onLost: new Set() };
        // Lost for good: the next hold of this process takes the lease afresh (or is told BUSY),
        // and the holds still out give nothing back, as the lease is no longer theirs.
        fresh.lease = rows.take(cache, 1, (error) => {
          fresh.lost = true;
          if (held.get(profileId) === fresh) held.delete(profileId);
          for (const told of [...fresh.onLost]) told(error);
          fresh.onLost.clear();
        });
        // Taking over a stale lease is the normal way on after a kill: nothing to warn about.
        if (!fresh.lease) throw new AppError('BUSY', BUSY_MESSAGE);
        held.set(profileId, (entry = fresh));
      }
      const own = entry;
      const lease = own.lease!;
      if (onLost) own.onLost.add(onLost);
      let released = false;
      return {
        // Each hold writes through the one lease: once it is lost, every hold's write refuses.
        check: () => lease.check(),
        write: (write) => lease.write(write),
        release() {
          if (released) return;
          released = true;
          if (onLost) own.onLost.delete(onLost);
          own.count -= 1;
          if (own.count > 0 || own.lost) return;
          held.delete(profileId);
          lease.release();
        },
      };
    },
  };
}
