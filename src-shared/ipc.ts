import { z } from 'zod';
import { AppErrorShape } from './errors';
import { BankAccountSummary, ExpenseDetail, TransactionDetail } from './details';
import {
  CsvExportResult,
  ExpenseCsvExport,
  FilePurpose,
  ReviewFileInput,
  SuggestedFileName,
  TransactionCsvExport,
} from './export';
import { EditInputs, EditResult, OutboxCommandInputs, OutboxItemShape, PushSummaryShape } from './edits';
import {
  CachedFile,
  DownloadJobShape,
  DownloadProgress,
  DownloadRequest,
  OfflineScope,
  OfflineUsage,
} from './files';
import { ProfileAuth, ProfileName, ProfileSummary, BaseUrl, RecoveryPlan, RecoveryResult } from './profiles';
import {
  DimensionItemSearch,
  DimensionItemSearchResult,
  DimensionList,
  DimensionRow,
  ExpenseAccountRow,
  ExpenseFilters,
  ExpenseSearch,
  ExpenseSearchResult,
  ReviewChange,
  ReviewTarget,
  SupplierSearch,
  SupplierSearchResult,
  TransactionFilters,
  TransactionSearch,
  TransactionSearchResult,
  TransactionSorting,
} from './search';

/**
 * The contract between the main process and the renderer. Every command names its input and
 * output schema; every event its payload schema. The preload exposes exactly this, the
 * handler table in src-main answers exactly this, and the renderer is typed from it.
 */

export const API_VERSION = '1.44.0';

/** Channel names used by the Electron shell; the renderer never sees them. */
export const IPC_INVOKE_CHANNEL = 'satchel:invoke';
export const IPC_EVENT_CHANNEL = 'satchel:event';

const NoInput = z.object({}).strict();

export const AppInfo = z.object({
  name: z.string(),
  version: z.string(),
  apiVersion: z.literal(API_VERSION),
  dataDir: z.string(),
  schemaVersion: z.number().int().nonnegative(),
  platform: z.string(),
});
export type AppInfo = z.infer<typeof AppInfo>;

/**
 * An organisation whose key is in a locked keyring (on Linux; never said on macOS or Windows):
 * the keyring's label when the Secret Service gave it, and what to do, in words. Status only:
 * no secret is read.
 */
export const LockedKey = z.object({
  profileId: z.uuid(),
  keyring: z.string().nullable(),
  message: z.string(),
});
export type LockedKey = z.infer<typeof LockedKey>;

/**
 * Whether a keychain answers (the default keyring, where a new key goes) and, apart, which
 * connected organisations' keys are in a locked keyring, whichever it is.
 */
export const KeychainStatus = z.union([
  z.object({ available: z.literal(true), lockedKeys: z.array(LockedKey) }),
  z.object({
    available: z.literal(false),
    code: z.string(),
    message: z.string(),
    lockedKeys: z.array(LockedKey),
  }),
]);

const ProfileId = z.object({ id: z.uuid() }).strict();

/** Whether an organisation's offline copy opens, and whether it can be written. */
const CacheStatus = z.object({
  problem: z
    .object({
      reason: z.enum([
        'NOT_A_DATABASE',
        'NEWER_SCHEMA',
        'CANNOT_OPEN',
        'MIGRATION_FAILED',
        'NO_MIGRATIONS',
        'READ_ONLY',
      ]),
      message: z.string(),
      readable: z
        .object({ edits: z.number().int().nonnegative(), marks: z.number().int().nonnegative() })
        .nullable(),
    })
    .nullable(),
  /** The copy opened read-only: why, in words (the whole message the window shows), and where. */
  readOnly: z.object({ message: z.string(), where: z.string() }).nullable(),
});

/** A connection just given credentials, and whether the API could check them then. */
const CheckedProfile = ProfileSummary.extend({ checked: z.boolean() });

export const RecordErrorShape = z.object({
  resource: z.string(),
  recordId: z.string().optional(),
  field: z.string().optional(),
  code: z.string(),
  message: z.string(),
});

export const SyncSummaryShape = z.object({
  runId: z.number().int(),
  outcome: z.enum(['succeeded', 'partial', 'failed', 'cancelled']),
  counts: z.record(z.string(), z.number().int()),
  errors: z.array(RecordErrorShape),
  startedAt: z.string(),
  finishedAt: z.string(),
});
export type SyncSummaryShape = z.infer<typeof SyncSummaryShape>;

export const SyncRunShape = z.object({
  id: z.number().int(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  outcome: z.enum(['running', 'succeeded', 'partial', 'failed', 'cancelled', 'interrupted']),
  counts: z.record(z.string(), z.number().int()),
  errors: z.array(RecordErrorShape),
});

/** Whether Satchel is online, and if not why: no network, or the API does not answer (docs/shell.md). */
export const OnlineState = z.object({
  online: z.boolean(),
  reason: z.enum(['network', 'unreachable']).nullable(),
  since: z.iso.datetime(),
});
export type OnlineState = z.infer<typeof OnlineState>;

/** What a native menu item asks the page to do (the shell runs the rest itself; docs/shell.md). */
export const MenuAction = z.enum([
  'go.transactions',
  'go.expenses',
  'go.suppliers',
  'go.dimensions',
  'go.files',
  'go.sync',
  'go.settings',
  'go.attention',
  'search.focus',
  'help.shortcuts',
]);
export type MenuAction = z.infer<typeof MenuAction>;

const DownloadJobRef = z.object({ profileId: z.uuid(), jobId: z.uuid() }).strict();

export const commands = {
  /** Who the app is and where it keeps its data. */
  'app.info': { input: NoInput, output: AppInfo },
  /** The online state now; `app.online` events tell its changes. */
  'app.online': { input: NoInput, output: OnlineState },
  /**
   * The system's folder picker (bulk downloads); null when the user cancels. The folder picked
   * is the one `downloads.start` may then write to (docs/shell.md, "Paths the page may name").
   */
  'dialog.pickFolder': {
    input: z.object({ title: z.string().min(1).max(120).optional() }).strict(),
    output: z.object({ folder: z.string().nullable() }),
  },
  /**
   * The system's save or open dialog for an export or import; the core checks the file picked,
   * and only a file picked here for that purpose is taken by the export or import command.
   */
  'dialog.pickFile': {
    input: z.object({ purpose: FilePurpose, suggestedName: SuggestedFileName.optional() }).strict(),
    output: z.object({ file: z.string().nullable() }),
  },
  /**
   * Whether the system keychain answers, and which organisations' keys are in a locked keyring;
   * Settings shows both.
   */
  'keychain.status': { input: NoInput, output: KeychainStatus },
  'profiles.list': { input: NoInput, output: z.object({ profiles: z.array(ProfileSummary) }) },
  /**
   * Connects an organisation; the secret goes to the keychain and is never returned. `checked`
   * is false when the API gave no answer to check the credentials with (offline, a time-out):
   * the connection is kept, and its first sync checks them.
   */
  'profiles.add': {
    input: z.object({ name: ProfileName, baseUrl: BaseUrl, auth: ProfileAuth }).strict(),
    output: CheckedProfile,
  },
  'profiles.rename': {
    input: z.object({ id: z.uuid(), name: ProfileName }).strict(),
    output: ProfileSummary,
  },
  /** A new key for a connection; `checked` as for `profiles.add` (the next sync checks it). */
  'profiles.reauthenticate': {
    input: z.object({ id: z.uuid(), auth: ProfileAuth }).strict(),
    output: CheckedProfile,
  },
  /**
   * What only the connection's offline copy holds, which its removal would lose: the edits not
   * sent yet and the review marks (reviewed, flags, notes, tags).
   */
  'profiles.localWork': {
    input: ProfileId,
    output: z.object({
      edits: z.number().int().nonnegative(),
      marks: z.number().int().nonnegative(),
      /** The copy cannot be opened: the counts are what it still gives up, and removing sets it aside. */
      damaged: z.boolean().optional(),
    }),
  },
  /**
   * Whether the connection's offline copy opens. When it does not (damaged, or written by a
   * newer version), why, in words, and what of the user's own work can still be read from it
   * (null: nothing). The window shows it in place of the areas (docs/screens.md). When it opens
   * but cannot be written (a read-only disk, changed permissions), `readOnly` says why and
   * where: the window shows a banner, and the controls that would write are off.
   */
  'profiles.cacheStatus': { input: ProfileId, output: CacheStatus },
  /**
   * "Check again" of a read-only offline copy (or one that did not open): closes it and opens it
   * afresh, writable again if its cause was fixed; answers as `profiles.cacheStatus`.
   */
  'profiles.recheckCache': { input: ProfileId, output: CacheStatus },
  /**
   * Sets a damaged offline copy aside (renamed beside it, never deleted), makes a fresh one with
   * the unsent edits, review marks and tags that could still be read, and says where the old one
   * went and what was kept. The next sync fills the rest (docs/store.md).
   */
  'profiles.rebuildCache': {
    input: ProfileId,
    output: z.object({
      setAside: z.string(),
      kept: z.object({
        edits: z.number().int().nonnegative(),
        marks: z.number().int().nonnegative(),
        tags: z.number().int().nonnegative(),
      }),
    }),
  },
  /**
   * What "Recover organisations" would do with a list of organisations that cannot be read: the
   * organisations whose offline copies record their connection, whether the keychain holds each
   * one's key, and the files that cannot be tied to one. Refused when the list reads.
   */
  'profiles.recoveryPlan': { input: NoInput, output: RecoveryPlan },
  /**
   * Sets the damaged list aside (renamed beside itself, never deleted) and writes a new one with
   * the organisations of the plan; says where the old one went (docs/screens.md).
   */
  'profiles.recover': { input: NoInput, output: RecoveryResult },
  /** Removes the connection, its cache and its keychain entry. */
  'profiles.remove': { input: ProfileId, output: z.object({ removed: z.literal(true) }) },
  /** Starts the demo organisation inside the app and returns its connection (docs/shell.md). */
  'demo.open': { input: NoInput, output: ProfileSummary },
  /** Brings the organisation's cache up to date; `full` is the repair: read everything again. */
  'sync.start': {
    input: z.object({ profileId: z.uuid(), full: z.boolean().default(false) }).strict(),
    output: SyncSummaryShape,
  },
  'sync.cancel': {
    input: z.object({ profileId: z.uuid() }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
  // Offline search and review over the organisation's cache (docs/search-and-review.md).
  'transactions.search': {
    input: z.object({ profileId: z.uuid(), search: TransactionSearch }).strict(),
    output: TransactionSearchResult,
  },
  /**
   * Where transaction `id` is in the result of `filters` in `sorting` order (from 0), or null
   * when the result does not hold it: the detail pane stays on its record after a new search
   * or order by this one question, however deep the record is.
   */
  'transactions.position': {
    input: z
      .object({
        profileId: z.uuid(),
        filters: TransactionFilters.default({}),
        sorting: TransactionSorting.default({ field: 'bookingDate', direction: 'DESC' }),
        id: z.string().min(1).max(100),
      })
      .strict(),
    output: z.object({ index: z.number().int().nonnegative().nullable() }),
  },
  /** One transaction with its fees, group, account and linked expenses (the detail pane). */
  'transactions.get': {
    input: z.object({ profileId: z.uuid(), id: z.string().min(1).max(100) }).strict(),
    output: TransactionDetail,
  },
  /** One expense with its lines and files. */
  'expenses.get': {
    input: z.object({ profileId: z.uuid(), id: z.string().min(1).max(100) }).strict(),
    output: ExpenseDetail,
  },
  /** The organisation's bank accounts (filter choices and account names). */
  'bankAccounts.list': {
    input: z.object({ profileId: z.uuid() }).strict(),
    output: z.object({ accounts: z.array(BankAccountSummary) }),
  },
  'expenses.search': {
    input: z.object({ profileId: z.uuid(), search: ExpenseSearch }).strict(),
    output: ExpenseSearchResult,
  },
  'suppliers.search': {
    input: z.object({ profileId: z.uuid(), search: SupplierSearch }).strict(),
    output: SupplierSearchResult,
  },
  /** The expense accounts lines are booked to (the Expenses filter's choices). */
  'expenseAccounts.list': {
    input: z.object({ profileId: z.uuid() }).strict(),
    output: z.object({ accounts: z.array(ExpenseAccountRow) }),
  },
  /** Every dimension of the offline copy (they are few), with its live items counted. */
  'dimensions.list': {
    input: z.object({ profileId: z.uuid(), search: DimensionList }).strict(),
    output: z.object({ dimensions: z.array(DimensionRow) }),
  },
  /** One dimension's items: a page, by name or code. */
  'dimensionItems.search': {
    input: z.object({ profileId: z.uuid(), search: DimensionItemSearch }).strict(),
    output: DimensionItemSearchResult,
  },
  /** Marks reviewed, flags, notes or tags one record, a selection, or a whole search result. */
  'review.apply': {
    input: z.object({ profileId: z.uuid(), target: ReviewTarget, change: ReviewChange }).strict(),
    output: z.object({ changed: z.number().int() }),
  },
  /** The "needs attention" view: each group's count and the search that lists it. */
  'review.attention': {
    input: z.object({ profileId: z.uuid() }).strict(),
    output: z.object({
      groups: z.array(
        z.union([
          z.object({
            group: z.enum(['unmatchedTransactions', 'flaggedTransactions']),
            count: z.number().int().nonnegative(),
            search: TransactionFilters,
          }),
          z.object({
            group: z.enum(['expensesWithoutFile', 'flaggedExpenses']),
            count: z.number().int().nonnegative(),
            search: ExpenseFilters,
          }),
        ]),
      ),
    }),
  },
  /** The whole result of a transaction search as CSV (docs/search-and-review.md, "CSV export"). */
  'transactions.exportCsv': { input: TransactionCsvExport, output: CsvExportResult },
  /** The same for an expense search; progress as `export.progress` too. */
  'expenses.exportCsv': { input: ExpenseCsvExport, output: CsvExportResult },
  /**
   * Stops a CSV export of the organisation by the `exportId` its caller sent, between two
   * batches of rows: its command then fails with `CANCELLED`, no file is written and an old file
   * of the name stays. False when no such export runs (it ended already).
   */
  'export.cancel': {
    input: z.object({ profileId: z.uuid(), exportId: z.uuid() }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
  /**
   * Review state as a file a colleague can import to continue the review. Stopped by
   * `review.cancel`, it fails with `CANCELLED`: no file written, a file of the name as it was.
   */
  'review.export': {
    input: ReviewFileInput,
    output: z.object({ file: z.string(), marks: z.number().int() }),
  },
  'review.import': {
    input: ReviewFileInput,
    output: z.object({
      marks: z.number().int(),
      /** Records that took a newer mark from the file. */
      updated: z.number().int(),
      /** Records where the file differs and this copy's own newer (or as new) change stayed. */
      keptLocal: z.number().int(),
      notCached: z.number().int(),
      organisationId: z.string().nullable(),
      /**
       * What `review.undoImport` takes to undo this import (the `workId` sent, if one was);
       * null when it changed nothing.
       */
      importId: z.uuid().nullable(),
      /**
       * Set when `review.cancel` stopped the import while it merged: `merged` of the file's
       * `total` marks were merged and stay (the counts above are theirs, `importId` undoes
       * them); `message` says so in the command line's words. Stopped during the check (nothing
       * changed), the import fails with `CANCELLED` instead.
       */
      interrupted: z
        .object({ merged: z.number().int(), total: z.number().int(), message: z.string() })
        .nullable(),
    }),
  },
  /**
   * Stops the organisation's review export or import started with this `workId`, between two
   * slices of marks (as Ctrl+C stops `satchel review export` and `import`). False when no such
   * work runs (it ended already).
   */
  'review.cancel': {
    input: z.object({ profileId: z.uuid(), workId: z.uuid() }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
  /**
   * Puts back the marks of the records the organisation's last import (`importId`) changed, as
   * they were before it, except those changed since. Only the last import that changed
   * something, while the app runs; `NOT_FOUND` otherwise.
   */
  'review.undoImport': {
    input: z.object({ profileId: z.uuid(), importId: z.uuid() }).strict(),
    output: z.object({ restored: z.number().int(), changedSince: z.number().int() }),
  },
  // Offline edits: applied to the cache at once, queued, sent by `edits.push` (and by every sync).
  'suppliers.create': { input: EditInputs['suppliers.create'], output: EditResult },
  'suppliers.update': { input: EditInputs['suppliers.update'], output: EditResult },
  'dimensions.create': { input: EditInputs['dimensions.create'], output: EditResult },
  'dimensions.update': { input: EditInputs['dimensions.update'], output: EditResult },
  'dimensionItems.create': { input: EditInputs['dimensionItems.create'], output: EditResult },
  'dimensionItems.update': { input: EditInputs['dimensionItems.update'], output: EditResult },
  /** Pending, failed and conflicting edits, in the order they will be sent. */
  'edits.list': { input: OutboxCommandInputs.list, output: z.object({ items: z.array(OutboxItemShape) }) },
  'edits.push': { input: OutboxCommandInputs.push, output: PushSummaryShape },
  /** Stops the organisation's running push at the edit it is on; false when none runs. */
  'edits.cancel': { input: OutboxCommandInputs.push, output: z.object({ cancelled: z.boolean() }) },
  'edits.retry': { input: OutboxCommandInputs.operation, output: OutboxItemShape },
  'edits.edit': { input: OutboxCommandInputs.edit, output: OutboxItemShape },
  'edits.discard': { input: OutboxCommandInputs.operation, output: z.object({ discarded: z.literal(true) }) },
  /** Settles a conflict: keep mine, take theirs, or a merged record. */
  'edits.resolve': {
    input: OutboxCommandInputs.resolve,
    output: z.object({ item: OutboxItemShape.nullable() }),
  },
  /** The API's rate-limit budget as last seen, per scope bucket (`read`, `write`); empty before any request. */
  'sync.rateLimits': {
    input: z.object({ profileId: z.uuid() }).strict(),
    output: z.object({
      buckets: z.array(
        z.object({
          scope: z.string(),
          limit: z.number().int().nonnegative(),
          remaining: z.number().int().nonnegative(),
          resetAt: z.iso.datetime(),
        }),
      ),
    }),
  },
  'sync.history': {
    input: z.object({ profileId: z.uuid(), limit: z.number().int().min(1).max(200).default(20) }).strict(),
    output: z.object({
      runs: z.array(SyncRunShape),
      /** When the newest run that succeeded ended, however far back (null: none did). */
      lastSucceededAt: z.string().nullable(),
    }),
  },
  // Expense files: bulk downloads to a folder and the offline file cache (docs/files.md).
  /**
   * Queues a download (or continues the unfinished one with the same request); progress as events.
   * With no network it is made but waits for the network (`waitingForNetwork`), then starts by itself.
   */
  'downloads.start': {
    input: DownloadRequest.extend({ profileId: z.uuid() }).strict(),
    output: z.object({ job: DownloadJobShape, resumed: z.boolean(), waitingForNetwork: z.boolean() }),
  },
  /** The download folder picked last (kept across restarts), while it is still there. */
  'downloads.defaultFolder': { input: NoInput, output: z.object({ folder: z.string().nullable() }) },
  'downloads.pause': { input: DownloadJobRef, output: DownloadJobShape },
  'downloads.resume': { input: DownloadJobRef, output: DownloadJobShape },
  /** Stops the download and removes its partial files; the finished files stay. */
  'downloads.cancel': { input: DownloadJobRef, output: DownloadJobShape },
  /** Failed files (all, or those named) go back to the queue. */
  'downloads.retry': {
    input: DownloadJobRef.extend({
      fileIds: z.array(z.string().min(1).max(100)).min(1).max(10_000).optional(),
    }).strict(),
    output: DownloadJobShape,
  },
  /**
   * A completed download's finished files that are no longer in its folder (removed, or changed
   * in size) are fetched again, and the manifest is rewritten; `missing: 0` when none is. The job
   * is named, never a path.
   */
  'downloads.check': {
    input: DownloadJobRef,
    output: z.object({ job: DownloadJobShape, missing: z.number().int(), waitingForNetwork: z.boolean() }),
  },
  /**
   * Shows a download's own destination folder in the system's file manager. The job is named,
   * never a path: the page cannot have the shell open anything else.
   */
  'downloads.openFolder': { input: DownloadJobRef, output: z.object({ opened: z.literal(true) }) },
  /** One download, or the organisation's recent downloads when no job is named. */
  'downloads.status': {
    input: z.object({ profileId: z.uuid(), jobId: z.uuid().optional() }).strict(),
    output: z.object({ jobs: z.array(DownloadJobShape) }),
  },
  /** A file on disk for preview (fetched now if needed), served at its satchel-file: URL. */
  'files.fetch': {
    input: z.object({ profileId: z.uuid(), fileId: z.string().min(1).max(100) }).strict(),
    output: CachedFile,
  },
  'files.offlineScope.get': { input: z.object({ profileId: z.uuid() }).strict(), output: OfflineUsage },
  /** Sets what stays offline without being opened, and starts filling the cache in the background. */
  'files.offlineScope.set': {
    input: z.object({ profileId: z.uuid(), scope: OfflineScope }).strict(),
    output: OfflineUsage,
  },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

export const Notice = z.object({
  level: z.enum(['info', 'warning', 'error']),
  message: z.string().min(1),
  at: z.iso.datetime(),
});
export type Notice = z.infer<typeof Notice>;

export const SyncProgressEvent = z.object({
  profileId: z.uuid(),
  runId: z.number().int(),
  resource: z.string(),
  records: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  waitingUntil: z.string().nullable(),
});
export type SyncProgressEvent = z.infer<typeof SyncProgressEvent>;

/** What a review change reports progress of: checking an import's file, or changing marks. */
export const ReviewPhase = z.enum(['check', 'change']);
export type ReviewPhase = z.infer<typeof ReviewPhase>;

/**
 * A step of handing the review over in a file: `export` writes the marks to the file, an
 * import's `check` checks the file's marks (nothing changed yet), its `merge` merges them.
 */
export const ReviewFileStep = z.enum(['export', 'check', 'merge']);
export type ReviewFileStep = z.infer<typeof ReviewFileStep>;

export const events = {
  /** Something the user should see in the status bar. */
  'app.notice': Notice,
  /** The app went online or offline; background sync follows it. */
  'app.online': OnlineState,
  /** A native menu item for the page (Go to an area, search, shortcuts help). */
  'app.menu': z.object({ action: MenuAction }),
  'sync.progress': SyncProgressEvent,
  /**
   * A CSV export: rows written of the rows it started with, after each batch; then one event
   * with `done` however it ended (written, failed, cancelled, or rows a sync deleted meanwhile
   * left out, so `written` may stay below `total`). `exportId` tells apart exports of one
   * organisation that run at once (the status bar shows each until its own end).
   */
  'export.progress': z.object({
    profileId: z.uuid(),
    exportId: z.uuid(),
    written: z.number().int(),
    total: z.number().int(),
    done: z.boolean(),
  }),
  /**
   * SQLite found the organisation's offline copy damaged after it had opened (a malformed page
   * met by a search or a sync): `profiles.cacheStatus` says so from now on.
   */
  'cache.damaged': z.object({ profileId: z.uuid() }),
  /**
   * A write to the organisation's offline copy was refused because it cannot be written any more
   * (made read-only while the app ran): it is open read-only from now on, and
   * `profiles.cacheStatus` says why (the banner, with Check again).
   */
  'cache.readOnly': z.object({ profileId: z.uuid() }),
  /**
   * A review change of a whole search result, or an import or its undo: records (or marks) done
   * of the total fixed at its start. `ended` on its last event, however it ended: all done, or
   * failed part-way (then `done` says how many were changed before, which stay changed), so
   * that nothing that counts it is left waiting for a total it will never reach. An import
   * first checks its file's marks (`phase: 'check'`: nothing is changed yet, and a problem
   * found ends it there), then merges them (`'change'`); every other change is `'change'`.
   */
  'review.progress': z.object({
    profileId: z.uuid(),
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    ended: z.boolean(),
    phase: ReviewPhase,
  }),
  /**
   * A review export or import (`review.export`, `review.import`) for the window that asked:
   * marks done of the total fixed at the step's start, at most about ten a second (the first
   * of each step at once). `ended` on its last event, however it ended: written (an export's
   * count reaches its total before its file is synced to the disk and put in place), merged,
   * or failed part-way (`done` says how far it came). An import's `check` comes before its
   * `merge`; a problem found in the file ends it at `check`. `workId` is the one the window
   * sent with the command (or the core made): a window follows only the run it waits for, so a
   * late event of a stopped run does not redraw the next run's bar.
   */
  'review.fileProgress': z.object({
    profileId: z.uuid(),
    workId: z.uuid(),
    step: ReviewFileStep,
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    ended: z.boolean(),
  }),
  /**
   * A run's end, whatever ended it. `runId` is its row in the history, or null when it has none:
   * it failed before its first page and the cache would not open or take a row for it (a run
   * whose push before the pull broke is recorded as failed when the cache takes the row), and
   * the caller got the error.
   */
  'sync.finished': SyncSummaryShape.extend({
    profileId: z.uuid(),
    runId: z.number().int().nullable(),
    /**
     * `busy`: refused before it started, as another Satchel process syncs the organisation
     * (error `BUSY`, `runId` null). Not a run's end: nothing failed, and the screens say nothing
     * of it but to the user who asked (the command's own error).
     */
    outcome: z.enum([...SyncSummaryShape.shape.outcome.options, 'busy']),
  }),
  /**
   * A push of offline edits (Send now, a sync's, a reconnect's): at its start, after each edit
   * it settles, and at its end (`running` false). The edits it settled so far, counted.
   */
  'edits.progress': z.object({
    profileId: z.uuid(),
    running: z.boolean(),
    sent: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    conflicts: z.number().int().nonnegative(),
  }),
  /** A bulk download's files, bytes, rate and time left (rate-limit waits included). */
  'downloads.progress': DownloadProgress,
  /**
   * The keep-offline fill started (`fetched: 0`), put files in place (`fetched` so far; at most
   * a few a second) or ended (`filling: false`): which files are on this computer changed.
   */
  'files.offline': z.object({
    profileId: z.uuid(),
    fetched: z.number().int().nonnegative(),
    filling: z.boolean(),
  }),
} as const satisfies Record<string, z.ZodType>;

export type CommandName = keyof typeof commands;
export type CommandInput<C extends CommandName> = z.input<(typeof commands)[C]['input']>;
export type CommandOutput<C extends CommandName> = z.output<(typeof commands)[C]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export const commandNames = Object.keys(commands) as CommandName[];
export const eventNames = Object.keys(events) as EventName[];

export function isCommandName(value: unknown): value is CommandName {
  return typeof value === 'string' && Object.hasOwn(commands, value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(events, value);
}

/** What travels back over IPC: errors are values, so their code and field survive the trip. */
export const IpcResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: AppErrorShape }),
]);
export type IpcResult = z.infer<typeof IpcResult>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppErrorShape };

/**
 * The API the renderer sees as `window.satchel`. `invoke` resolves to a result instead of
 * rejecting, because Electron's context bridge strips everything but the message from a thrown
 * error, and the renderer needs the code and field to show an error where it belongs.
 */
export interface SatchelApi {
  invoke<C extends CommandName>(command: C, input: CommandInput<C>): Promise<Result<CommandOutput<C>>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}
