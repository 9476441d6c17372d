import { setMaxListeners } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../src-shared/errors';
import type { DownloadJobStatus, DownloadProgress } from '../../src-shared/files';
import type { ApiClient } from '../api/client';
import { abortableSleep } from '../api/rate-governor';
import type { CacheDb } from '../store';
import { LeaseLostError, UNGUARDED, type LeaseGuard } from '../sync/row-lease';
import { createCommitter } from './commit';
import { createInlineIo } from './inline-io';
import { createRateMeter, createWindowMeter, estimateSeconds } from './eta';
import { FILE_ATTEMPTS, fileRetryDelayMs, givenUpReason, retriesFile } from './attempts';
import { copyVerified, fetchFile, matches, stopsEveryFile } from './fetch';
import { existingFiles, inside, partialFolder, recheckDone } from './folder';
import { writeManifest } from './manifest';
import {
  jobCounts,
  jobRow,
  markDoneMany,
  manifestRows,
  markFailed,
  pendingItems,
  recordAttempt,
  setJobStatus,
  type QueueItem,
} from './queue';
import type { ReadShare } from './share';

/**
 * Runs one download job until every item is done or failed, or until it is stopped: paused
 * (`.part` files kept for Range requests), cancelled (they are removed; finished files stay),
 * or interrupted because the app closes (the job stays pending and continues next time).
 * Workers take items in order; each request waits for the read share (share.ts), so the
 * number of requests in flight follows the rate limit rather than a fixed number alone.
 */

/**
 * `lost`: another process took the job's run over (job-lease.ts); its state is that run's now,
 * and this run writes nothing more (see `lease`).
 */
export type StopReason = 'pause' | 'cancel' | 'close' | 'lost';

export interface RunJobOptions {
  cache: CacheDb;
  client: ApiClient;
  share: ReadShare;
  profileId: string;
  jobId: string;
  signal: AbortSignal;
  /** Why the signal was aborted. */
  stopReason: () => StopReason | null;
  now: () => Date;
  /** Requests in flight at most; the rate limit may allow fewer. */
  concurrency?: number;
  /** Attempts per file before it is marked failed (a retry starts the count again). */
  maxAttempts?: number;
  /** Good copies in the offline cache, by file id (asked once when the job starts). */
  cachedCopies?: () => Map<string, string>;
  onProgress?: (progress: DownloadProgress) => void;
  durable?: boolean;
  /** Between progress events at most; the last one is always sent. */
  progressIntervalMs?: number;
  /**
   * The job's lease (job-lease.ts): every write of the run to the queue goes through its
   * `write`, and every write to a file of the run (`.part` files, renames into place, the
   * manifest, the `.part` folder's removal) after its `check`. Once either finds the lease
   * another process's, the run stops at once (its requests aborted) and writes nothing more:
   * the other run may be writing the same `.part` files and outcomes now. None: the run is
   * alone (tests of the runner itself).
   */
  lease?: LeaseGuard;
}

export interface RunJobResult {
  status: DownloadJobStatus;
  /** What stopped the job early (offline, credentials refused), if anything did. */
  error?: AppError;
}

/**
 * No answer from the API: the job waits for the network rather than for the user. (A connection
 * reset before the answer is not this: it is one file's failure, retried (attempts.ts).)
 */
function isNetworkError(error: AppError): boolean {
  return error.code === 'OFFLINE' || error.code === 'TIMEOUT';
}

export async function runJob(options: RunJobOptions): Promise<RunJobResult> {
  try {
    return await run(options);
  } catch (error) {
    // Taken over before its end: the job is as the other run has it.
    if (error instanceof LeaseLostError)
      return { status: jobRow(options.cache, options.jobId)?.status ?? 'running', error };
    throw error;
  }
}

async function run(options: RunJobOptions): Promise<RunJobResult> {
  const { cache, client, share, jobId, signal } = options;
  const lease = options.lease ?? UNGUARDED;
  const job = jobRow(cache, jobId);
  if (!job) throw new AppError('NOT_FOUND', 'This download no longer exists.');
  if (job.status === 'completed' || job.status === 'cancelled') return { status: job.status };
  const nowIso = () => options.now().toISOString();
  const maxAttempts = options.maxAttempts ?? FILE_ATTEMPTS;
  const internal = new AbortController();
  /** Why the run stopped writing: another process took its lease over. */
  let taken: LeaseLostError | null = null;
  const lost = (error: unknown) => {
    if (!(error instanceof LeaseLostError)) return false;
    taken ??= error;
    internal.abort(error);
    return true;
  };
  /**
   * A write to the queue, in one transaction with the check that the run still holds the job's
   * lease: false (nothing written, the run stopping) once it does not.
   */
  const record = (write: () => void): boolean => {
    if (taken) return false;
    try {
      lease.write(write);
      return true;
    } catch (error) {
      if (lost(error)) return false;
      throw error;
    }
  };
  /** Before each write to a file of the run: throws once the lease is another process's. */
  const fence = () => {
    if (taken) throw taken;
    try {
      lease.check();
    } catch (error) {
      lost(error);
      throw error;
    }
  };
  if (!record(() => setJobStatus(cache, jobId, 'running', nowIso())))
    return { status: jobRow(cache, jobId)?.status ?? 'running', error: taken! };

  const partial = partialFolder(job.destination, jobId);
  await mkdir(partial, { recursive: true });
  // Asked once, not per file: what is already in place, which .part files exist, what the
  // offline cache holds, which folders are made.
  const existing = await existingFiles(job.destination);
  // Done files removed or changed (in size) since they were put there are fetched again.
  await recheckDone(cache, jobId, job.destination, 'pending', existing, undefined, (write) =>
    lease.write(write),
  );
  const parts = new Set(await readdir(partial));
  const cachedCopies = options.cachedCopies?.() ?? new Map<string, string>();
  const madeFolders = new Set<string>([job.destination]);
  const items = pendingItems(cache, jobId);
  const counts = jobCounts(cache, jobId);
  const meter = createRateMeter();
  let inFlightBytes = 0;
  let fetchedFiles = 0;
  let activeMs = 0;
  let activeSince: number | null = null;
  let inFlight = 0;
  let fetchedBytes = 0;
  let waitingUntil: number | null = null;
  const rateWindow = createWindowMeter();
  let lastEmit = 0;
  let fatal: AppError | undefined;
  const stop = AbortSignal.any([signal, internal.signal]);
  // Every request and wait of every worker listens to these signals for a while.
  setMaxListeners(0, signal, internal.signal, stop);

  // Checked files go into place in batches, made durable together (commit.ts); a worker
  // does not wait for that before it fetches the next file.
  // Small files are created and renamed on the main thread while that is cheap (inline-io.ts).
  const io = createInlineIo();
  const committer = createCommitter({ folder: partial, durable: options.durable ?? true, io, fence });
  const placements = new Set<Promise<void>>();

  const stopWatching = client.onWait((scope, until) => {
    if (scope === 'read') waitingUntil = until.getTime();
  });

  function progress(status: DownloadJobStatus): DownloadProgress {
    const nowMs = options.now().getTime();
    const bucket = share.bucket();
    if (bucket) rateWindow.observe(bucket.resetAt.getTime(), nowMs);
    const seconds = (activeMs + (activeSince === null ? 0 : nowMs - activeSince)) / 1000;
    const bytesLeft = Math.max(0, counts.bytes.total - counts.bytes.done - inFlightBytes);
    const eta = estimateSeconds({
      filesLeft: counts.files.pending,
      bytesLeft,
      bytesPerSecond: seconds > 0.5 ? fetchedBytes / seconds : 0,
      filesPerSecond: seconds > 0.5 ? fetchedFiles / seconds : 0,
      nowMs,
      bucket: bucket
        ? {
            limit: bucket.limit,
            remaining: bucket.remaining,
            resetAtMs: bucket.resetAt.getTime(),
            reserve: bucket.reserve,
          }
        : null,
      windowMs: rateWindow.ms(),
    });
    return {
      profileId: options.profileId,
      jobId,
      status,
      files: { ...counts.files },
      bytes: {
        total: counts.bytes.total,
        done: Math.min(counts.bytes.total, counts.bytes.done + inFlightBytes),
      },
      bytesPerSecond: meter.perSecond(),
      etaSeconds: eta,
      waitingUntil:
        waitingUntil !== null && waitingUntil > nowMs ? new Date(waitingUntil).toISOString() : null,
    };
  }

  // Progress goes out at most once an interval. What changes within one (a batch of files put
  // in place, a wait for the rate limit begun) goes out at its end: otherwise the last event
  // could show a count that stays stale for as long as the job is quiet, up to a whole
  // rate-limit window.
  const interval = options.progressIntervalMs ?? 200;
  let trailing: ReturnType<typeof setTimeout> | null = null;
  function emit(status: DownloadJobStatus = 'running', force = false): void {
    const at = Date.now();
    if (!force && at - lastEmit < interval) {
      trailing ??= setTimeout(
        () => {
          trailing = null;
          emit();
        },
        interval - (at - lastEmit),
      );
      return;
    }
    if (trailing) clearTimeout(trailing);
    trailing = null;
    lastEmit = at;
    options.onProgress?.(progress(status));
  }

  // Outcomes are written in batches. A kill before a batch is written loses nothing: the
  // files are in place, and the next run finds them there and checks them (source `present`).
  const doneQueue: Array<{ fileId: string; source: 'fetched' | 'copied' | 'present' }> = [];
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  const flushDone = () => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    if (doneQueue.length === 0) return;
    const batch = doneQueue.splice(0);
    record(() => markDoneMany(cache, jobId, batch, nowIso()));
  };

  function finished(item: QueueItem, source: 'fetched' | 'copied' | 'present'): void {
    if (taken) return; // not this run's to record any more
    doneQueue.push({ fileId: item.fileId, source });
    if (doneQueue.length >= 200) flushDone();
    else flushTimer ??= setTimeout(flushDone, 100);
    counts.files.pending -= 1;
    counts.files.done += 1;
    counts.files[source] += 1;
    counts.bytes.done += item.size ?? 0;
    emit();
  }

  function failed(item: QueueItem, message: string, attempts: number): void {
    // Not recorded once the run is taken over: the other run may well fetch the file.
    if (!record(() => markFailed(cache, jobId, item.fileId, message, attempts))) return;
    counts.files.pending -= 1;
    counts.files.failed += 1;
    emit();
  }

  // What every request of the run is given, made once per run rather than once per file: under
  // tsx (the command line, the bench) each function made per file is also named as it is made,
  // at more than a microsecond each.
  /** The read share's wait before each attempt's permit (fetchFile's `delayBeforeRequest`). */
  const holdBack = () => {
    const delay = share.delayMs();
    if (delay > 0) {
      waitingUntil = Date.now() + delay;
      emit();
    }
    return delay;
  };
  /** The bytes of one attempt at a file as they arrive (fetchFile's `onBytes`, bound to it). */
  function arrived(this: { received: number }, bytes: number): void {
    this.received += bytes;
    inFlightBytes += bytes;
    fetchedBytes += bytes;
    meter.add(bytes);
    emit();
  }

  async function fetchOne(item: QueueItem, partPath: string, finalPath: string): Promise<void> {
    let attempts = item.attempts;
    let noPartFile = parts.size === 0 || !parts.has(path.basename(partPath));
    for (;;) {
      const attempt = { received: 0 };
      inFlight += 1;
      if (activeSince === null) activeSince = Date.now();
      try {
        const { placed } = await fetchFile({
          client,
          file: { id: item.fileId, size: item.size, sha256: item.sha256 },
          partPath,
          finalPath,
          signal: stop,
          place: committer.place,
          io,
          noPartFile,
          fence,
          // Resets are retried here, each one an attempt at the file, not in the client.
          resetRetries: 0,
          delayBeforeRequest: holdBack,
          onBytes: arrived.bind(attempt),
        });
        fetchedFiles += 1;
        const placement: Promise<void> = placed
          .then(
            () => {
              inFlightBytes -= attempt.received;
              finished(item, 'fetched');
            },
            (error: unknown) => {
              inFlightBytes -= attempt.received;
              const reason = error instanceof Error ? error.message : String(error);
              failed(
                item,
                `File ${item.fileId} arrived but could not be put in place: ${reason}`,
                attempts + 1,
              );
            },
          )
          // Recording the outcome failed (the cache could not be written): the job stops with
          // that error rather than going on without a record of what it did.
          .catch((error: unknown) => {
            fatal ??=
              error instanceof AppError
                ? error
                : new AppError(
                    'INTERNAL',
                    `Could not record a downloaded file: ${error instanceof Error ? error.message : String(error)}`,
                  );
            internal.abort(error);
          })
          .finally(() => placements.delete(placement));
        placements.add(placement);
        return;
      } catch (error) {
        inFlightBytes -= attempt.received;
        noPartFile = false; // a cut body left one
        if (stop.aborted) return; // left pending; a resume continues it
        if (stopsEveryFile(error)) {
          fatal ??= error as AppError;
          internal.abort(error);
          return;
        }
        attempts += 1;
        const message = error instanceof Error ? error.message : String(error);
        if (!retriesFile(error) || attempts >= maxAttempts) {
          failed(item, givenUpReason(error, attempts), attempts);
          return;
        }
        if (!record(() => recordAttempt(cache, jobId, item.fileId, message))) return;
        await abortableSleep(fileRetryDelayMs(attempts), stop).catch(() => undefined);
        if (stop.aborted) return;
      } finally {
        inFlight -= 1;
        if (inFlight === 0 && activeSince !== null) {
          activeMs += Date.now() - activeSince;
          activeSince = null;
        }
      }
    }
  }

  async function processItem(item: QueueItem): Promise<void> {
    const finalPath = inside(job!.destination, item.relativePath);
    const partPath = `${partial}${path.sep}${item.position}.part`;
    const expected = { id: item.fileId, size: item.size, sha256: item.sha256 };
    const folder = path.dirname(finalPath);
    if (!madeFolders.has(folder)) {
      await mkdir(folder, { recursive: true });
      madeFolders.add(folder);
    }
    // Already in place (a kill before its outcome was written, or a re-run).
    if (existing.size > 0 && existing.has(item.relativePath.normalize('NFC')) && existsSync(finalPath)) {
      if (await matches(finalPath, expected)) return finished(item, 'present');
      return failed(
        item,
        `A different file is already at ${item.relativePath}; move it away, then retry.`,
        item.attempts,
      );
    }
    const cached = cachedCopies.get(item.fileId);
    if (cached && (await copyVerified(cached, partPath, finalPath, expected, fence)))
      return finished(item, 'copied');
    await fetchOne(item, partPath, finalPath);
  }

  let next = 0;
  const worker = async () => {
    while (!stop.aborted) {
      const item = items[next];
      next += 1;
      if (!item) return;
      try {
        await processItem(item);
      } catch (error) {
        if (lost(error) || stop.aborted) return;
        failed(item, error instanceof Error ? error.message : String(error), item.attempts);
      }
    }
  };
  try {
    emit('running', true);
    try {
      await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
    } finally {
      // Whatever arrived whole goes into place, paused, cancelled or closing alike.
      await committer.flush();
      await Promise.all([...placements]);
      stopWatching();
      flushDone();
    }

    let status: DownloadJobStatus;
    const reason = signal.aborted ? options.stopReason() : null;
    // Taken over: the job's outcomes, status, manifest and `.part` files are the other run's to
    // write. What this run recorded before stands; files it put in place but had not recorded
    // yet are checked ones, which the other run finds there (`present`).
    if (taken || reason === 'lost')
      return { status: jobRow(cache, jobId)?.status ?? 'running', ...(taken ? { error: taken } : {}) };
    if (reason === 'cancel') status = 'cancelled';
    else if (reason === 'pause') status = 'paused';
    // Closing, or the network gone (no answer, timed out), leaves the job waiting (`pending`): it
    // goes on when the app is online again. Refused credentials need the user: `paused`.
    else if (reason === 'close' || (fatal && isNetworkError(fatal))) status = 'pending';
    else if (fatal) status = 'paused';
    else status = 'completed';

    if (status === 'completed' || status === 'cancelled') {
      // Removed or changed while the job ran: not done after all (a cancelled job's files not
      // downloaded are `pending`).
      const undone = await recheckDone(
        cache,
        jobId,
        job.destination,
        status === 'completed' ? 'failed' : 'pending',
        undefined,
        undefined,
        (write) => lease.write(write),
      );
      if (undone > 0) Object.assign(counts, jobCounts(cache, jobId));
      if (job.manifest) {
        fence();
        await writeManifest(job.destination, job.manifest, manifestRows(cache, jobId));
      }
      fence();
      await rm(partial, { recursive: true, force: true });
    }
    if (!record(() => setJobStatus(cache, jobId, status, nowIso())))
      return { status: jobRow(cache, jobId)?.status ?? 'running', error: taken! };
    waitingUntil = null;
    emit(status, true);
    return fatal ? { status, error: fatal } : { status };
  } finally {
    // Nothing about this run goes out after its end, however it ended.
    if (trailing) clearTimeout(trailing);
  }
}
