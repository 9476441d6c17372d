import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../src-shared/errors';
import {
  DownloadRequest,
  OfflineScope,
  type CachedFile,
  type DownloadJobShape,
  type DownloadRequestInput,
  type OfflineScopeInput,
  type OfflineUsage,
} from '../../src-shared/files';
import { ConnectionResetError, NoAnswerInTimeError, ServerFailureError, type ApiClient } from '../api/client';
import type { EventBus } from '../events';
import { NO_NETWORK_DOWNLOAD_MESSAGE } from '../connectivity';
import { checkWritableFolder, createFolder, type FolderOpener } from '../folders';
import { log } from '../log';
import { isSqliteError, type CacheDb } from '../store';
import { createFillLeases, type FillLeases } from './fill-lease';
import { createFills } from './fills';
import type { HeldLease } from '../sync/row-lease';
import {
  createJobLeases,
  RUN_TAKEN_OVER_MESSAGE,
  RUNNING_ELSEWHERE_MESSAGE,
  type JobLeases,
} from './job-lease';
import { partialFolder, recheckDone } from './folder';
import { writeManifest } from './manifest';
import { createJob } from './new-job';
import { cachedCopies, ensureCached, offlineUsage, writeOfflineScope, type FillResult } from './offline';
import {
  failedItems,
  findUnfinishedJob,
  jobCounts,
  jobRow,
  jobRows,
  unfinishedJobRows,
  manifestRows,
  reopenStuckJobs,
  resetFailed,
  setJobStatus,
  type JobRow,
} from './queue';
import { runJob, type RunJobResult, type StopReason } from './runner';
import { scopedFiles } from './scope';
import { createReadShare, type ReadShare } from './share';

/**
 * Expense files of every organisation: bulk downloads (a persisted queue, one job running at
 * a time per organisation, the others waiting their turn) and the offline file cache. Jobs
 * run in the background and report `downloads.progress` events; `wait` lets the CLI follow
 * one to its end. docs/files.md has the rules.
 */

export interface FileServiceOptions {
  dataDir: string;
  cacheOf(profileId: string): CacheDb;
  clientOf(profileId: string): ApiClient;
  /** Whether the organisation is syncing now: downloads then leave half of each window to it. */
  syncing(profileId: string): boolean;
  events: EventBus;
  now: () => Date;
  /** Requests in flight per job at most (the rate limit may allow fewer); 8 by default. */
  concurrency?: number;
  /** fsync each file before its rename; on by default. */
  durable?: boolean;
  /** The preview URL of a cached copy (CoreOptions.fileUrl). */
  fileUrl?: (profileId: string, localName: string) => string;
  /** A preview's wait for the answer to begin (CoreOptions.previewFirstByteMs). */
  previewFirstByteMs?: number;
  /**
   * Told of an error SQLite raised that ended a download run, a keep-offline fill or a preview's
   * fetch. A refused write that made the copy read-only (core `noteWriteRefused`) gives back the
   * error the job, the fill or the preview ends with instead of the disk's words, as a sync's
   * does.
   */
  onCacheError?: (profileId: string, error: unknown) => AppError | null | void;
  /**
   * Whether the organisation's API cannot be reached because the system says there is no
   * network at all (connectivity.ts); never for the demo organisation, whose API is in the app.
   */
  networkDown?: (profileId: string) => boolean;
  /**
   * The refusal a write to the organisation's offline copy gets now, or null when it can be
   * written (core `previewWriteRefused`: a copy known to be read-only, or one whose WAL turned
   * immutable meanwhile, which it turns read-only): a preview of a file not on this computer yet
   * is refused with it before any request.
   */
  readOnly?: (profileId: string) => AppError | null;
  /** The system's file manager (CoreOptions.openFolder); absent in the CLI. */
  openFolder?: FolderOpener;
  /** Who runs each job across processes (job-lease.ts); its own by default. */
  jobLeases?: JobLeases;
  /** Who fills each offline cache across processes (fill-lease.ts); its own by default. */
  fillLeases?: FillLeases;
}

export interface FileService {
  /**
   * Creates a download job and starts it (after the organisation's running job, if any). The
   * same request as an unfinished job continues that job instead (`resume: true` in the
   * answer), so a command run again after a kill picks up where it stopped.
   */
  start(
    profileId: string,
    request: DownloadRequestInput,
  ): Promise<{ job: DownloadJobShape; resumed: boolean; waitingForNetwork: boolean }>;
  pause(profileId: string, jobId: string): DownloadJobShape;
  resume(profileId: string, jobId: string): DownloadJobShape;
  cancel(profileId: string, jobId: string): Promise<DownloadJobShape>;
  /** Failed files (all, or those named) go back to the queue and the job runs again. */
  retry(profileId: string, jobId: string, fileIds?: string[]): DownloadJobShape;
  /**
   * Checks that the files a completed download finished are still in its folder at their size,
   * fetches again those that are not (a run, as a resume's), and rewrites the manifest.
   * `missing`: how many were removed or changed (0: the folder is whole, nothing runs).
   */
  check(
    profileId: string,
    jobId: string,
  ): Promise<{ job: DownloadJobShape; missing: number; waitingForNetwork: boolean }>;
  status(profileId: string, jobId: string): DownloadJobShape;
  /** Shows the job's own destination folder in the system's file manager. */
  openFolder(profileId: string, jobId: string): Promise<void>;
  /**
   * Starts again the organisation's downloads that a quit, a crash or a kill interrupted (those
   * left `pending` or `running` with no runner in this process); paused ones stay paused.
   */
  resumeInterrupted(profileId: string): DownloadJobShape[];
  list(profileId: string, limit?: number): DownloadJobShape[];
  /** Resolves when the job stops running (completed, paused, cancelled, or stopped by an error). */
  wait(profileId: string, jobId: string): Promise<RunJobResult>;
  /** The file on disk for preview, fetched now if it is not cached. */
  fetch(profileId: string, fileId: string, signal?: AbortSignal): Promise<CachedFile>;
  offlineScope(profileId: string): OfflineUsage;
  setOfflineScope(profileId: string, scope: OfflineScopeInput): OfflineUsage;
  /** Brings the offline cache to its scope (after a sync, or when the scope changed). */
  fillOffline(profileId: string): Promise<FillResult>;
  /**
   * The fill's sweep of the folder without its fetches (offline.ts `fillOffline`, `fetch:
   * false`): after a sync of the command line, which exits right after and would only stop
   * the fetches.
   */
  sweepOffline(profileId: string): Promise<FillResult>;
  /** The organisation's folder of cached files (the preview route serves only from it). */
  filesRoot(profileId: string): string;
  /**
   * Stops the organisation's jobs and fills (interrupted, not cancelled) and its preview
   * fetches, waits for them, and forgets them. `reason` is what they stop with (by default that
   * Satchel is closing).
   */
  stop(profileId: string, reason?: AppError): Promise<void>;
  /**
   * Removes the organisation's cached files (the organisation is being removed), once its
   * downloads, fills and preview fetches stopped; a preview asked for meanwhile is refused.
   */
  removeCache(profileId: string): Promise<void>;
  stopAll(): Promise<void>;
}

interface Running {
  controller: AbortController;
  reason: StopReason | null;
  done: Promise<RunJobResult>;
}

function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

export function createFileService(options: FileServiceOptions): FileService {
  const filesDir = path.join(options.dataDir, 'files');
  const running = new Map<string, Running>();
  /** The tail of each organisation's chain of jobs: one runs at a time. */
  const chains = new Map<string, Promise<unknown>>();
  const shares = new Map<string, ReadShare>();
  /** Copies of the offline cache being made now (offline.ts `ensureCached`). */
  const inflight = new Map<string, Promise<CachedFile>>();
  /** Preview fetches running now, by organisation: stopping one stops them first. */
  const previews = new Map<string, Set<{ controller: AbortController; done: Promise<unknown> }>>();
  /** Organisations whose cache is being removed: no preview starts writing into it again. */
  const removing = new Set<string>();
  /** Why a job's last run stopped early, by `key`; forgotten when it runs again. */
  const problems = new Map<string, string>();
  const nowIso = () => options.now().toISOString();
  const key = (profileId: string, jobId: string) => `${profileId}/${jobId}`;
  const leases = options.jobLeases ?? createJobLeases();
  /** Throws when another process runs the job: what this one would do to it is that run's. */
  function refuseElsewhere(profileId: string, jobId: string): void {
    if (!running.has(key(profileId, jobId)) && leases.elsewhere(cacheOf(profileId), jobId))
      throw new AppError('BUSY', RUNNING_ELSEWHERE_MESSAGE);
  }

  const filesRoot = (profileId: string) => path.join(filesDir, profileId);

  /** Caches this service has looked at: each is checked for stuck jobs on its first use. */
  const checked = new WeakSet<CacheDb>();
  function cacheOf(profileId: string): CacheDb {
    const cache = options.cacheOf(profileId);
    if (checked.has(cache)) return cache;
    checked.add(cache);
    for (const { id, pending, failed } of reopenStuckJobs(cache, nowIso())) {
      const notDone = pending + failed;
      problems.set(
        key(profileId, id),
        `Marked finished although ${notDone} ${notDone === 1 ? 'file was' : 'files were'} not downloaded; ` +
          `${failed > 0 ? 'Retry all failed downloads them all' : `Resume downloads ${notDone === 1 ? 'it' : 'them'}`}.`,
      );
    }
    return cache;
  }

  function shareOf(profileId: string): ReadShare {
    let share = shares.get(profileId);
    if (!share) {
      share = createReadShare({
        client: options.clientOf(profileId),
        busy: () => options.syncing(profileId),
      });
      shares.set(profileId, share);
    }
    return share;
  }

  const offlineDeps = (profileId: string) => ({
    cache: cacheOf(profileId),
    client: options.clientOf(profileId),
    root: filesRoot(profileId),
    profileId,
    now: options.now,
    inflight,
    ...(options.fileUrl ? { fileUrl: options.fileUrl } : {}),
    ...(options.previewFirstByteMs ? { previewFirstByteMs: options.previewFirstByteMs } : {}),
    ...(options.networkDown ? { networkDown: () => options.networkDown?.(profileId) ?? false } : {}),
  });

  const fills = createFills({
    events: options.events,
    nowIso,
    deps: offlineDeps,
    share: shareOf,
    leases: options.fillLeases ?? createFillLeases(),
    // As a download run's: a fill whose write the copy refused ends in the read-only words.
    ...(options.onCacheError ? { onCacheError: options.onCacheError } : {}),
  });

  function job(profileId: string, jobId: string): JobRow {
    const row = jobRow(cacheOf(profileId), jobId);
    if (!row) throw new AppError('NOT_FOUND', 'This download no longer exists.');
    return row;
  }

  function shape(profileId: string, row: JobRow): DownloadJobShape {
    const cache = cacheOf(profileId);
    const counts = jobCounts(cache, row.id);
    return {
      id: row.id,
      destination: row.destination,
      template: row.template,
      layout: row.layout,
      status: row.status,
      active: running.has(key(profileId, row.id)),
      elsewhere:
        (row.status === 'running' || row.status === 'pending') &&
        !running.has(key(profileId, row.id)) &&
        leases.elsewhere(cache, row.id),
      files: counts.files,
      bytes: counts.bytes,
      manifest: row.manifest,
      errors: failedItems(cache, row.id),
      problem: problems.get(key(profileId, row.id)) ?? null,
      folderExists: isFolder(row.destination),
      createdAt: row.createdAt,
      finishedAt: row.finishedAt,
    };
  }

  function launch(profileId: string, jobId: string): void {
    const id = key(profileId, jobId);
    if (running.has(id)) return;
    const entry: Running = {
      controller: new AbortController(),
      reason: null,
      done: Promise.resolve({ status: 'pending' }),
    };
    const previous = chains.get(profileId) ?? Promise.resolve();
    problems.delete(id);
    entry.done = previous
      .catch(() => undefined)
      .then(async (): Promise<RunJobResult> => {
        if (entry.controller.signal.aborted) {
          const status =
            entry.reason === 'cancel' ? 'cancelled' : entry.reason === 'pause' ? 'paused' : 'pending';
          setJobStatus(cacheOf(profileId), jobId, status, nowIso());
          if (status === 'cancelled') await closeCancelled(profileId, jobId);
          return { status };
        }
        const cache = cacheOf(profileId);
        let lease: HeldLease;
        let lostError: AppError | undefined;
        try {
          lease = leases.take(cache, jobId, (error) => {
            lostError = error;
            entry.reason = 'lost';
            entry.controller.abort(error);
          });
        } catch (error) {
          // Another process runs it (the app and a command asked for it at once): its status
          // is that run's to write, and this process leaves it alone.
          if (!(error instanceof AppError && error.code === 'BUSY')) throw error;
          return { status: job(profileId, jobId).status, error };
        }
        const result = await runJob({
          cache,
          client: options.clientOf(profileId),
          share: shareOf(profileId),
          profileId,
          jobId,
          signal: entry.controller.signal,
          stopReason: () => entry.reason,
          now: options.now,
          concurrency: options.concurrency ?? 8,
          ...(options.durable !== undefined ? { durable: options.durable } : {}),
          cachedCopies: () => cachedCopies(cacheOf(profileId), filesRoot(profileId)),
          lease,
          onProgress: (progress) => {
            // The last event of a run (any status but running): the job is no longer active
            // when a listener reads its status in answer to it.
            if (progress.status !== 'running' && running.get(id) === entry) running.delete(id);
            options.events.emit('downloads.progress', progress);
          },
        }).finally(() => lease.release());
        if (!lostError) return result;
        // The lists read it again (a progress event that is not `running` does that): it shows
        // as running elsewhere now.
        options.events.emit('downloads.progress', {
          ...jobCounts(cache, jobId),
          profileId,
          jobId,
          status: 'pending',
          bytesPerSecond: 0,
          etaSeconds: null,
          waitingUntil: null,
        });
        return { ...result, error: lostError };
      })
      .catch((error: unknown) => {
        log.error(`download ${jobId} failed:`, error);
        // Taken over meanwhile: the job's status is the other run's to write.
        if (entry.reason === 'lost')
          return {
            status: jobRow(cacheOf(profileId), jobId)?.status ?? ('running' as const),
            error: new AppError('BUSY', RUN_TAKEN_OVER_MESSAGE),
          };
        // The copy could not be written any more and is read-only now: the job says so in the
        // words every refused write gets (the banner shows), and has nothing more to write. It
        // reads as interrupted, to resume, once the copy can be written again.
        const turned = isSqliteError(error) ? options.onCacheError?.(profileId, error) : null;
        if (turned) return { status: 'paused' as const, error: turned };
        // Paused, so that it is shown as stopped and resumed on request (if the cache takes the
        // write: the failure may be the cache's own).
        try {
          setJobStatus(cacheOf(profileId), jobId, 'paused', nowIso());
        } catch (statusError) {
          log.error(`download ${jobId}: its status could not be written:`, statusError);
        }
        return {
          status: 'paused' as const,
          error:
            error instanceof AppError
              ? error
              : new AppError(
                  'INTERNAL',
                  `The download stopped unexpectedly: ${error instanceof Error ? error.message : String(error)}. Resume it once the problem is fixed.`,
                ),
        };
      })
      .then((result) => {
        if (result.error) problems.set(id, result.error.message);
        return result;
      })
      .finally(() => {
        if (running.get(id) === entry) running.delete(id);
      });
    chains.set(profileId, entry.done);
    running.set(id, entry);
  }

  /**
   * Runs the job, unless the system says there is no network (never for the demo organisation):
   * then nothing could be fetched, and the job is left interrupted, waiting for the network,
   * instead of failing after the client's retries. The round the background runs when the
   * network is back starts it (`resumeInterrupted`). Returns whether it was started.
   */
  function launchOrWait(profileId: string, jobId: string): boolean {
    const id = key(profileId, jobId);
    if (!running.has(id) && options.networkDown?.(profileId)) {
      problems.set(id, NO_NETWORK_DOWNLOAD_MESSAGE);
      // As a run that stopped would: the lists that show jobs read this one again.
      const { files, bytes } = jobCounts(cacheOf(profileId), jobId);
      options.events.emit('downloads.progress', {
        profileId,
        jobId,
        status: 'pending',
        files,
        bytes,
        bytesPerSecond: 0,
        etaSeconds: null,
        waitingUntil: null,
      });
      return false;
    }
    launch(profileId, jobId);
    return true;
  }

  /**
   * What a run does when it is cancelled, for a job cancelled while no run had it (paused,
   * interrupted, or waiting its turn): no `.part` file left, and the manifest of what is done
   * (the finished files stay), which the job's summary points to.
   */
  async function closeCancelled(profileId: string, jobId: string): Promise<void> {
    const row = job(profileId, jobId);
    await rm(partialFolder(row.destination, jobId), { recursive: true, force: true });
    if (!row.manifest) return;
    try {
      // Files removed or changed since they were put there are not claimed as downloaded.
      await recheckDone(cacheOf(profileId), jobId, row.destination, 'pending');
      await writeManifest(row.destination, row.manifest, manifestRows(cacheOf(profileId), jobId));
    } catch (error) {
      // The folder went away or became read-only meanwhile: the cancel itself stands.
      log.error(`download ${jobId}: the manifest of the cancelled download could not be written:`, error);
    }
  }

  /**
   * Runs the job again if its run ended `completed` with files still pending: files a retry put
   * back while the run was under way (a run takes its list of files when it starts). With no
   * network now, they wait for it as a download asked for then does (`launchOrWait`).
   */
  function runLeftovers(profileId: string, jobId: string): void {
    const row = jobRow(cacheOf(profileId), jobId);
    if (row?.status !== 'completed' || jobCounts(cacheOf(profileId), jobId).files.pending === 0) return;
    setJobStatus(cacheOf(profileId), jobId, 'pending', nowIso());
    launchOrWait(profileId, jobId);
  }

  function stopJob(profileId: string, jobId: string, reason: StopReason): Running | undefined {
    const entry = running.get(key(profileId, jobId));
    if (entry) {
      entry.reason = reason;
      entry.controller.abort(new AppError('CANCELLED', 'The download was stopped.'));
    }
    return entry;
  }

  const connectionRemoved = () => new AppError('CANCELLED', 'This connection is being removed.');

  /** Stops the organisation's jobs, fills and preview fetches, each with `reason`, and forgets them. */
  async function halt(profileId: string, reason: AppError): Promise<void> {
    const stopping: Promise<unknown>[] = [];
    for (const [id, entry] of running) {
      if (!id.startsWith(`${profileId}/`)) continue;
      entry.reason ??= 'close'; // a pause or a cancel asked for already stands
      entry.controller.abort(reason);
      stopping.push(entry.done);
    }
    const fill = fills.stop(profileId, reason);
    if (fill) stopping.push(fill);
    for (const preview of previews.get(profileId) ?? []) {
      preview.controller.abort(reason);
      stopping.push(preview.done);
    }
    await Promise.allSettled(stopping);
    shares.delete(profileId);
    fills.forget(profileId);
    chains.delete(profileId);
  }

  const service: FileService = {
    async start(profileId, input) {
      const parsed = DownloadRequest.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue?.path[0];
        throw new AppError(
          'VALIDATION_ERROR',
          issue?.message ?? 'Invalid download.',
          typeof field === 'string' ? field : undefined,
        );
      }
      const request = parsed.data;
      if (!path.isAbsolute(request.destination))
        throw new AppError(
          'VALIDATION_ERROR',
          'Choose the destination folder by its full path.',
          'destination',
        );
      const destination = path.resolve(request.destination);
      const normalized = { ...request, destination };
      const cache = cacheOf(profileId);
      const unfinished = findUnfinishedJob(cache, {
        destination,
        template: normalized.template,
        layout: normalized.layout,
        scope: JSON.stringify(normalized.scope),
      });
      // Everything that can be refused is refused before a folder is made or a job written.
      if (unfinished) refuseElsewhere(profileId, unfinished.id);
      const files = unfinished ? [] : scopedFiles(cache, normalized.scope);
      if (!unfinished && files.length === 0)
        throw new AppError('VALIDATION_ERROR', 'There are no files to download in this selection.', 'scope');
      await createFolder(destination, 'destination');
      checkWritableFolder(destination, 'destination');
      const row = unfinished ?? (await createJob(cache, normalized, files, nowIso));
      if (unfinished && unfinished.status === 'running' && !running.has(key(profileId, unfinished.id)))
        setJobStatus(cache, unfinished.id, 'pending', nowIso());
      const started = launchOrWait(profileId, row.id);
      return {
        job: shape(profileId, job(profileId, row.id)),
        resumed: unfinished !== undefined,
        waitingForNetwork: !started,
      };
    },
    pause(profileId, jobId) {
      const row = job(profileId, jobId);
      refuseElsewhere(profileId, jobId);
      if (row.status === 'completed' || row.status === 'cancelled')
        throw new AppError('VALIDATION_ERROR', `This download is already ${row.status}.`);
      // A job waiting behind another is marked paused now, so that a quit before its turn
      // cannot leave it looking interrupted (and started again on the next start).
      if (!stopJob(profileId, jobId, 'pause') || row.status === 'pending')
        setJobStatus(cacheOf(profileId), jobId, 'paused', nowIso());
      return shape(profileId, job(profileId, jobId));
    },
    resume(profileId, jobId) {
      const row = job(profileId, jobId);
      refuseElsewhere(profileId, jobId);
      if (row.status === 'completed' || row.status === 'cancelled')
        throw new AppError(
          'VALIDATION_ERROR',
          `This download is ${row.status}; start a new one, or retry its failed files.`,
        );
      const current = running.get(key(profileId, jobId));
      if (current && current.reason === 'pause') {
        // Paused a moment ago and still winding down: run it again once it stopped (or, with
        // no network by then, leave it waiting for it, as a resume of a stopped job does).
        void current.done.then(() => {
          if (jobRow(cacheOf(profileId), jobId)?.status === 'paused')
            setJobStatus(cacheOf(profileId), jobId, 'pending', nowIso());
          launchOrWait(profileId, jobId);
        });
      } else {
        if (row.status !== 'running') setJobStatus(cacheOf(profileId), jobId, 'pending', nowIso());
        launchOrWait(profileId, jobId);
      }
      return shape(profileId, job(profileId, jobId));
    },
    async cancel(profileId, jobId) {
      const row = job(profileId, jobId);
      if (row.status === 'completed' || row.status === 'cancelled') return shape(profileId, row);
      refuseElsewhere(profileId, jobId);
      const entry = stopJob(profileId, jobId, 'cancel');
      if (entry) await entry.done;
      else {
        setJobStatus(cacheOf(profileId), jobId, 'cancelled', nowIso());
        await closeCancelled(profileId, jobId);
      }
      return shape(profileId, job(profileId, jobId));
    },
    retry(profileId, jobId, fileIds) {
      const row = job(profileId, jobId);
      if (row.status === 'cancelled')
        throw new AppError('VALIDATION_ERROR', 'This download was cancelled; start a new one.');
      refuseElsewhere(profileId, jobId);
      const reset = resetFailed(cacheOf(profileId), jobId, fileIds);
      const current = running.get(key(profileId, jobId));
      // Nothing failed (any more): said, rather than an answer that changes nothing. A paused or
      // interrupted job with nothing failed still goes on, as a Resume would.
      if (reset === 0 && (current || row.status === 'completed'))
        throw new AppError(
          'VALIDATION_ERROR',
          fileIds
            ? 'Nothing to retry: the files named have not failed.'
            : row.status === 'completed'
              ? 'Nothing to retry: no file of this download failed. Files missing from its folder are fetched again by Check folder.'
              : 'Nothing to retry: no file of this download has failed so far.',
        );
      if (current) {
        // A run under way took its list of files when it started: the files put back are run
        // once it ends (a pause or a cancel meanwhile stands).
        if (reset > 0) void current.done.then(() => runLeftovers(profileId, jobId));
      } else if (reset > 0 || row.status !== 'completed') {
        setJobStatus(cacheOf(profileId), jobId, 'pending', nowIso());
        launchOrWait(profileId, jobId);
      }
      return shape(profileId, job(profileId, jobId));
    },
    async check(profileId, jobId) {
      const row = job(profileId, jobId);
      if (row.status === 'cancelled')
        throw new AppError('VALIDATION_ERROR', 'This download was cancelled; start a new one.');
      // A job still going checks its finished files when it starts and when it ends.
      if (row.status !== 'completed' || running.has(key(profileId, jobId)))
        throw new AppError(
          'VALIDATION_ERROR',
          'This download is not finished; its files are checked as it goes on.',
        );
      // Moved or renamed as a whole: not made again, empty, where the user no longer looks.
      if (!isFolder(row.destination))
        throw new AppError(
          'NOT_FOUND',
          `The folder ${row.destination} is no longer there: it was moved, renamed or deleted.`,
        );
      const cache = cacheOf(profileId);
      const missing = await recheckDone(cache, jobId, row.destination, 'pending');
      // Written now, so that it claims no missing file even before the run (or while it waits
      // for the network); the run writes it again when it ends. With nothing missing, it may be
      // the manifest itself that was removed.
      if (row.manifest) await writeManifest(row.destination, row.manifest, manifestRows(cache, jobId));
      let started = true;
      if (missing > 0) {
        setJobStatus(cache, jobId, 'pending', nowIso());
        started = launchOrWait(profileId, jobId);
      }
      return { job: shape(profileId, job(profileId, jobId)), missing, waitingForNetwork: !started };
    },
    status: (profileId, jobId) => shape(profileId, job(profileId, jobId)),
    async openFolder(profileId, jobId) {
      const { destination } = job(profileId, jobId);
      if (!options.openFolder)
        throw new AppError(
          'INTERNAL',
          `There is no file manager here (command line or tests); the folder is ${destination}.`,
        );
      if (!isFolder(destination))
        throw new AppError(
          'NOT_FOUND',
          `The folder ${destination} is no longer there: it was moved, renamed or deleted.`,
        );
      const reason = await options.openFolder(destination);
      if (reason) throw new AppError('INTERNAL', `The folder ${destination} could not be opened: ${reason}`);
    },
    resumeInterrupted(profileId) {
      const cache = cacheOf(profileId);
      // Not those another process runs now (the command line, say): they are not interrupted.
      const interrupted = unfinishedJobRows(cache).filter(
        (row) => !running.has(key(profileId, row.id)) && !leases.elsewhere(cache, row.id),
      );
      // Oldest first, so they run in the order they were asked for.
      for (const row of interrupted.reverse()) {
        if (row.status === 'running') setJobStatus(cache, row.id, 'pending', nowIso());
        launch(profileId, row.id);
      }
      return interrupted.map((row) => shape(profileId, job(profileId, row.id)));
    },
    list: (profileId, limit = 20) => jobRows(cacheOf(profileId), limit).map((row) => shape(profileId, row)),
    async wait(profileId, jobId) {
      const entry = running.get(key(profileId, jobId));
      if (entry) return entry.done;
      return { status: job(profileId, jobId).status };
    },
    async fetch(profileId, fileId, signal) {
      if (removing.has(profileId)) throw connectionRemoved();
      const controller = new AbortController();
      const readOnly = options.readOnly;
      const done = ensureCached(
        readOnly
          ? { ...offlineDeps(profileId), readOnly: () => readOnly(profileId) }
          : offlineDeps(profileId),
        fileId,
        signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
      );
      const entry = { controller, done: done.catch(() => undefined) };
      let running = previews.get(profileId);
      if (!running) previews.set(profileId, (running = new Set()));
      running.add(entry);
      try {
        return await done;
      } catch (error) {
        // Said for the person looking at the pane, whose Try again asks again (not "later"),
        // after the preview's two attempts (offline.ts): each cause in its own words.
        if (error instanceof ConnectionResetError)
          throw new AppError('CONNECTION_RESET', `${error.problem}; try again.`);
        if (error instanceof ServerFailureError) {
          // A body that is not the API's error says only its status line: not said twice.
          const said = error.detail.startsWith(String(error.status))
            ? error.detail
            : `${error.status}: ${error.detail}`;
          throw new AppError(
            'SERVER_ERROR',
            `The server at ${error.host} answered with a server error (${said}); try again.`,
          );
        }
        if (error instanceof NoAnswerInTimeError)
          throw new AppError(
            'TIMEOUT',
            `The server at ${error.host} did not answer within ${error.waited}; try again.`,
          );
        if (error instanceof AppError) throw error;
        // Its record refused because the copy cannot be written any more: the copy turns
        // read-only (the banner shows) and the preview ends in the read-only words, as a download
        // or a fill does. Not shown although its bytes may be in the folder: unrecorded, the next
        // look at it would be refused in those words, as on a copy opened read-only.
        const turned = isSqliteError(error) ? options.onCacheError?.(profileId, error) : null;
        if (turned) throw turned;
        // A file system refusing the copy (a full disk, a folder taken away): said as such,
        // never as a bare system error.
        if (controller.signal.aborted) throw controller.signal.reason as AppError;
        log.error(`preview copy of file ${fileId} failed:`, error);
        throw new AppError(
          'INTERNAL',
          `The file could not be saved on this computer: ${error instanceof Error ? error.message : String(error)}. Check the disk and open it again.`,
        );
      } finally {
        running.delete(entry);
        if (running.size === 0 && previews.get(profileId) === running) previews.delete(profileId);
      }
    },
    offlineScope: (profileId) =>
      offlineUsage(
        { cache: cacheOf(profileId), now: options.now },
        fills.filling(profileId),
        fills.last(profileId),
        fills.fillingElsewhere(profileId),
      ),
    setOfflineScope(profileId, input) {
      const scope = OfflineScope.parse(input);
      writeOfflineScope(cacheOf(profileId), scope, nowIso());
      fills.rescope(profileId);
      return service.offlineScope(profileId);
    },
    fillOffline: (profileId) => fills.fill(profileId),
    sweepOffline: (profileId) => fills.sweep(profileId),
    filesRoot,
    stop: (profileId, reason) => halt(profileId, reason ?? new AppError('CANCELLED', 'Satchel is closing.')),
    async removeCache(profileId) {
      // Every preview fetch and fill stops (and is waited for) before the folder goes: one
      // still writing would fail on the missing folder, or make it again.
      removing.add(profileId);
      try {
        await halt(profileId, connectionRemoved());
        const root = filesRoot(profileId);
        if (existsSync(root)) await rm(root, { recursive: true, force: true });
      } finally {
        removing.delete(profileId);
      }
    },
    async stopAll() {
      const profiles = new Set([...running.keys()].map((id) => id.split('/')[0] ?? ''));
      for (const profileId of fills.profiles()) profiles.add(profileId);
      for (const profileId of previews.keys()) profiles.add(profileId);
      await Promise.allSettled([...profiles].map((profileId) => service.stop(profileId)));
    },
  };
  return service;
}
