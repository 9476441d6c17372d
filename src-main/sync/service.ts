import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { RawFetch } from '../api/http-fetch';
import { AppError } from '../../src-shared/errors';
import type { EventPayload, SyncProgressEvent, SyncSummaryShape } from '../../src-shared/ipc';
import { createApiClient, type ApiClient } from '../api/client';
import { NO_NETWORK_MESSAGE } from '../connectivity';
import type { EventBus } from '../events';
import { log } from '../log';
import { replaceFileSync } from '../replace-file';
import type { ProfileStore } from '../profiles';
import { cacheWriteProblem, isSqliteError, type CacheDb } from '../store';
import { lastSucceededAt, recordRunNotStarted, runSync, syncHistory, type RunEnd } from './engine';
import { createLeases, type Leases } from './lease';
import { LeaseLostError, UNGUARDED, type HeldLease, type LeaseGuard } from './row-lease';
import { allResources } from './resources';
import type { ResourceSync } from './types';

/**
 * Sync per connected organisation: one run at a time per organisation (asking again while
 * one runs joins it), cancellable, with progress and the outcome pushed as events. The API
 * client of each organisation is kept, so its token and rate-limit budget carry over.
 */

export interface SyncServiceOptions {
  profiles: ProfileStore;
  events: EventBus;
  cacheOf(profileId: string): CacheDb;
  now(): Date;
  fetch?: typeof fetch;
  /** The transport for file bodies (see ApiClientOptions.rawFetch). */
  rawFetch?: RawFetch;
  /** The clients' time-out (ApiClientOptions.timeoutMs); theirs when left out. */
  timeoutMs?: number;
  resources?: readonly ResourceSync[];
  trailingDays?: number;
  /**
   * Runs before each pull (the outbox push): edits go out first, so a page read afterwards
   * already carries them and cannot undo a pushed row.
   */
  beforePull?: (profileId: string, signal: AbortSignal) => Promise<void>;
  /**
   * Whether the system says there is no network at all (connectivity.ts): a sync asked for then
   * is refused at once, rather than failing after the client's retries with nothing read.
   */
  networkDown?: (profileId: string) => boolean;
  /** The organisation's lease against other processes (lease.ts), shared with the outbox. */
  leases?: Leases;
  /**
   * Told of every error SQLite raised in a run of the organisation (the core notes a damaged
   * copy). A refused write that made the copy read-only gives back the error (`READ_ONLY`) the
   * run ends with instead of the disk's words (engine.ts `onCacheError`).
   */
  onCacheError?: (profileId: string, error: unknown) => AppError | null | void;
}

export interface SyncService {
  sync(profileId: string, options?: { full?: boolean }): Promise<SyncSummaryShape>;
  cancel(profileId: string): boolean;
  isRunning(profileId: string): boolean;
  history(profileId: string, limit?: number): ReturnType<typeof syncHistory>;
  /** When the organisation's newest succeeded run ended; null if none did. */
  lastSucceededAt(profileId: string): string | null;
  clientOf(profileId: string): ApiClient;
  /** Forget the client (credentials changed or organisation removed). */
  forget(profileId: string): void;
  /** Cancels the organisation's run, if any, and waits for it to stop at a page boundary. */
  stop(profileId: string): Promise<void>;
  /** Cancels every run and waits for each to stop at a page boundary. */
  stopAll(): Promise<void>;
}

/** Why a run could not start or end: an AppError's own words, else the cache's trouble or the bug's. */
function failureMessage(error: unknown): string {
  if (error instanceof AppError) return error.message;
  if (isSqliteError(error))
    return `The sync stopped: Satchel could not write to this organisation's cache (${cacheWriteProblem(error)}). Sync again once that is fixed.`;
  return `The sync stopped unexpectedly (${error instanceof Error ? error.message : String(error)}). Sync again; if it keeps failing, restart Satchel.`;
}

/** Beside the cache file: the ends of runs its history refused, until a run writes them. */
export function runEndsFile(cacheFile: string): string {
  return `${cacheFile}-run-ends.json`;
}

function isRunEnd(value: unknown): value is RunEnd {
  if (typeof value !== 'object' || value === null) return false;
  const end = value as Record<string, unknown>;
  return (
    typeof end['runId'] === 'number' &&
    typeof end['outcome'] === 'string' &&
    typeof end['finishedAt'] === 'string' &&
    typeof end['counts'] === 'object' &&
    end['counts'] !== null &&
    Array.isArray(end['errors'])
  );
}

/** The ends kept in the file; none when there is no file, or one that cannot be read. */
function readStoredEnds(file: string): RunEnd[] {
  try {
    if (!existsSync(file)) return [];
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? parsed.filter(isRunEnd) : [];
  } catch (error) {
    log.warn('the ends of earlier sync runs could not be read:', error);
    return [];
  }
}

/**
 * Keeps the ends still unrecorded in the file, or removes it when there are none. A disk that
 * refuses this too leaves them in memory only: the next run of this process still writes them.
 */
function storeEnds(file: string, ends: readonly RunEnd[]): void {
  try {
    if (ends.length === 0) rmSync(file, { force: true });
    else replaceFileSync(file, JSON.stringify(ends));
  } catch (error) {
    log.warn('the ends of sync runs the history refused could not be kept beside the cache:', error);
  }
}

/** Whether the lease is still this process's (it looks at the row only after a long silence). */
function stillHeld(lease: HeldLease): boolean {
  try {
    lease.check();
    return true;
  } catch (error) {
    return !(error instanceof LeaseLostError);
  }
}

export function createSyncService(options: SyncServiceOptions): SyncService {
  const clients = new Map<string, ApiClient>();
  const running = new Map<string, { controller: AbortController; done: Promise<SyncSummaryShape> }>();
  const leases = options.leases ?? createLeases();

  function clientOf(profileId: string): ApiClient {
    let client = clients.get(profileId);
    if (!client) {
      const profile = options.profiles.get(profileId);
      client = createApiClient({
        baseUrl: profile.baseUrl,
        credentials: () => options.profiles.credentials(profile.id),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.rawFetch ? { rawFetch: options.rawFetch } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
      clients.set(profileId, client);
    }
    return client;
  }

  /**
   * Per organisation, the ends of runs the history refused to record (engine.ts): held here
   * until the next run writes them, so that their rows say how they ended rather than
   * "interrupted", and kept in a small file beside the cache (runEndsFile) so that they outlive
   * a quit and another process (`satchel status`, the app after the CLI) reads them too.
   */
  const unrecordedEnds = new Map<string, RunEnd[]>();
  const unrecordedOf = (profileId: string, cache: CacheDb): RunEnd[] => {
    let ends = unrecordedEnds.get(profileId);
    if (!ends) unrecordedEnds.set(profileId, (ends = []));
    for (const stored of readStoredEnds(runEndsFile(cache.file)))
      if (!ends.some((end) => end.runId === stored.runId)) ends.push(stored);
    return ends;
  };

  /**
   * The history row of a run that ended before it pulled, or null when the cache refuses it or
   * the lease is another process's.
   */
  function recordNotStarted(
    cache: CacheDb,
    lease: LeaseGuard,
    run: Omit<EventPayload<'sync.finished'>, 'profileId' | 'runId'> & {
      outcome: SyncSummaryShape['outcome'];
    },
  ): number | null {
    try {
      return lease.write(() => recordRunNotStarted(cache, run));
    } catch (error) {
      if (error instanceof LeaseLostError) return null;
      // A cache that refuses writes is what stopped the run: its message is enough, no stack.
      log.warn(
        'the history could not record a sync that ended before it pulled:',
        isSqliteError(error) ? error.message : error,
      );
      return null;
    }
  }

  async function start(
    profileId: string,
    full: boolean,
    controller: AbortController,
  ): Promise<SyncSummaryShape> {
    const startedAt = options.now().toISOString();
    let runId: number | undefined;
    const counts: Record<string, number> = {};
    let summary: SyncSummaryShape;
    let cache: CacheDb | undefined;
    let ends: RunEnd[] | undefined;
    let lease: HeldLease | undefined;
    try {
      cache = options.cacheOf(profileId);
      // Before anything is written: another process's run would be marked interrupted, and
      // its checkpoints, history and run-ends file written over. Every write of the run goes
      // through it: one taken over while this run was silent (lease.ts) stops the run at its
      // first write after, with nothing written, and its requests aborted.
      lease = leases.hold(profileId, cache, (lost) => controller.abort(lost));
      const client = clientOf(profileId);
      await options.beforePull?.(profileId, controller.signal);
      summary = await runSync({
        cache,
        client,
        resources: options.resources ?? allResources,
        full,
        signal: controller.signal,
        lease,
        now: options.now,
        ...(options.trailingDays ? { trailingDays: options.trailingDays } : {}),
        unrecordedEnds: (ends = unrecordedOf(profileId, cache)),
        onCacheError: (error) => options.onCacheError?.(profileId, error),
        onProgress: (progress) => {
          runId = progress.runId;
          counts[progress.resource] = progress.records;
          options.events.emit('sync.progress', { profileId, ...progress } satisfies SyncProgressEvent);
        },
      });
    } catch (error) {
      // Whatever stopped it (the cache would not open or write, the push before it broke), the
      // run ends with a finished event that says so: the status bar and Sync now wait for one.
      // A bug is logged with its stack; a cache that refused a write (a full disk) is no bug,
      // and the run's message already says what happened and what to do.
      if (!(error instanceof AppError) && !isSqliteError(error)) log.error('sync failed:', error);
      // A copy that could not be written any more is read-only now: the run says so in the
      // words every refused write gets, and has nothing more to write (not even its history row).
      const turned = (isSqliteError(error) && options.onCacheError?.(profileId, error)) || null;
      const reason: unknown = turned ?? error;
      const cancelled = reason instanceof AppError && reason.code === 'CANCELLED';
      // Taken over before its first page: a failure, as a run taken over later ends, and one
      // that writes nothing more (no row in the history: that is the new holder's now).
      const lost = reason instanceof LeaseLostError;
      // Refused because another process syncs: that run is the history's, not this refusal, and
      // nothing failed here. `busy` lets the window tell it from a failure and stay quiet.
      const busy = reason instanceof AppError && reason.code === 'BUSY' && !lost;
      // A run stopped before its first page has no row in the history yet. One that the cache
      // can still take gets one now (the push before the pull broke), so the history says what
      // happened then; else its id is null (an earlier run's would tell another run's outcome).
      const failed: Omit<EventPayload<'sync.finished'>, 'profileId'> = {
        runId: null,
        outcome: busy ? 'busy' : cancelled ? 'cancelled' : 'failed',
        counts,
        errors: cancelled
          ? []
          : [
              {
                resource: '',
                code: reason instanceof AppError ? reason.code : 'INTERNAL',
                message: failureMessage(reason),
              },
            ],
        startedAt,
        finishedAt: options.now().toISOString(),
      };
      failed.runId =
        runId ??
        (cache && failed.outcome !== 'busy' && !lost && !turned
          ? recordNotStarted(cache, lease ?? UNGUARDED, { ...failed, outcome: failed.outcome })
          : null);
      options.events.emit('sync.finished', { profileId, ...failed });
      throw reason instanceof AppError ? reason : new AppError('INTERNAL', failureMessage(reason));
    } finally {
      // A run taken over leaves the file beside the cache to the new holder too.
      if (cache && ends && lease && stillHeld(lease)) storeEnds(runEndsFile(cache.file), ends);
      lease?.release();
    }
    options.events.emit('sync.finished', { profileId, ...summary });
    return summary;
  }

  return {
    sync(profileId, { full = false } = {}) {
      const current = running.get(profileId);
      if (current) return current.done;
      options.profiles.get(profileId); // NOT_FOUND before anything starts
      if (options.networkDown?.(profileId))
        return Promise.reject(new AppError('OFFLINE', NO_NETWORK_MESSAGE));
      const controller = new AbortController();
      const done = start(profileId, full, controller).finally(() => running.delete(profileId));
      running.set(profileId, { controller, done });
      return done;
    },
    cancel(profileId) {
      const current = running.get(profileId);
      current?.controller.abort(new AppError('CANCELLED', 'Sync cancelled.'));
      return current !== undefined;
    },
    isRunning: (profileId) => running.has(profileId),
    history(profileId, limit) {
      const cache = options.cacheOf(profileId);
      const ends = unrecordedOf(profileId, cache);
      // A row still "running" whose end the history refused tells that end, as the next run
      // will write it: the run is over, whatever the row says until then.
      return syncHistory(cache, limit).map((row) => {
        const end = row.outcome === 'running' ? ends.find((known) => known.runId === row.id) : undefined;
        return end
          ? {
              ...row,
              outcome: end.outcome,
              finishedAt: end.finishedAt,
              counts: JSON.stringify(end.counts),
              errors: JSON.stringify(end.errors),
            }
          : row;
      });
    },
    lastSucceededAt: (profileId) => lastSucceededAt(options.cacheOf(profileId)),
    clientOf,
    forget(profileId) {
      clients.delete(profileId);
    },
    async stop(profileId) {
      const current = running.get(profileId);
      if (!current) return;
      current.controller.abort(new AppError('CANCELLED', 'Sync cancelled.'));
      await current.done.catch(() => undefined);
    },
    async stopAll() {
      for (const current of running.values())
        current.controller.abort(new AppError('CANCELLED', 'Satchel is closing.'));
      await Promise.allSettled([...running.values()].map((current) => current.done));
    },
  };
}
