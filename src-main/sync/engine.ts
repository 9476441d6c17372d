import { and, eq, notInArray, sql } from 'drizzle-orm';
import { AppError, KEYCHAIN_CODES } from '../../src-shared/errors';
import type { ApiClient } from '../api/client';
import { log } from '../log';
import { LeaseLostError, UNGUARDED, type LeaseGuard } from './row-lease';
import {
  cacheWriteProblem,
  isSqliteError,
  refreshAfterWrites,
  syncCheckpoints,
  syncRuns,
  type CacheDb,
} from '../store';
import type {
  CheckpointState,
  RecordError,
  ResourceContext,
  ResourceSync,
  SyncOutcome,
  SyncProgress,
  SyncSummary,
} from './types';

/**
 * Runs one sync: each resource module in order, each page committed with its checkpoint, a
 * row in sync_runs for the history. A failing record is reported and skipped; a failing
 * resource is reported and the others still run; losing the network, the credentials or
 * the user's patience (cancel) ends the run early with what was stored kept.
 *
 * Every write of the run goes through the organisation's lease (`lease`, lease.ts): a run whose
 * lease another process took over while it was silent (a suspended laptop) finds out at its
 * first write after it wakes, in that write's own transaction, and ends there with nothing
 * more written: not the page it fetched before the suspend (older than what the other process
 * stored since), nor a checkpoint, a deletion pass or its row in the history.
 */

export interface SyncOptions {
  cache: CacheDb;
  client: ApiClient;
  resources: readonly ResourceSync[];
  full?: boolean;
  signal?: AbortSignal;
  trailingDays?: number;
  now?: () => Date;
  onProgress?: (progress: SyncProgress) => void;
  /**
   * The ends of earlier runs of this cache that the history refused (the caller keeps the list,
   * one per organisation). Each is written first, before the runs still marked running are taken
   * for interrupted, and leaves the list once written; this run's own end joins it when the
   * history refuses it twice.
   */
  unrecordedEnds?: RunEnd[];
  /**
   * Told of every error SQLite raised while the run wrote (the core notes a damaged copy). A
   * refused write that made the copy read-only (core `noteWriteRefused`) gives back the error the
   * run ends with instead: the run stops there, failed, in its words.
   */
  onCacheError?: (error: unknown) => AppError | null | void;
  /**
   * The organisation's lease, through which every write of the run goes (row-lease.ts); none
   * for a caller that runs the sync alone.
   */
  lease?: LeaseGuard;
}

/** How a run ended, as its row in the history keeps it. */
export type RunEnd = Pick<SyncSummary, 'runId' | 'outcome' | 'counts' | 'errors' | 'finishedAt'>;

function recordRunEnd(cache: CacheDb, end: RunEnd): void {
  cache.db
    .update(syncRuns)
    .set({
      finishedAt: end.finishedAt,
      outcome: end.outcome,
      counts: JSON.stringify(end.counts),
      errors: JSON.stringify(end.errors.slice(0, 1000)),
    })
    .where(eq(syncRuns.id, end.runId))
    .run();
}

/** Writes the ends the history refused before; those it refuses again stay in `ends`. */
function recordEarlierEnds(cache: CacheDb, ends: RunEnd[]): void {
  for (const end of [...ends]) {
    try {
      recordRunEnd(cache, end);
      ends.splice(ends.indexOf(end), 1);
    } catch (error) {
      log.warn(`the end of sync run ${end.runId} still cannot be recorded:`, error);
    }
  }
}

/**
 * Errors after which no other resource can succeed either (the keychain's: no credentials). A
 * connection reset to the end of the client's retries says the server (or its proxy) breaks
 * every connection now: the next resource would only wait through the same retries.
 */
const FATAL = new Set<string>(['OFFLINE', 'CONNECTION_RESET', 'TIMEOUT', 'AUTH_FAILED', ...KEYCHAIN_CODES]);

function readCheckpoint(cache: CacheDb, resource: string): CheckpointState | null {
  const row = cache.db.select().from(syncCheckpoints).where(eq(syncCheckpoints.resource, resource)).get();
  if (!row) return null;
  return {
    highWaterMark: row.highWaterMark,
    cursor: row.cursor === null ? null : JSON.parse(row.cursor),
    windowState: row.windowState === null ? null : JSON.parse(row.windowState),
    completedAt: row.completedAt,
  };
}

function toCheckpointRow(resource: string, state: CheckpointState) {
  return {
    resource,
    highWaterMark: state.highWaterMark,
    cursor: state.cursor === null || state.cursor === undefined ? null : JSON.stringify(state.cursor),
    windowState:
      state.windowState === null || state.windowState === undefined
        ? null
        : JSON.stringify(state.windowState),
    completedAt: state.completedAt,
    updatedAt: new Date().toISOString(),
  };
}

export async function runSync(options: SyncOptions): Promise<SyncSummary> {
  const { cache, client, resources } = options;
  const lease = options.lease ?? UNGUARDED;
  const now = options.now ?? (() => new Date());
  // Aborted too when the lease turns out lost, so that nothing of the run goes on.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const startedAt = now().toISOString();

  // An earlier run whose end the history refused ended all the same: its row says how, and
  // when, before anything below could take it for cut short.
  const unrecorded = options.unrecordedEnds ?? [];
  lease.write(() => recordEarlierEnds(cache, unrecorded));
  // A run still marked running was cut short (crash, kill, power): say so in the history.
  const stillUnrecorded = unrecorded.map((end) => end.runId);
  lease.write(() =>
    cache.db
      .update(syncRuns)
      .set({ outcome: 'interrupted' })
      .where(
        and(
          eq(syncRuns.outcome, 'running'),
          stillUnrecorded.length > 0 ? notInArray(syncRuns.id, stillUnrecorded) : undefined,
        ),
      )
      .run(),
  );
  const runId = lease.write(() =>
    Number(cache.db.insert(syncRuns).values({ startedAt }).returning({ id: syncRuns.id }).get().id),
  );

  const counts: Record<string, number> = {};
  const errors: RecordError[] = [];
  let outcome: SyncOutcome = 'succeeded';
  const requestsAtStart = client.stats().requests;
  let currentResource = '';
  const stopWaitNotes = client.onWait((_scope, until) =>
    options.onProgress?.({
      runId,
      resource: currentResource,
      records: counts[currentResource] ?? 0,
      requests: client.stats().requests - requestsAtStart,
      waitingUntil: until.toISOString(),
    }),
  );

  // How an abort ends the run: a cancel (the user's, Ctrl+C, the app closing) as `cancelled`;
  // one with a reason of its own (the lease taken over by another process) as `failed`, saying it.
  const stopped = () => {
    const reason: unknown = signal.reason;
    if (reason instanceof AppError && reason.code !== 'CANCELLED') {
      outcome = 'failed';
      if (!errors.some((error) => error.resource === '' && error.message === reason.message))
        errors.push({ resource: '', code: reason.code, message: reason.message });
    } else outcome = 'cancelled';
  };
  /**
   * The lease is another process's now: the run writes nothing more, and ends saying so. (Only
   * this aborts `stop`.)
   */
  const leaseLost = (error: LeaseLostError) => {
    if (!stop.signal.aborted) stop.abort(error);
    outcome = 'failed';
    if (!errors.some((known) => known.resource === '' && known.message === error.message))
      errors.push({ resource: '', code: error.code, message: error.message });
  };
  /**
   * The copy cannot be written any more (the core opened it again read-only): no other resource
   * could be stored either, so the run ends failed, saying so once in the words the banner uses.
   */
  const readOnly = (error: AppError) => {
    outcome = 'failed';
    if (!errors.some((known) => known.resource === '' && known.message === error.message))
      errors.push({ resource: '', code: error.code, message: error.message });
  };

  try {
    for (const module of resources) {
      if (signal.aborted) {
        stopped();
        break;
      }
      const resource = module.resource;
      currentResource = resource;
      counts[resource] = 0;
      const progress = () =>
        options.onProgress?.({
          runId,
          resource,
          records: counts[resource] ?? 0,
          requests: client.stats().requests - requestsAtStart,
          waitingUntil: null,
        });
      const reportError = (error: Omit<RecordError, 'resource'>) => errors.push({ resource, ...error });

      const context: ResourceContext = {
        resource,
        client,
        cache,
        signal,
        full: options.full ?? false,
        trailingDays: options.trailingDays ?? 60,
        now,
        checkpoint: () => readCheckpoint(cache, resource),
        commitPage(write, checkpoint) {
          // Renews the lease in the page's own transaction: nothing lands once it is another's.
          lease.write(() =>
            cache.db.transaction((tx) => {
              const written = write(tx, cache.sqlite);
              const current = readCheckpoint(cache, resource) ?? {
                highWaterMark: null,
                cursor: null,
                windowState: null,
                completedAt: null,
              };
              const changes = typeof checkpoint === 'function' ? checkpoint() : checkpoint;
              const row = toCheckpointRow(resource, { ...current, ...changes });
              tx.insert(syncCheckpoints)
                .values(row)
                .onConflictDoUpdate({ target: syncCheckpoints.resource, set: row })
                .run();
              counts[resource] = (counts[resource] ?? 0) + written;
            }),
          );
          progress();
        },
        parseRecord(schema, raw) {
          const parsed = schema.safeParse(raw);
          if (parsed.success) return parsed.data;
          const issue = parsed.error.issues[0];
          const id =
            typeof raw === 'object' && raw !== null && 'id' in raw
              ? String((raw as { id: unknown }).id)
              : undefined;
          reportError({
            ...(id ? { recordId: id } : {}),
            ...(issue && issue.path.length > 0 ? { field: issue.path.join('.') } : {}),
            code: 'BAD_RECORD',
            message: `Skipped a ${resource} record the app cannot read${issue ? `: ${issue.message}` : ''}.`,
          });
          return null;
        },
        reportError,
      };

      try {
        // A repair forgets where the resource stood and reads it all again.
        if (options.full)
          lease.write(() =>
            cache.db.delete(syncCheckpoints).where(eq(syncCheckpoints.resource, resource)).run(),
          );
        progress();
        await module.pull(context);
      } catch (error) {
        // Taken over: how the run ends, whatever else is happening (its requests are aborted).
        if (error instanceof LeaseLostError) {
          leaseLost(error);
          break;
        }
        const appError = error instanceof AppError ? error : null;
        // A cancel (the user's, Ctrl+C, the app closing) is how the run ended, which its
        // outcome says; it is no problem of the resource it happened to stop in.
        if (signal.aborted) {
          stopped();
          break;
        }
        if (appError?.code === 'CANCELLED') {
          outcome = 'cancelled';
          break;
        }
        const turned = isSqliteError(error) ? options.onCacheError?.(error) : null;
        if (turned) {
          log.warn(`sync of ${resource} stopped: the offline copy turned read-only`);
          readOnly(turned);
          break;
        }
        if (!appError) log.error(`sync of ${resource} failed:`, error);
        reportError({
          code: appError?.code ?? 'INTERNAL',
          message:
            appError?.message ??
            (isSqliteError(error)
              ? `Satchel could not write to this organisation's cache (${cacheWriteProblem(error)}); what was stored before is kept.`
              : `Syncing ${resource} failed unexpectedly.`),
        });
        if (appError && FATAL.has(appError.code)) {
          outcome = 'failed';
          break;
        }
        outcome = 'partial';
      }
    }
  } finally {
    stopWaitNotes();
  }
  if (outcome === 'succeeded' && errors.length > 0) outcome = 'partial';

  const finishedAt = now().toISOString();
  const recordEnd = () =>
    lease.write(() => recordRunEnd(cache, { runId, outcome, counts, errors, finishedAt }));
  try {
    if (!stop.signal.aborted) recordEnd();
  } catch (error) {
    if (error instanceof LeaseLostError) leaseLost(error);
    else recordEndRefused(error);
  }
  // Taken over: the run's row is the new holder's to mark (interrupted), and so is the refresh.
  if (stop.signal.aborted) return { runId, outcome, counts, errors, startedAt, finishedAt };
  // New rows: the gram blocks they marked stale are recomputed (short-text search) and the
  // planner's statistics follow the shape of the data; a failure there fails nothing.
  refreshAfterWrites(cache, (what, error) =>
    log.warn(`after the sync, refreshing the ${what} failed:`, error),
  );
  return { runId, outcome, counts, errors, startedAt, finishedAt };

  function recordEndRefused(error: unknown): void {
    // The history refused the run's end (a full disk, a read-only cache file): the run ends all
    // the same, failed and saying why, so that nothing waits for it. The pages it committed stay.
    const turned = options.onCacheError?.(error);
    if (turned) readOnly(turned);
    else {
      log.error('the sync could not record how it ended:', error);
      outcome = 'failed';
      errors.push({
        resource: '',
        code: 'INTERNAL',
        message: `Satchel could not write to this organisation's cache (${cacheWriteProblem(error)}). What the sync stored is kept; sync again once that is fixed.`,
      });
    }
    try {
      recordEnd();
    } catch (again) {
      if (again instanceof LeaseLostError) leaseLost(again);
      // Still refused: the row stays "running" for now, and the caller keeps its true end for
      // the next run to write first (so it is not taken for interrupted).
      else unrecorded.push({ runId, outcome, counts: { ...counts }, errors: [...errors], finishedAt });
    }
  }
}

/**
 * Records a run that ended before it could start pulling (the push of waiting edits before the
 * pull broke), so that the history tells what happened then rather than nothing. Returns its id.
 */
export function recordRunNotStarted(
  cache: CacheDb,
  run: Pick<SyncSummary, 'outcome' | 'counts' | 'errors' | 'startedAt' | 'finishedAt'>,
): number {
  return Number(
    cache.db
      .insert(syncRuns)
      .values({
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        outcome: run.outcome,
        counts: JSON.stringify(run.counts),
        errors: JSON.stringify(run.errors.slice(0, 1000)),
      })
      .returning({ id: syncRuns.id })
      .get().id,
  );
}

/** The newest runs first, for the sync screen and `satchel status`. */
export function syncHistory(cache: CacheDb, limit = 20) {
  return cache.db
    .select()
    .from(syncRuns)
    .orderBy(sql`${syncRuns.id} desc`)
    .limit(limit)
    .all();
}

/** When the newest run that read everything ended, or null if none did (the status bar says since when). */
export function lastSucceededAt(cache: CacheDb): string | null {
  const row = cache.db
    .select({ finishedAt: syncRuns.finishedAt })
    .from(syncRuns)
    .where(eq(syncRuns.outcome, 'succeeded'))
    .orderBy(sql`${syncRuns.id} desc`)
    .limit(1)
    .get();
  return row?.finishedAt ?? null;
}
