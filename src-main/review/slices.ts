import type Database from 'better-sqlite3';
import { AppError } from '../../src-shared/errors';
import { ReviewChange, ReviewTarget, type RecordKind } from '../../src-shared/search';
import { prepared } from '../search/sql';
import type { CacheDb } from '../store';
import { changeParams, changeStatements } from './changes';
import { applyReview, type ReviewResult, type ReviewServiceOptions } from './marks';
import { TABLE, targetKind, targetRows } from './targets';

/**
 * Review changes as the app makes them: one after another per cache, and a whole search
 * result in slices with the event loop free between them.
 *
 * Marking a large result in one statement held the app's thread for seconds (283,292
 * transactions of a million: 2.2 s to mark reviewed, 5.4 s to tag), and with it every IPC
 * answer, sync step and download. Here the result is fixed when the change starts (the
 * rowids the search finds then, in the order of the records' ids, targets.ts: records that
 * join or leave the search meanwhile are not what the user confirmed; listed by `rowsOf`, in
 * the app the organisation's totals thread, since listing 283,292 rows takes 0.3–0.5 s) and
 * changed a slice at a time, each slice one transaction of about `sliceMs`, with progress
 * after each. Every slice carries the same time stamp: it is one change.
 *
 * Changes of one cache are queued: a mark of one record made while a bulk change runs is
 * applied after it, so the later action wins as the user expects. A selection (`by: 'ids'`,
 * at most 10,000) is still one transaction.
 *
 * What a slice commits stays: if the app is killed in the middle, the slices before are
 * changed and the rest are not. Changes are idempotent, so making the same change again
 * completes it (docs/search-and-review.md, "Bulk marking").
 */

export interface SlicedReviewOptions extends ReviewServiceOptions {
  /** After each slice: records of the fixed result done so far, and how many it has. */
  onProgress?: (done: number, total: number) => void;
  /** How long a slice should take; its size follows the measured time per record. Default 20 ms. */
  sliceMs?: number;
  /** Records in the first slice. Default 1,000. */
  firstSlice?: number;
  /**
   * Lists the rows of a whole search result, off the app's thread: the app gives the
   * organisation's totals thread (search/background-totals.ts). Left out, they are listed here.
   */
  rowsOf?: (target: Exclude<ReviewTarget, { by: 'ids' }>) => Promise<ArrayLike<number>>;
  /**
   * Once aborted (Ctrl+C on the command line), the change stops before its next slice and
   * rejects with a CANCELLED error that says how many records it changed (they stay changed;
   * the same change again completes it). A change by ids is one transaction and is not stopped.
   */
  signal?: AbortSignal;
}

/** Counts in a stopped change's words as "12,000": the same on every machine. */
const grouped = new Intl.NumberFormat('en-US');

const MIN_SLICE = 100;
const MAX_SLICE = 50_000;

const queues = new WeakMap<Database.Database, Promise<unknown>>();

/** Runs `work` after every review change queued on this connection before it. */
function queued<T>(sqlite: Database.Database, work: () => Promise<T> | T): Promise<T> {
  const run = (queues.get(sqlite) ?? Promise.resolve()).then(work);
  // The queue goes on after a failed change; the caller still gets the failure.
  queues.set(
    sqlite,
    run.then(undefined, () => undefined),
  );
  return run;
}

/**
 * Runs `work` (an export or import of review state) after the review changes already asked
 * for, and before any asked for later: an import merges "newer wins" against what the user
 * changed before it, never half-way through a bulk change whose later slices would overwrite
 * newer marks it brought.
 */
export function afterReviewChanges<T>(cache: CacheDb, work: () => Promise<T> | T): Promise<T> {
  return queued(cache.sqlite, work);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function applyReviewInSlices(
  cache: CacheDb,
  target: ReviewTarget,
  change: ReviewChange,
  options: SlicedReviewOptions = {},
): Promise<ReviewResult> {
  // Checked now (and queued in this same turn), so that a bad request fails at once rather
  // than after the changes before it.
  const parsedTarget = ReviewTarget.parse(target);
  const parsedChange = ReviewChange.parse(change);
  return queued(cache.sqlite, async () => {
    if (parsedTarget.by === 'ids') {
      const result = applyReview(cache, parsedTarget, parsedChange, options);
      options.onProgress?.(parsedTarget.ids.length, parsedTarget.ids.length);
      return result;
    }
    const now = (options.now ?? (() => new Date()))().toISOString();
    const rows = options.rowsOf
      ? Array.from(await options.rowsOf(parsedTarget))
      : targetRows(cache.sqlite, parsedTarget);
    return changeSlices(cache.sqlite, targetKind(parsedTarget), rows, parsedChange, now, options);
  });
}

async function changeSlices(
  sqlite: Database.Database,
  kind: RecordKind,
  rows: number[],
  change: ReviewChange,
  now: string,
  options: SlicedReviewOptions,
): Promise<ReviewResult> {
  const slice = {
    kind,
    sql: `SELECT id FROM ${TABLE[kind]} WHERE rowid IN (SELECT value FROM json_each(@slice_rows))`,
    params: {},
  };
  const statements = changeStatements(slice, change).map((statement) => ({
    run: prepared(sqlite, statement.sql),
    counts: statement.counts,
  }));
  const base = { ...changeParams(change), kind, now };
  const inOneTransaction = sqlite.transaction((ids: number[]) => {
    const params = { ...base, slice_rows: JSON.stringify(ids) };
    let changed = 0;
    for (const statement of statements) {
      const result = statement.run.run(params);
      if (statement.counts) changed = result.changes;
    }
    return changed;
  });
  const sliceMs = options.sliceMs ?? 20;
  let size = options.firstSlice ?? 1_000;
  let done = 0;
  let changed = 0;
  if (rows.length === 0) options.onProgress?.(0, 0);
  while (done < rows.length) {
    if (options.signal?.aborted)
      throw new AppError(
        'CANCELLED',
        done === 0
          ? 'The change was interrupted before it began; nothing was changed.'
          : `The change was interrupted after ${grouped.format(done)} of ${grouped.format(rows.length)} records; those stay changed. Run the same command again to finish.`,
      );
    const started = performance.now();
    const ids = rows.slice(done, done + size);
    changed += inOneTransaction(ids);
    done += ids.length;
    options.onProgress?.(done, rows.length);
    const perRecord = (performance.now() - started) / ids.length;
    size = Math.round(Math.min(MAX_SLICE, Math.max(MIN_SLICE, sliceMs / Math.max(perRecord, 1e-4))));
    if (done < rows.length) await nextTurn();
  }
  return { changed };
}
