import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import packageJson from '../package.json';
import { API_VERSION, type AppInfo, type Notice } from '../src-shared/ipc';
import { createEventBus, type EventBus } from './events';
import { createConnectivity, observeFetch, observeRawFetch, type Connectivity } from './connectivity';
import {
  createFileChooser,
  createFolderChooser,
  systemReason,
  type FilePicker,
  type FolderOpener,
  type FolderPicker,
} from './folders';
import { createGrants, type Grants } from './grants';
import { AppError } from '../src-shared/errors';
import type { ProfileAuth, RecoveryPlan, RecoveryResult } from '../src-shared/profiles';
import type { FilePurpose } from '../src-shared/export';
import { createApiClient } from './api/client';
import { createHttpFetch, fromFetch } from './api/http-fetch';
import { createProfileStore, type Profile, type ProfileStore } from './profiles';
import type { ExpenseFilters, ReviewTarget, SearchTotals, TransactionFilters } from '../src-shared/search';
import { createBackgroundTotals, type BackgroundTotals } from './search/background-totals';
import { answerAsk } from './search/thread-asks';
import {
  CacheOpenError,
  isCorruption,
  openCache,
  refusedWrite,
  type CacheDb,
  type CacheOpenFailure,
} from './store';
import { readableWork, rescueWork, setAsideCache, type ReadableWork, type RescuedWork } from './cache-rescue';
import { listedProfile, planRecovery, recordConnection } from './profiles-recover';
import type { SandboxOptions } from '../src-sandbox';
import { createDemo, type DemoService } from './demo';
import { createFileService, type FileService } from './files/service';
import { log } from './log';
import { createOutbox, type Outbox } from './outbox';
import { createLeases, type LeaseOptions } from './sync/lease';
import { createFillLeases, type FillLeaseOptions } from './files/fill-lease';
import { createSyncService, type SyncService } from './sync/service';
import { createKeychainSecrets, type Secrets } from './secrets';
import { defaultMigrationsDir, shippedSchemaVersion } from './store/migrations';
import { refusesOpenWrites, writeProblem } from './store/writable';

/**
 * The app core: every service Satchel has, built from plain options. It imports nothing from
 * electron, so the Electron shell, the CLI and the tests all run the very same core.
 */
export interface CoreOptions {
  /** Where Satchel keeps its caches and settings; created if missing. */
  dataDir: string;
  secrets?: Secrets;
  /** Folder of the cache's SQL migrations (the packaged app passes its resources path). */
  migrationsDir?: string;
  fetch?: typeof fetch;
  clock?: () => Date;
  platform?: string;
  /** Options of the in-app demo sandbox (tests make it small). */
  demoSandbox?: SandboxOptions;
  /** The system's folder dialog, given by the Electron shell (tests give their own). */
  pickFolder?: FolderPicker;
  /** The system's save and open dialogs, for exports and imports (tests give their own). */
  pickFile?: FilePicker;
  /** Shows a folder in the system's file manager, given by the shell (tests give their own). */
  openFolder?: FolderOpener;
  /**
   * The URL the page loads a cached file from. The app serves `satchel-file://<profileId>/<name>`
   * (the default); the end-to-end harness, whose Chromium cannot serve a custom scheme, gives an
   * http address it answers through the same route (src-main/shell/file-response.ts).
   */
  fileUrl?: (profileId: string, localName: string) => string;
  /**
   * The built script of the totals thread (the app passes electron-vite's path of
   * `search/totals-thread.ts`); by default its source, run through tsx.
   */
  totalsThread?: string;
  /**
   * The built script of the review file check thread (the app passes electron-vite's path of
   * `review/check-thread.ts`); by default its source, run through tsx.
   */
  reviewCheckThread?: string;
  /** The sync lease's heartbeat and expiry (tests make them short; sync/lease.ts). */
  lease?: LeaseOptions;
  /** The offline fill lease's heartbeat and expiry (files/fill-lease.ts); tests make them short. */
  fillLease?: FillLeaseOptions;
  /**
   * How long the API client waits for an answer (for a file, for its next byte) before it calls
   * the attempt timed out: 30 s by default (api/client.ts `timeoutMs`); tests make it short.
   */
  apiTimeoutMs?: number;
  /**
   * How long a preview's request waits for the answer to begin: 10 s by default
   * (files/offline.ts `PREVIEW_FIRST_BYTE_MS`), never longer than `apiTimeoutMs`; tests make it
   * short.
   */
  previewFirstByteMs?: number;
  /**
   * What a sync that succeeded is followed by for the offline files: `fill` (the default) brings
   * them to the keep-offline scope; `sweep` only clears the folder of leftovers and fetches
   * nothing: the command line, which exits as soon as its sync is done and would stop a fill
   * there and then (requests spent for nothing, `.part` files left). The app fills.
   */
  afterSync?: 'fill' | 'sweep';
}

export interface Core {
  readonly events: EventBus;
  readonly secrets: Secrets;
  readonly profiles: ProfileStore;
  readonly sync: SyncService;
  readonly outbox: Outbox;
  /** Expense files: bulk downloads and the offline file cache (docs/files.md). */
  readonly files: FileService;
  /** The demo organisation: the sandbox inside the app (docs/shell.md). */
  readonly demo: DemoService;
  /** Online or not, from the network signal and from every API request (docs/shell.md). */
  readonly connectivity: Connectivity;
  /**
   * The files and folders the user picked in the dialogs below: the only paths the page may
   * name (src-main/grants.ts). The command line and the core's own jobs do not need them.
   */
  readonly grants: Grants;
  /** Asks for a folder to download into (the shell's dialog), granting it; null when cancelled. */
  pickFolder(title?: string): Promise<string | null>;
  /** Asks for a file to export to or import from (the shell's dialog), granting it; null when cancelled. */
  pickFile(purpose: FilePurpose, suggestedName?: string): Promise<string | null>;
  /**
   * The cache of one organisation, opened (and migrated) on first use. A copy that cannot be
   * written opens read-only (`readOnly` on it, and `readOnlyError` below): it reads as usual, and
   * SQLite refuses every write to it.
   */
  cacheOf(profileId: string): CacheDb;
  /**
   * Why the organisation's offline copy cannot be written, as the error every command that would
   * write to it is refused with (code `READ_ONLY`), or null when it can be written (or is not
   * open yet: `cacheOf` first).
   */
  readOnlyError(profileId: string): AppError | null;
  /** The cache as `cacheOf` gives it, refused at once with `readOnlyError` when it is read-only. */
  writableCacheOf(profileId: string): CacheDb;
  /**
   * Closes the organisation's copy and opens it afresh ("Check again"): a read-only copy whose
   * cause was fixed is writable again. Nothing runs on a read-only copy, so nothing is stopped.
   */
  recheckCache(profileId: string): Promise<void>;
  /**
   * Count and per-currency sums of a transaction search, counted in the organisation's totals
   * thread (src-main/search/background-totals.ts) so that pages and every other command are
   * answered meanwhile.
   */
  transactionTotals(profileId: string, filters: TransactionFilters): Promise<SearchTotals>;
  /** How many expenses a search finds, counted in the same thread. */
  expenseCount(profileId: string, filters: ExpenseFilters): Promise<number>;
  /** The rows a bulk review change of a whole search result works through, listed in the same thread. */
  reviewRows(profileId: string, target: Exclude<ReviewTarget, { by: 'ids' }>): Promise<Float64Array>;
  /** The review file check thread's built script, when the app has one (review/sliced-check.ts). */
  readonly reviewCheckThread: string | undefined;
  /**
   * Connects an organisation: stores it, then checks the credentials with one request. Refused
   * credentials, or an address that answers but not as the spend API, undo everything and name
   * the field; no answer (no network, a timeout, a server error) keeps the connection, to be
   * checked by the first sync, and `checked` false says so.
   */
  addProfile(input: {
    name: string;
    baseUrl: string;
    auth: ProfileAuth;
    demo?: boolean;
  }): Promise<Profile & { checked: boolean }>;
  /**
   * Gives a connection a new key or token, checked with one request first: one the API refuses
   * changes nothing (the key before stays) and names the field; no answer keeps the new one, to
   * be checked by the next sync (`checked` false). The next request signs in with it.
   */
  reauthenticateProfile(profileId: string, auth: ProfileAuth): Promise<Profile & { checked: boolean }>;
  /**
   * Why the organisation's offline copy cannot be opened (damaged, from a newer version), with
   * what of the user's own work can still be read from it; null when it opens.
   */
  cacheProblem(profileId: string): CacheProblem | null;
  /**
   * Sets a damaged offline copy aside (renamed beside it, never deleted), makes a fresh one and
   * copies into it what can still be read of the unsent edits, review marks, tags and settings;
   * the next sync fills the rest. Refused when the copy opens.
   */
  rebuildCache(profileId: string): Promise<{ setAside: string; kept: RescuedWork }>;
  /**
   * Notes an error a command or a sync met in the organisation's cache. SQLite's word that the
   * file is damaged (a malformed page, in a copy that opened) makes the copy a problem from now
   * on, as if it had not opened: the returned error says so, and `cache.damaged` tells the window.
   * Any other error gives null.
   */
  noteCacheError(profileId: string, error: unknown): CacheOpenError | null;
  /**
   * Notes a write that SQLite (or the file system) refused in an organisation's copy that opened
   * writable. When the copy cannot be written now (its file made immutable, its disk remounted
   * read-only, its permissions changed while Satchel ran), it is opened again read-only, as the
   * next start would open it: the returned error is `readOnlyError`'s, `cache.readOnly` tells the
   * window (the banner, Check again), and what the copy holds still reads. Null otherwise.
   */
  noteWriteRefused(profileId: string, error: unknown): AppError | null;
  /**
   * The unsent edits and review marks that only the connection's offline copy holds; of a copy
   * that cannot be opened (`damaged`), those it still gives up.
   */
  localWork(profileId: string): { edits: number; marks: number; damaged?: boolean };
  /**
   * Removes a connection: stops its sync, closes and deletes its cache (one that cannot be
   * opened is set aside instead, as `rebuildCache` does), drops its secret.
   */
  removeProfile(profileId: string): Promise<void>;
  /**
   * What "Recover organisations" would do with a list of organisations that cannot be read: the
   * offline copies that record their connection, whether the keychain holds each one's key, and
   * the files that cannot be tied to one. Refused when the list reads.
   */
  recoveryPlan(): Promise<RecoveryPlan>;
  /**
   * Sets the damaged list aside (renamed beside itself, never deleted) and writes a new one with
   * every organisation its offline copy can be tied to, under its old id: its copy, unsent
   * edits, review marks and keychain entry are found where they were. Nothing else is moved.
   */
  recoverProfiles(): Promise<RecoveryResult>;
  info(): AppInfo;
  notify(level: Notice['level'], message: string): void;
  /**
   * Stops running syncs and edit pushes at a page boundary (each page is one transaction, so
   * what is written is whole), stops the demo sandbox and closes every cache.
   */
  close(): Promise<void>;
}

export interface CacheProblem {
  reason: CacheOpenFailure;
  message: string;
  /** The unsent edits and review marks still readable in the file; null when none can be read. */
  readable: ReadableWork | null;
}

/** Whether the API refused a connection's credentials (not: did not answer). */
function refusedCredentials(error: unknown): error is AppError {
  return error instanceof AppError && (error.code === 'AUTH_FAILED' || error.code === 'FORBIDDEN');
}

/**
 * Whether the check of a new connection got an answer that is not the spend API's: not JSON or
 * not its shape, no such path, a request refused as malformed, or no sign-in at that address.
 */
function answeredButNotTheApi(error: AppError): boolean {
  return (
    error.code === 'BAD_RESPONSE' ||
    error.code === 'NOT_FOUND' ||
    error.code === 'REMOTE_REJECTED' ||
    error.field === 'baseUrl'
  );
}

export function createCore(options: CoreOptions): Core {
  const dataDir = path.resolve(options.dataDir);
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    // A file in its place, no permission: said, so the shell can show it instead of no window.
    throw new AppError(
      'INTERNAL',
      `Satchel cannot use its data folder (${dataDir}): ${systemReason(error as NodeJS.ErrnoException)}. Fix that and start Satchel again.`,
    );
  }
  const clock = options.clock ?? (() => new Date());
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir();
  const schemaVersion = shippedSchemaVersion(migrationsDir);
  const events = createEventBus();
  const secrets = options.secrets ?? createKeychainSecrets();
  const connectivity = createConnectivity({ now: clock });
  connectivity.subscribe((state) => events.emit('app.online', state));
  // Every API request reports whether it got an answer: that is the "failed requests" signal.
  const apiFetch = observeFetch(options.fetch ?? ((input, init) => fetch(input, init)), connectivity);
  /** One request with these credentials, no retries: does the API at `baseUrl` take them? */
  const check = (baseUrl: string, credentials: () => Promise<ProfileAuth>) =>
    createApiClient({ baseUrl, credentials, maxRetries: 0, timeoutMs: 15_000, fetch: apiFetch }).verify();
  // File bodies go through the lean keep-alive client (src-main/api/http-fetch.ts).
  const rawFetch = observeRawFetch(
    options.fetch ? fromFetch(options.fetch) : createHttpFetch(),
    connectivity,
  );
  const closing = new AbortController();

  const profiles = createProfileStore({ dataDir, secrets, now: clock });
  const grants = createGrants({ dataDir });
  const caches = new Map<string, CacheDb>();
  // Copies that opened but that SQLite found damaged since: refused like one that does not open.
  const damaged = new Map<string, CacheOpenError>();
  // What each open copy records of its connection, so that it is written only when it changes.
  const recordedConnections = new WeakMap<CacheDb, string>();

  function cacheOf(profileId: string): CacheDb {
    const profile = profiles.get(profileId);
    const damage = damaged.get(profile.id);
    if (damage) throw damage;
    let cache = caches.get(profile.id);
    if (!cache) {
      const file = profiles.cacheFile(profile.id);
      // Made only where it can be: in a folder that cannot be written, the copy opens read-only.
      if (!writeProblem([path.dirname(file)])) mkdirSync(path.dirname(file), { recursive: true });
      try {
        // The offline files' folder is written by the copy's work too (previews, the fill).
        cache = openCache(file, { migrationsDir, alsoWritten: [filesFolderOf(profile.id)] });
      } catch (error) {
        // The file is named by its id: the message names the organisation the user knows.
        if (!(error instanceof CacheOpenError)) throw error;
        throw new CacheOpenError(
          error.reason,
          `The offline copy of "${profile.name}" cannot be opened. ${error.message}`,
          { cause: error },
        );
      }
      caches.set(profile.id, cache);
      if (cache.readOnly)
        log.warn(`opened the offline copy of ${profile.id} read-only: ${cache.readOnly.why}`);
    }
    // The copy records its connection (nothing secret): a list of organisations lost or damaged
    // can be rebuilt from the copies (`recoverProfiles`). Renamed or moved: written again.
    const connection = JSON.stringify(profile);
    if (!cache.readOnly && recordedConnections.get(cache) !== connection) {
      try {
        recordConnection(cache.sqlite, profile, clock());
        recordedConnections.set(cache, connection);
      } catch (error) {
        // Busy or read-only now: the copy still reads, and the next use tries again.
        log.warn(`could not record the connection of ${profile.id} in its offline copy:`, error);
      }
    }
    return cache;
  }

  /** The organisation's folder of offline files (files/service.ts `filesRoot`). */
  function filesFolderOf(profileId: string): string {
    return path.join(dataDir, 'files', profileId);
  }

  function readOnlyError(profileId: string): AppError | null {
    // Asked before every write (each review mark among them): the open copy answers first, and
    // the list of organisations (a file read) is read only for the name of a read-only one.
    const problem = caches.get(profileId)?.readOnly;
    if (!problem) return null;
    const profile = profiles.list().find((candidate) => candidate.id === profileId);
    if (!profile) return null;
    return new AppError(
      'READ_ONLY',
      `The offline copy of "${profile.name}" is read-only: ${problem.why}. You can search and read; sync, edits, review marks and downloads into the copy are off until ${problem.where} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`,
    );
  }

  function writableCacheOf(profileId: string): CacheDb {
    const cache = cacheOf(profileId);
    const refused = readOnlyError(profileId);
    if (refused) throw refused;
    return cache;
  }

  /**
   * Throws `readOnlyError` when the copy is read-only. A copy that does not open is left to the
   * work itself, which says so as it always has (and a push on its way is joined, not refused).
   */
  function refuseReadOnly(profileId: string): void {
    try {
      cacheOf(profileId);
    } catch {
      return;
    }
    const refused = readOnlyError(profileId);
    if (refused) throw refused;
  }

  /** `run`, refused at once (before any request or work) when the copy is read-only. */
  function writing<A extends [string, ...unknown[]], R>(run: (...args: A) => R): (...args: A) => R {
    return (...args) => {
      refuseReadOnly(args[0]);
      return run(...args);
    };
  }

  /** The same for work that answers with a promise: the refusal is a rejection, never a throw. */
  function writingAsync<A extends [string, ...unknown[]], R>(
    run: (...args: A) => Promise<R>,
  ): (...args: A) => Promise<R> {
    return async (...args) => {
      refuseReadOnly(args[0]);
      return run(...args);
    };
  }

  const totalsThreads = new Map<string, BackgroundTotals>();

  function totalsThreadOf(profileId: string): BackgroundTotals {
    const { id } = profiles.get(profileId);
    const cache = cacheOf(id);
    let thread = totalsThreads.get(id);
    if (!thread) {
      thread = createBackgroundTotals({
        // A read-only copy may be read from a snapshot (store/database.ts openReadOnly).
        file: cache.readFile,
        fallback: (inAppThread) => answerAsk(cache.sqlite, inAppThread),
        ...(options.totalsThread ? { script: options.totalsThread } : {}),
      });
      totalsThreads.set(id, thread);
    }
    return thread;
  }

  async function closeTotals(profileId: string): Promise<void> {
    const thread = totalsThreads.get(profileId);
    totalsThreads.delete(profileId);
    await thread?.close();
  }

  // The system says there is no network at all: what needs the organisation's API says so at
  // once. The demo organisation's API runs inside the app and needs no network.
  const networkDown = (profileId: string) =>
    connectivity.state().reason === 'network' && !demo.isDemo(profileId);

  // The outbox needs the sync service's clients and the sync pushes the outbox first; the
  // closure below runs only after both exist.
  // One lease keeper for the sync and the outbox: a sync holds it while it pushes first.
  const leases = createLeases(options.lease);
  const syncService = createSyncService({
    leases,
    profiles,
    events,
    cacheOf,
    now: clock,
    networkDown,
    // A write refused because the copy cannot be written any more turns it read-only, and the
    // run ends in the words every refused write gets (the banner appears at once).
    onCacheError: refusedCacheWrite,
    beforePull: async (profileId, signal) => {
      await outbox.push(profileId, signal);
    },
    fetch: apiFetch,
    rawFetch,
    ...(options.apiTimeoutMs ? { timeoutMs: options.apiTimeoutMs } : {}),
  });

  // A sync of a read-only copy is refused before its first request: its pages could not be kept.
  const sync: SyncService = { ...syncService, sync: writingAsync(syncService.sync) };

  const demo = createDemo({
    profiles,
    onMoved: (profileId) => sync.forget(profileId),
    ...(options.demoSandbox ? { sandbox: options.demoSandbox } : {}),
  });

  const fileService = createFileService({
    dataDir,
    cacheOf,
    clientOf: sync.clientOf,
    syncing: (profileId) => sync.isRunning(profileId),
    events,
    now: clock,
    ...(options.fileUrl ? { fileUrl: options.fileUrl } : {}),
    ...(options.previewFirstByteMs ? { previewFirstByteMs: options.previewFirstByteMs } : {}),
    // As a sync's: a download, a keep-offline fill or a preview whose write the copy refused
    // because it is read-only now says so (and stops).
    onCacheError: refusedCacheWrite,
    // A preview that would fetch into a read-only copy is refused before its request, and so is
    // one into a copy whose WAL refuses writes now although the copy was opened writable.
    readOnly: previewWriteRefused,
    ...(options.openFolder ? { openFolder: options.openFolder } : {}),
    networkDown,
    fillLeases: createFillLeases(options.fillLease),
  });
  // What would write to a read-only copy is refused at once. A preview of a file already on this
  // computer is a read and works; one that would fetch it is refused before its request, and
  // says why, also when the copy's WAL turned immutable since (`previewWriteRefused`); one that
  // meets the copy turning read-only otherwise turns it, as a download does (files/service.ts
  // `fetch`).
  const files: FileService = {
    ...fileService,
    start: writingAsync(fileService.start),
    pause: writing(fileService.pause),
    resume: writing(fileService.resume),
    cancel: writingAsync(fileService.cancel),
    retry: writing(fileService.retry),
    check: writingAsync(fileService.check),
    setOfflineScope: writing(fileService.setOfflineScope),
    fillOffline: writingAsync(fileService.fillOffline),
    resumeInterrupted: writing(fileService.resumeInterrupted),
    async fetch(profileId, fileId, signal) {
      try {
        return await fileService.fetch(profileId, fileId, signal);
      } catch (error) {
        throw readOnlyError(profileId) ?? error;
      }
    },
  };
  // After each sync, the offline file cache catches up with its scope (a no-op when it is none),
  // or, on the command line, only has its folder swept (`afterSync`).
  const afterSync = options.afterSync === 'sweep' ? files.sweepOffline : files.fillOffline;
  events.subscribe((event, payload) => {
    if (event !== 'sync.finished') return;
    const { profileId, outcome } = payload as { profileId: string; outcome: string };
    if (outcome === 'succeeded' || outcome === 'partial')
      void afterSync(profileId).catch((error: unknown) => log.warn('offline file cache:', error));
  });

  const edits = createOutbox({
    leases,
    cacheOf,
    clientOf: sync.clientOf,
    now: clock,
    organisationName: (profileId) => profiles.get(profileId).name,
    // Every push, whoever started it (Send now, a sync, a reconnect), shows how it comes on.
    onPushProgress: (profileId, progress) => events.emit('edits.progress', { profileId, ...progress }),
    networkDown,
  });
  // A push started from the UI has no signal of its own; closing the app still stops it.
  // Every change to the edits is refused at once on a read-only copy: an edit typed into it could
  // not be kept, and a push could not record what the server answered.
  const outbox: Outbox = {
    ...edits,
    createSupplier: writing(edits.createSupplier),
    updateSupplier: writing(edits.updateSupplier),
    createDimension: writing(edits.createDimension),
    updateDimension: writing(edits.updateDimension),
    createDimensionItem: writing(edits.createDimensionItem),
    updateDimensionItem: writing(edits.updateDimensionItem),
    edit: writing(edits.edit),
    retry: writing(edits.retry),
    discard: writing(edits.discard),
    resolve: writing(edits.resolve),
    push: writingAsync((profileId: string, signal?: AbortSignal) =>
      edits.push(profileId, signal ? AbortSignal.any([signal, closing.signal]) : closing.signal),
    ),
  };

  async function removeProfile(profileId: string): Promise<void> {
    const profile = profiles.get(profileId);
    // A copy that cannot be opened may still hold the user's work: set aside, not deleted.
    const damagedCopy = cacheProblem(profile.id) !== null && existsSync(profiles.cacheFile(profile.id));
    await sync.stop(profile.id);
    // The keychain entry goes first (in `profiles.remove`): a locked or absent keychain used to
    // fail after the offline files were deleted, leaving the connection listed without them.
    await profiles.remove(profile.id, async () => {
      await files.removeCache(profile.id);
      await closeTotals(profile.id);
      caches.get(profile.id)?.close();
      caches.delete(profile.id);
      sync.forget(profile.id);
      damaged.delete(profile.id);
      if (damagedCopy) setAsideCache(profiles.cacheFile(profile.id), clock());
    });
  }

  function noteCacheError(profileId: string, error: unknown): CacheOpenError | null {
    if (!isCorruption(error)) return null;
    const profile = profiles.list().find((candidate) => candidate.id === profileId);
    if (!profile) return null;
    let damage = damaged.get(profile.id);
    if (!damage) {
      log.warn(`SQLite found the offline copy of ${profile.id} damaged:`, error);
      damage = new CacheOpenError(
        'NOT_A_DATABASE',
        `The offline copy of "${profile.name}" is damaged (${error instanceof Error ? error.message : String(error)}). Set it aside and rebuild it, which keeps the unsent edits and review marks it can still read; or restore ${profiles.cacheFile(profile.id)} from a backup.`,
        { cause: error },
      );
      damaged.set(profile.id, damage);
      events.emit('cache.damaged', { profileId: profile.id });
    }
    return damage;
  }

  /**
   * A sync's or a download's cache error: damage is only noted (the run keeps SQLite's words and
   * the damaged banner shows); a write refused because the copy cannot be written any more turns
   * it read-only and gives the error the run ends with. Null when it is neither.
   */
  function refusedCacheWrite(profileId: string, error: unknown): AppError | null {
    return noteCacheError(profileId, error) ? null : noteWriteRefused(profileId, error);
  }

  /** Writable connections of copies found read-only while open (noteWriteRefused). */
  const retired = new Map<string, CacheDb[]>();

  function noteWriteRefused(profileId: string, error: unknown): AppError | null {
    if (!refusedWrite(error)) return null;
    return turnReadOnly(
      profileId,
      `a write to the offline copy of ${profileId} was refused; opening it again read-only:`,
      error,
    );
  }

  /**
   * The refusal a preview's record of the copy it would fetch gets now. Beside a copy known to
   * be read-only, one opened writable whose WAL (where SQLite writes every change first) or
   * receipts folder (where the `.part` file would be made) turned immutable meanwhile: that
   * record or that file would be refused, and the request spent for nothing. Asked only before
   * a write (the preview of a file not on this computer, or a rename), never for a copy on
   * disk; two `access` calls, no write. A main file made immutable under a writable WAL is not
   * refused here: the record still goes into the WAL, and the copy opens read-only at its next
   * start or turns read-only at its first refused write. A change that
   * leaves the open file writable (a read-only mount put over its folder, permissions) is not
   * taken for one; what cannot be seen without writing (a share whose server refuses) is still
   * met at the record (`noteWriteRefused`). docs/store.md, "A copy that cannot be written".
   */
  function previewWriteRefused(profileId: string): AppError | null {
    const known = readOnlyError(profileId);
    if (known) return known;
    const cache = caches.get(profileId);
    if (!cache) return null;
    const refusing = [`${cache.file}-wal`, filesFolderOf(profileId)].find(refusesOpenWrites);
    if (!refusing) return null;
    return turnReadOnly(
      profileId,
      `${refusing} of the offline copy of ${profileId} refuses writes (immutable); opening it again read-only before a preview fetches into it`,
    );
  }

  /**
   * When one of the copy's files or folders cannot be written now (`writeProblem`), opens the
   * copy again read-only and tells the window; the error is `readOnlyError`'s. Null when they
   * all can. `said` is the log's line, followed by `cause` when there is one.
   */
  function turnReadOnly(profileId: string, said: string, cause?: unknown): AppError | null {
    const cache = caches.get(profileId);
    if (!cache) return null;
    if (cache.readOnly) return readOnlyError(profileId);
    const file = cache.file;
    const problem = writeProblem([
      path.dirname(file),
      file,
      ...['-wal', '-shm'].map((suffix) => `${file}${suffix}`).filter((name) => existsSync(name)),
      filesFolderOf(profileId),
    ]);
    if (!problem) return null;
    if (cause === undefined) log.warn(said);
    else log.warn(said, cause);
    // Opened afresh, as the next start would open it. The writable connection is retired, not
    // closed: work still holding it (a fill after a sync) ends with SQLite's own refusal (said in
    // the read-only words) rather than a closed connection; it is closed with the core, or at Check again. The totals thread
    // goes (a new one opens the read-only copy, or its snapshot).
    void closeTotals(profileId);
    retired.set(profileId, [...(retired.get(profileId) ?? []), cache]);
    caches.delete(profileId);
    sync.forget(profileId);
    try {
      cacheOf(profileId);
    } catch (reopen) {
      log.warn(`the offline copy of ${profileId} did not open again:`, reopen);
    }
    events.emit('cache.readOnly', { profileId });
    return readOnlyError(profileId);
  }

  function cacheProblem(profileId: string): CacheProblem | null {
    const { id } = profiles.get(profileId);
    try {
      cacheOf(id);
      return null;
    } catch (error) {
      if (!(error instanceof CacheOpenError)) throw error;
      const readable = error.reason === 'NO_MIGRATIONS' ? null : readableWork(profiles.cacheFile(id));
      return { reason: error.reason, message: error.message, readable };
    }
  }

  async function rebuildCache(profileId: string): Promise<{ setAside: string; kept: RescuedWork }> {
    const profile = profiles.get(profileId);
    const problem = cacheProblem(profile.id);
    // Nothing to set aside: a copy that opens is the user's, whole. Without migrations no copy opens.
    if (!problem || problem.reason === 'NO_MIGRATIONS') {
      throw new AppError(
        'VALIDATION_ERROR',
        problem?.message ?? `The offline copy of "${profile.name}" opens; there is nothing to rebuild.`,
      );
    }
    // Everything that writes to this copy stops first and is waited for, as when closing: a
    // sync, an edit push started outside one (Send now: at the edit it is on, which settles as
    // sent or "maybe sent"), the offline-file fill and the downloads. Nothing new starts meanwhile:
    // the copy is refused (`cacheOf`) until it is rebuilt. Else a late write failed on the
    // closed copy halfway through an edit's answer, or a fill's landed in the fresh one.
    await sync.stop(profile.id);
    if (outbox.isPushing(profile.id)) {
      edits.cancelPush(profile.id);
      await outbox.push(profile.id).catch(() => undefined);
    }
    await files.stop(profile.id, new AppError('CANCELLED', 'The offline copy is being rebuilt.'));
    await closeTotals(profile.id);
    sync.forget(profile.id);
    // A copy found damaged after it opened is still open: closed before it is moved.
    caches.get(profile.id)?.close();
    caches.delete(profile.id);
    const file = profiles.cacheFile(profile.id);
    let setAside: string;
    try {
      setAside = setAsideCache(file, clock());
    } catch (error) {
      throw new AppError(
        'INTERNAL',
        `Could not set the offline copy of "${profile.name}" aside: ${systemReason(error as NodeJS.ErrnoException)}. Nothing was changed.`,
      );
    }
    damaged.delete(profile.id);
    const kept = rescueWork(setAside, cacheOf(profile.id));
    log.warn(`set the damaged offline copy of ${profile.id} aside as ${setAside}; kept`, kept);
    return { setAside, kept };
  }

  async function recheckCache(profileId: string): Promise<void> {
    const { id } = profiles.get(profileId);
    const cache = caches.get(id);
    // A writable copy stays as it is: it may be syncing, and there is nothing to check.
    if (cache && !cache.readOnly) return;
    await closeTotals(id);
    cache?.close();
    for (const writable of retired.get(id) ?? []) writable.close();
    retired.delete(id);
    caches.delete(id);
    sync.forget(id);
  }

  async function recoveryPlan(): Promise<RecoveryPlan> {
    try {
      profiles.list();
    } catch {
      return planRecovery({ dataDir, listFile: profiles.file, secrets });
    }
    throw new AppError(
      'VALIDATION_ERROR',
      `The list of organisations (${profiles.file}) can be read; there is nothing to recover.`,
    );
  }

  async function recoverProfiles(): Promise<RecoveryResult> {
    const plan = await recoveryPlan();
    const setAside = profiles.replaceDamaged(plan.organisations.map(listedProfile));
    log.warn(
      `set the damaged list of organisations aside as ${setAside}; listed ${plan.organisations.length} again from their offline copies, left ${plan.untied.length} files untied`,
    );
    return { ...plan, setAside };
  }

  return {
    events,
    secrets,
    profiles,
    sync,
    outbox,
    files,
    demo,
    connectivity,
    grants,
    pickFolder: createFolderChooser(options.pickFolder, {
      lastFolder: grants.lastFolder,
      onPicked: grants.grantFolder,
    }),
    pickFile: createFileChooser(options.pickFile, grants.grantFile),
    cacheOf,
    readOnlyError,
    writableCacheOf,
    recheckCache,
    // Async, so that a cache that does not open is a rejected promise, never a throw: "Needs
    // attention" asks four counts at once, and a throw in the second left the first's
    // rejection unhandled.
    transactionTotals: async (profileId, filters) => totalsThreadOf(profileId).totals(filters),
    expenseCount: async (profileId, filters) => totalsThreadOf(profileId).expenseCount(filters),
    reviewRows: async (profileId, target) => totalsThreadOf(profileId).reviewRows(target),
    reviewCheckThread: options.reviewCheckThread,
    removeProfile,
    recoveryPlan,
    recoverProfiles,
    cacheProblem,
    rebuildCache,
    noteCacheError,
    noteWriteRefused,
    localWork(profileId) {
      const { id } = profiles.get(profileId);
      // What a damaged copy still gives up; it is set aside, not deleted, when removed.
      const problem = cacheProblem(id);
      if (problem) return { ...(problem.readable ?? { edits: 0, marks: 0 }), damaged: true };
      const marks = cacheOf(id).sqlite.prepare('SELECT count(*) FROM review_marks').pluck().get() as number;
      return { edits: outbox.list(id).length, marks };
    },
    async reauthenticateProfile(profileId, auth) {
      const profile = profiles.get(profileId);
      let checked = true;
      try {
        await check(profile.baseUrl, () => Promise.resolve(auth));
      } catch (error) {
        if (refusedCredentials(error)) {
          const message =
            error.code === 'AUTH_FAILED'
              ? 'The API refused this key; the one before is kept. Check it and try again.'
              : `${error.message.replace(/[.\s]+$/, '')}. The key before is kept.`;
          throw new AppError(error.code, message, 'auth');
        }
        // No answer now: the new key is kept all the same (the old one is what failed).
        checked = false;
      }
      const updated = await profiles.reauthenticate(profile.id, auth);
      sync.forget(updated.id);
      return { ...updated, checked };
    },
    async addProfile(input) {
      const profile = await profiles.add(input);
      let checked = true;
      try {
        await check(profile.baseUrl, () => profiles.credentials(profile.id));
      } catch (error) {
        if (refusedCredentials(error)) {
          await removeProfile(profile.id);
          // Nothing was added, so there is no key to enter "again": the form is where to fix it.
          const message =
            error.code === 'AUTH_FAILED'
              ? 'The API refused these credentials; check them and try again. Nothing was added.'
              : error.message;
          throw new AppError(error.code, message, 'auth');
        }
        if (error instanceof AppError && answeredButNotTheApi(error)) {
          // Something answers at the address, but not as the spend API (a web page, a wrong
          // path): kept, it would only fail at every sync.
          await removeProfile(profile.id);
          throw new AppError(
            'VALIDATION_ERROR',
            `${profile.baseUrl} answers, but not as the spend API (${error.message.replace(/[.\s]+$/, '')}). Check the address; nothing was added.`,
            'baseUrl',
          );
        }
        // Unreachable now (offline, timeout, 5xx): keep it; the first sync will tell.
        checked = false;
      }
      return { ...profile, checked };
    },
    info: () => ({
      name: packageJson.productName,
      version: packageJson.version,
      apiVersion: API_VERSION,
      dataDir,
      schemaVersion,
      platform: options.platform ?? process.platform,
    }),
    notify(level, message) {
      events.emit('app.notice', { level, message, at: clock().toISOString() });
    },
    async close() {
      closing.abort(new AppError('CANCELLED', 'Satchel is closing.'));
      await sync.stopAll();
      await files.stopAll();
      // Pushes started outside a sync: joining one waits for it to stop at an edit boundary.
      for (const profileId of caches.keys())
        if (outbox.isPushing(profileId)) await outbox.push(profileId).catch(() => undefined);
      await demo.stop();
      for (const profileId of [...totalsThreads.keys()]) await closeTotals(profileId);
      for (const cache of [...caches.values(), ...[...retired.values()].flat()]) cache.close();
      retired.clear();
      caches.clear();
    },
  };
}
