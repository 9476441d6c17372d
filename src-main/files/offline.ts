import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../src-shared/errors';
import { OfflineScope, type CachedFile, type LastFill, type OfflineUsage } from '../../src-shared/files';
import type { ApiClient } from '../api/client';
import { abortableSleep } from '../api/rate-governor';
import { log } from '../log';
import { prepared } from '../search/sql';
import { isSqliteError, type CacheDb } from '../store';
import { FILE_SCHEME } from '../shell/file-route';
import { EXPIRY_MS, LeaseLostError, UNGUARDED, type LeaseGuard } from '../sync/row-lease';
import { FILE_ATTEMPTS, fileRetryDelayMs, givenUpReason, retriesFile } from './attempts';
import { fetchFile, hashFile, stopsEveryFile } from './fetch';
import { FILE_DATE_SQL, SCOPED_FILES_FROM } from './scope';
import type { ReadShare } from './share';
import { cacheExtension } from './template';

/**
 * The offline file cache of one organisation: `<dataDir>/files/<profileId>/<fileId>.<ext>`.
 * A file gets there when it is opened for preview, or in the background for the organisation's
 * "keep offline" scope (the last N days, or everything) within a disk budget. The file's row
 * in `expense_files` records the copy: `local_path` (the name inside the folder),
 * `local_sha256` (what it hashed to; a copy whose hash differs from the record's `sha256` is
 * stale and fetched again) and `downloaded_at`.
 */

const SETTING_KEY = 'files.offlineScope';
const FILE_ID = /^[0-9A-Za-z][0-9A-Za-z-]{0,99}$/;
/**
 * A preview's retries of a failure without a usable answer (a connection reset, a 5xx, a
 * time-out, no answer at all): two attempts in all, a short pause (¼–½ s) between, so the pane
 * speaks within a second or so instead of after the client's six attempts and their backoff
 * (8–15 s); its Try again asks again. A 429 is not counted: the wait the server names is
 * honoured as for every request (api/client.ts).
 */
const PREVIEW_RETRIES = 1;
/**
 * The longest `Retry-After` of a 5xx a preview waits for before its second attempt; a server
 * that asks for longer is reported at once rather than waited for in silence.
 */
const PREVIEW_SERVER_WAIT_MS = 3_000;
/**
 * How long a preview's request waits for the server's answer to begin (its status and
 * headers) before the attempt is timed out, instead of the client's 30 s of silence: a file's
 * answer begins within a second or two from a server that works, and with two attempts a
 * server that takes the connection and says nothing is reported after about 20 s rather than a
 * minute of spinner. Once the answer has begun, the body keeps the client's silence time-out:
 * a large PDF on a slow line is not cut off while its bytes keep coming. The fill and bulk
 * downloads, which nobody watches, keep the client's time-out. (`OfflineDeps.previewFirstByteMs`
 * sets another for tests.)
 */
const PREVIEW_FIRST_BYTE_MS = 10_000;

/**
 * A file of the folder written to more recently than this may be another process's (a preview
 * in the app while the command line fills, or the other way round): a `.part` file it is
 * writing, or a copy it has just put in place and is about to record. The sweep leaves it; a
 * live fetch writes its `.part` file at least every 30 s (the body's time-out) and a rename
 * keeps the time of the last write. The fill lease's expiry, so that a `.part` file of a fill
 * still deemed alive is never removed.
 */
const WRITING_MS = EXPIRY_MS;

function recentlyWritten(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < WRITING_MS;
  } catch {
    return true; // gone already: nothing to remove
  }
}

export function fileUrl(profileId: string, localName: string): string {
  return `${FILE_SCHEME}://${profileId}/${localName}`;
}

interface FileRecord {
  id: string;
  name: string | null;
  mimeType: string | null;
  size: number | null;
  sha256: string | null;
  localPath: string | null;
  localSha256: string | null;
}

function fileRecord(cache: CacheDb, fileId: string): FileRecord | undefined {
  return prepared(
    cache.sqlite,
    `SELECT id, name, mime_type AS mimeType, size, sha256, local_path AS localPath, local_sha256 AS localSha256
     FROM expense_files WHERE id = ? AND deleted_at IS NULL`,
  ).get(fileId) as FileRecord | undefined;
}

/**
 * The copy's full path when it is on disk as the record says: a file of the record's size. A
 * copy cut short (a crash of the disk, a sync tool, a cleaner) or gone is not served or counted,
 * but fetched again. Its content is checked when it was written, and again by whatever copies
 * it out of the cache (`copyVerified`).
 */
function onDisk(root: string, localPath: string, size: number | null): string | null {
  if (!FILE_ID.test(localPath.split('.')[0] ?? '')) return null;
  const full = path.join(root, localPath);
  try {
    const found = statSync(full);
    return found.isFile() && (size === null || found.size === size) ? full : null;
  } catch {
    return null;
  }
}

function isGood(record: FileRecord, root: string): string | null {
  if (!record.localPath) return null;
  if (record.sha256 && record.localSha256 !== record.sha256) return null;
  return onDisk(root, record.localPath, record.size);
}

/** Every good cached copy, by file id. */
export function cachedCopies(cache: CacheDb, root: string): Map<string, string> {
  const rows = prepared(
    cache.sqlite,
    `SELECT id, name, mime_type AS mimeType, size, sha256, local_path AS localPath, local_sha256 AS localSha256
     FROM expense_files WHERE local_path IS NOT NULL AND deleted_at IS NULL`,
  ).all() as FileRecord[];
  const found = new Map<string, string>();
  for (const row of rows) {
    const good = isGood(row, root);
    if (good) found.set(row.id, good);
  }
  return found;
}

export function readOfflineScope(cache: CacheDb): OfflineScope {
  const row = prepared(cache.sqlite, `SELECT value FROM organisation_settings WHERE key = ?`).get(
    SETTING_KEY,
  ) as { value: string } | undefined;
  const parsed = OfflineScope.safeParse(row ? JSON.parse(row.value) : { mode: 'none' });
  return parsed.success ? parsed.data : OfflineScope.parse({ mode: 'none' });
}

export function writeOfflineScope(cache: CacheDb, scope: OfflineScope, now: string): void {
  prepared(
    cache.sqlite,
    `INSERT INTO organisation_settings (key, value, updated_at) VALUES (@key, @value, @now)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run({ key: SETTING_KEY, value: JSON.stringify(scope), now });
}

export interface OfflineDeps {
  cache: CacheDb;
  client: ApiClient;
  /** The organisation's folder of cached files. */
  root: string;
  profileId: string;
  now: () => Date;
  /** The preview URL of a cached copy; `fileUrl` (the satchel-file: route) unless a test serves it. */
  fileUrl?: (profileId: string, localName: string) => string;
  /**
   * The copies being made now, by file: shared by every caller of one cache (the preview and
   * the fill), so that a file asked for twice at once is fetched once, not twice into the one
   * `.part` file.
   */
  inflight?: Map<string, Promise<CachedFile>>;
  /** Whether the system says there is no network at all: a missing copy is then not asked for. */
  networkDown?: () => boolean;
  /**
   * The refusal a write to the offline copy gets now, or null when it can be written (core
   * `previewWriteRefused`); a preview's only, asked only before a write. A missing copy is then not asked for: its record could
   * not be kept, and the request would be spent for nothing.
   */
  readOnly?: () => AppError | null;
  /** A preview's wait for the answer to begin; `PREVIEW_FIRST_BYTE_MS` unless a test sets it. */
  previewFirstByteMs?: number;
}

/** `promise`, or a rejection with the signal's reason once it aborts (the promise goes on). */
function unlessAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * How the fill asks for a file: through the read share, and with the connection resets left to
 * its own attempts at the file (attempts.ts) rather than retried by the client; writing under
 * its lease (fill-lease.ts): its record of the copy through `write`, its `.part` file and the
 * rename after `check`.
 */
interface FillFetch {
  share: ReadShare;
  lease: LeaseGuard;
}

/**
 * A file on disk for preview: the cached copy, or fetched now (the user is waiting: no share).
 * A copy already being made for another caller of this process is waited for; if that caller
 * stops it (the fill was stopped or its scope changed), this one makes it itself. A copy
 * another process is making (its fill) is not waited for: the preview fetches the file itself,
 * into a `.part` file of its own, so the two never write one file.
 */
export async function ensureCached(
  deps: OfflineDeps,
  fileId: string,
  signal?: AbortSignal,
  fill?: FillFetch,
): Promise<CachedFile> {
  const { inflight } = deps;
  if (!inflight) return cacheCopy(deps, fileId, signal, fill);
  const key = path.join(deps.root, fileId);
  const tried = new Set<Promise<CachedFile>>();
  for (let running = inflight.get(key); running && !tried.has(running); running = inflight.get(key)) {
    tried.add(running);
    try {
      return await unlessAborted(running, signal);
    } catch (error) {
      // Stopped (a fill stopped, rescoped or taken over by another process): made here instead.
      const stopped =
        error instanceof LeaseLostError || (error instanceof AppError && error.code === 'CANCELLED');
      if (signal?.aborted || !stopped) throw error;
    }
  }
  const mine = cacheCopy(deps, fileId, signal, fill);
  inflight.set(key, mine);
  try {
    return await mine;
  } finally {
    if (inflight.get(key) === mine) inflight.delete(key);
  }
}

async function cacheCopy(
  deps: OfflineDeps,
  fileId: string,
  signal?: AbortSignal,
  fill?: FillFetch,
): Promise<CachedFile> {
  const record = fileRecord(deps.cache, fileId);
  if (!record) throw new AppError('NOT_FOUND', 'This file is not in the offline copy; sync first.');
  if (!FILE_ID.test(record.id))
    throw new AppError('BAD_RESPONSE', 'The file has an id Satchel cannot store.');
  let localName = `${record.id}${cacheExtension(record.name, record.mimeType)}`;
  const good = isGood(record, deps.root);
  // A read-only copy could not record the rename below: the copy is shown under its own name.
  if (good && record.localPath && record.localPath !== localName && deps.readOnly?.())
    localName = record.localPath;
  // A preview writes alone (its own `.part` name); a fill under its lease.
  const lease = fill?.lease ?? UNGUARDED;
  if (good && record.localPath !== localName) {
    // The same bytes, but the record's type or name changed since (a type learned later): the
    // copy takes the extension its preview URL and content type now come from.
    lease.check();
    await rename(good, path.join(deps.root, localName));
    lease.write(() =>
      prepared(deps.cache.sqlite, `UPDATE expense_files SET local_path = @localName WHERE id = @id`).run({
        id: record.id,
        localName,
      }),
    );
  } else if (!good) {
    // A read-only copy could not record it: refused before any request, in the banner's words.
    const refused = deps.readOnly?.();
    if (refused) throw refused;
    const finalPath = path.join(deps.root, localName);
    // Its bytes already in the folder, unrecorded (saved while the copy was read-only, its record
    // refused): taken as they are, as the fill's `adoptUnrecorded` takes them, with no request.
    if (!(await unrecordedCopy(record, finalPath))) {
      // Said at once rather than after the client's retries: the user is looking at the pane.
      if (deps.networkDown?.())
        throw new AppError(
          'OFFLINE',
          'This file is not on this computer yet and there is no network. It can be opened once the network is back.',
        );
      await mkdir(deps.root, { recursive: true });
      // The fill's `.part` file is continued by the next fill (one process fills at a time:
      // fill-lease.ts). A preview writes a name of its own, never continued: the other process's
      // fill may be writing the fill's name of this very file now.
      const partPath = path.join(
        deps.root,
        fill ? `${record.id}.part` : `${record.id}.${process.pid}-${randomUUID().slice(0, 8)}.part`,
      );
      try {
        await fetchFile({
          client: deps.client,
          file: { id: record.id, size: record.size, sha256: record.sha256 },
          partPath,
          finalPath,
          ...(fill ? { fence: () => fill.lease.check() } : { noPartFile: true }),
          ...(signal ? { signal } : {}),
          // The fill makes its own attempts at the file; a preview, which a person waits for, asks
          // twice at most before it says so (service.ts `fetch`) and leaves the next try to them.
          ...(fill
            ? { delayBeforeRequest: () => fill.share.delayMs(), resetRetries: 0 }
            : {
                retries: PREVIEW_RETRIES,
                maxServerWaitMs: PREVIEW_SERVER_WAIT_MS,
                firstByteTimeoutMs: deps.previewFirstByteMs ?? PREVIEW_FIRST_BYTE_MS,
              }),
        });
      } catch (error) {
        if (!fill) await rm(partPath, { force: true });
        throw error;
      }
    }
    // A fill's copy taken over meanwhile is in place (checked bytes) but not recorded here: the
    // fill that took it over finds it in the folder (`adoptUnrecorded`).
    lease.write(() =>
      prepared(
        deps.cache.sqlite,
        `UPDATE expense_files SET local_path = @localName, local_sha256 = @sha, downloaded_at = @now WHERE id = @id`,
      ).run({ id: record.id, localName, sha: record.sha256, now: deps.now().toISOString() }),
    );
    // A stale copy under another name (the record's type changed with its bytes) goes: it is
    // counted nowhere, and the route would still serve the old receipt at its old address.
    if (
      record.localPath &&
      record.localPath !== localName &&
      FILE_ID.test(record.localPath.split('.')[0] ?? '')
    ) {
      lease.check();
      await rm(path.join(deps.root, record.localPath), { force: true });
    }
  }
  const size = record.size ?? statSync(path.join(deps.root, localName)).size;
  return {
    fileId: record.id,
    url: (deps.fileUrl ?? fileUrl)(deps.profileId, localName),
    mimeType: record.mimeType,
    size,
    name: record.name,
  };
}

/**
 * Whether `full` (the copy's name in the folder, never a `.part` file) holds the record's bytes
 * although the record does not say so: its size and sha256 are the record's. A copy put in place
 * whose record was refused (the copy turned read-only meanwhile, docs/store.md) is such a one;
 * so is one another process has just put in place and not yet recorded (the same bytes). A
 * record without a sha256 or a size cannot vouch for any bytes: nothing is taken then.
 */
async function unrecordedCopy(
  record: FileRecord,
  full: string,
  unreadable?: (error: unknown) => void,
): Promise<boolean> {
  if (!record.sha256 || record.size === null || full.endsWith('.part')) return false;
  try {
    const found = statSync(full);
    if (!found.isFile() || found.size !== record.size) return false;
    return (await hashFile(full, found.size)).sha256 === record.sha256;
  } catch (error) {
    // Gone, or unreadable: fetched as any missing copy. Gone is no news; the caller may say why
    // a copy it could not read was not taken.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unreadable?.(error);
    return false;
  }
}

interface Candidate {
  id: string;
  size: number | null;
  localPath: string | null;
  good: number;
}

/** Files the scope asks for, newest first: those that fit the budget, in that order. */
function wantedFiles(cache: CacheDb, scope: OfflineScope, today: string): Candidate[] {
  if (scope.mode === 'none') return [];
  const since =
    scope.mode === 'recent'
      ? new Date(Date.parse(`${today}T00:00:00Z`) - scope.days * 86_400_000).toISOString().slice(0, 10)
      : null;
  const rows = prepared(
    cache.sqlite,
    `SELECT f.id AS id, f.size AS size, f.local_path AS localPath,
       (f.local_path IS NOT NULL AND (f.sha256 IS NULL OR f.local_sha256 = f.sha256)) AS good
     ${SCOPED_FILES_FROM}
     WHERE f.deleted_at IS NULL AND (@since IS NULL OR ${FILE_DATE_SQL} >= @since)
     ORDER BY ${FILE_DATE_SQL} DESC, f.id`,
  ).all({ since }) as Candidate[];
  const fitting: Candidate[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (bytes + (row.size ?? 0) > scope.budgetBytes) break;
    bytes += row.size ?? 0;
    fitting.push(row);
  }
  return fitting;
}

function cachedRows(
  cache: CacheDb,
): Array<{ id: string; size: number | null; localPath: string; downloadedAt: string | null }> {
  return prepared(
    cache.sqlite,
    `SELECT id, size, local_path AS localPath, downloaded_at AS downloadedAt FROM expense_files
     WHERE local_path IS NOT NULL ORDER BY downloaded_at, id`,
  ).all() as Array<{ id: string; size: number | null; localPath: string; downloadedAt: string | null }>;
}

async function evict(
  deps: OfflineDeps,
  row: { id: string; localPath: string },
  lease: LeaseGuard,
): Promise<void> {
  if (FILE_ID.test(row.localPath.split('.')[0] ?? '')) {
    lease.check();
    await rm(path.join(deps.root, row.localPath), { force: true });
  }
  lease.write(() =>
    prepared(
      deps.cache.sqlite,
      `UPDATE expense_files SET local_path = NULL, local_sha256 = NULL, downloaded_at = NULL WHERE id = ?`,
    ).run(row.id),
  );
}

/**
 * Removes from the folder what no row records and nothing is writing: the `.part` file of a
 * fetch that was stopped (a fill whose scope changed, a quit) for a file no longer wanted, a
 * copy whose row was cleared without it. They take room that neither the usage nor the budget
 * sees. The `.part` file of a wanted file still missing stays: its fetch continues from it.
 * It runs only in a fill, so under the fill lease (no other process sweeps or fills meanwhile),
 * but another process may still be fetching a preview into the folder: what was written in the
 * last two minutes (`WRITING_MS`) stays until a later fill.
 */
async function sweep(deps: OfflineDeps, resumable: Set<string>, lease: LeaseGuard): Promise<void> {
  let entries;
  try {
    entries = await readdir(deps.root, { withFileTypes: true });
  } catch {
    return; // no folder yet
  }
  const recorded = new Set(cachedRows(deps.cache).map((row) => row.localPath));
  for (const entry of entries) {
    const id = entry.name.slice(0, entry.name.indexOf('.'));
    if (!entry.isFile() || !FILE_ID.test(id) || recorded.has(entry.name)) continue;
    if (deps.inflight?.has(path.join(deps.root, id))) continue;
    if (entry.name === `${id}.part` && resumable.has(id)) continue;
    const full = path.join(deps.root, entry.name);
    if (recentlyWritten(full)) continue;
    lease.check();
    await rm(full, { force: true });
  }
}

/**
 * Takes the copies in the folder that no row records but whose size and sha256 are their
 * record's as that record's copy, instead of fetching them again: after "Set aside and rebuild"
 * the fresh cache records none of the files its folder still holds. A copy that differs is
 * never taken (the sweep then removes it); one with no record yet is left for the sweep too.
 */
async function adoptUnrecorded(deps: OfflineDeps, lease: LeaseGuard): Promise<number> {
  let names: string[];
  try {
    names = await readdir(deps.root);
  } catch {
    return 0; // no folder yet
  }
  const recorded = new Set(cachedRows(deps.cache).map((row) => row.localPath));
  let adopted = 0;
  for (const name of names) {
    const dot = name.indexOf('.');
    const id = dot < 0 ? name : name.slice(0, dot);
    if (recorded.has(name) || name.endsWith('.part') || !FILE_ID.test(id)) continue;
    if (deps.inflight?.has(path.join(deps.root, id))) continue;
    const record = fileRecord(deps.cache, id);
    if (!record || record.localPath) continue;
    const full = path.join(deps.root, name);
    const couldNotTake = (error: unknown) =>
      log.warn(`a copy of file ${record.id} already in the folder could not be taken:`, error);
    if (!(await unrecordedCopy(record, full, couldNotTake))) continue;
    try {
      const localName = `${record.id}${cacheExtension(record.name, record.mimeType)}`;
      if (name !== localName) {
        lease.check();
        await rename(full, path.join(deps.root, localName));
      }
      lease.write(() =>
        prepared(
          deps.cache.sqlite,
          `UPDATE expense_files SET local_path = @localName, local_sha256 = @sha, downloaded_at = @now WHERE id = @id`,
        ).run({ id: record.id, localName, sha: record.sha256, now: deps.now().toISOString() }),
      );
      adopted += 1;
    } catch (error) {
      // The cache's trouble, not this copy's: the fill stops (fills.ts tells the core).
      if (error instanceof LeaseLostError || isSqliteError(error)) throw error;
      couldNotTake(error);
    }
  }
  return adopted;
}

export function offlineUsage(
  deps: Pick<OfflineDeps, 'cache' | 'now'>,
  filling: boolean,
  lastFill: LastFill | null = null,
  fillingElsewhere = false,
): OfflineUsage {
  const scope = readOfflineScope(deps.cache);
  const cached = cachedRows(deps.cache);
  const wanted = wantedFiles(deps.cache, scope, deps.now().toISOString().slice(0, 10));
  return {
    scope,
    cachedFiles: cached.length,
    cachedBytes: cached.reduce((sum, row) => sum + (row.size ?? 0), 0),
    wantedFiles: wanted.length,
    wantedCached: wanted.filter((row) => row.good).length,
    filling,
    fillingElsewhere,
    lastFill,
  };
}

export interface FillResult {
  fetched: number;
  evicted: number;
  failed: number;
  /** The fill did not run here, or stopped: another process fills the cache (fill-lease.ts). */
  elsewhere?: boolean;
}

/**
 * Brings the cache to the scope: files outside it go first when room is needed (oldest copies
 * first), then the wanted files that are missing are fetched, newest first, two at a time,
 * through the read share. A file whose trouble another attempt may cure (a body cut off, a
 * connection reset, a server error) is tried again in the same fill, as a bulk download does
 * (attempts.ts: a cut body continues from its `.part` file); one that still fails, or fails
 * otherwise, is counted in `failed` and skipped until the next fill. `onFetched` is told of
 * each file put in place. Everything it writes, in the cache and in the folder, is under
 * `lease` (fill-lease.ts): once another process has taken the fill over, it throws
 * LeaseLostError with nothing more written. `fetch: false` stops after the sweep (copies lost
 * from disk forgotten, unrecorded ones taken, leftovers cleared): no request, nothing evicted for
 * room, for a process that would stop the fetches at once (the command line exiting after its
 * sync).
 */
export async function fillOffline(
  deps: OfflineDeps,
  share: ReadShare,
  signal: AbortSignal,
  onFetched?: () => void,
  lease: LeaseGuard = UNGUARDED,
  options: { fetch?: boolean } = {},
): Promise<FillResult> {
  // A copy a row records but the disk does not hold as recorded (cut short, gone) is forgotten
  // first, and its remains removed: a wanted one is then fetched again, and the usage and the
  // budget count only real copies.
  for (const row of cachedRows(deps.cache))
    if (!onDisk(deps.root, row.localPath, row.size)) await evict(deps, row, lease);
  await adoptUnrecorded(deps, lease);
  const scope = readOfflineScope(deps.cache);
  const wanted = wantedFiles(deps.cache, scope, deps.now().toISOString().slice(0, 10));
  const wantedIds = new Set(wanted.map((row) => row.id));
  const result: FillResult = { fetched: 0, evicted: 0, failed: 0 };
  const missing = wanted.filter((row) => !row.good);
  await sweep(deps, new Set(missing.map((row) => row.id)), lease);
  if (options.fetch === false) return result;
  const cached = cachedRows(deps.cache);
  let used = cached.reduce((sum, row) => sum + (row.size ?? 0), 0);
  const need = missing.reduce((sum, row) => sum + (row.size ?? 0), 0);
  for (const row of cached) {
    if (used + need <= scope.budgetBytes) break;
    if (wantedIds.has(row.id)) continue;
    await evict(deps, row, lease);
    used -= row.size ?? 0;
    result.evicted += 1;
  }
  let next = 0;
  // Trouble that ends the fill stops the other worker too, and the fill ends only once both
  // have: nothing is fetched or written after it (its lease is given back then).
  const halt = new AbortController();
  const running = AbortSignal.any([signal, halt.signal]);
  const worker = async () => {
    while (!running.aborted) {
      const row = missing[next];
      next += 1;
      if (!row) return;
      for (let attempts = 1; ; attempts += 1) {
        try {
          await ensureCached(deps, row.id, running, { share, lease });
          result.fetched += 1;
          onFetched?.();
          break;
        } catch (error) {
          if (error instanceof LeaseLostError) throw error;
          if (running.aborted) return;
          // A write the cache refused (a copy turned read-only, a full disk) is no file's own
          // trouble: every file would be fetched for nothing, its record refused.
          if (stopsEveryFile(error) || isSqliteError(error)) throw error;
          if (retriesFile(error) && attempts < FILE_ATTEMPTS) {
            await abortableSleep(fileRetryDelayMs(attempts), running).catch(() => undefined);
            if (running.aborted) return;
            continue;
          }
          result.failed += 1;
          log.warn(`offline copy of file ${row.id} failed: ${givenUpReason(error, attempts)}`);
          break;
        }
      }
    }
  };
  const stopping = (error: unknown): never => {
    halt.abort(error);
    throw error;
  };
  const ends = await Promise.allSettled([worker().catch(stopping), worker().catch(stopping)]);
  const failure = ends.find((end) => end.status === 'rejected');
  if (failure) throw failure.reason;
  return result;
}
