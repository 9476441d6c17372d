import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { AppError, validationError } from '../src-shared/errors';
import {
  commands,
  isCommandName,
  type CommandName,
  type CommandOutput,
  type IpcResult,
} from '../src-shared/ipc';
import type { Core } from './core';
import {
  exportExpenses,
  exportReviewFileInSlices,
  exportTransactions,
  importReviewFileInSlices,
} from './export';
import { log } from './log';
import { secretAccount } from './profiles';
import { lockedKeyMessage } from './secrets';
import { withReviewExportProgress, withReviewProgress } from './review-progress';
import { cacheWriteProblem, isSqliteError } from './store';
import { bankAccountSummaries, expenseDetail, transactionDetail } from './details';
import {
  afterReviewChanges,
  applyReviewInSlices,
  countAttention,
  ImportInterrupted,
  undoImportInSlices,
  type ImportUndo,
} from './review';
import {
  listDimensions,
  listExpenseAccounts,
  searchDimensionItems,
  searchExpenses,
  searchSuppliers,
  searchTransactions,
  transactionPosition,
} from './search';

type ParsedInput<C extends CommandName> = z.output<(typeof commands)[C]['input']>;

/** One function per command of the contract; the compiler makes sure none is missing. */
export type HandlerTable = {
  [C in CommandName]: (input: ParsedInput<C>) => Promise<CommandOutput<C>> | CommandOutput<C>;
};

/**
 * A CSV export, or a review export or import, under way: whose it is, and how `export.cancel`
 * (`review.cancel`) stops it.
 */
interface RunningExport {
  profileId: string;
  stop: AbortController;
}

/**
 * Runs a CSV export with its progress as `export.progress`, and ends it with one `done` event
 * however it ends: written, failed or cancelled midway, or short of its total because a sync
 * deleted rows meanwhile. The status bar counts the export until then, so it never sticks.
 *
 * Each export has its own id: another export of the organisation may run at the same time, and
 * its events must not move this one's count (the dialog that asked follows the id it sent) nor
 * its end end this one in the status bar. So an id already running is refused.
 */
async function withExportProgress<T>(
  core: Core,
  running: Map<string, RunningExport>,
  profileId: string,
  requested: string | undefined,
  run: (onProgress: (written: number, total: number) => void, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const exportId = requested ?? randomUUID();
  if (running.has(exportId)) {
    throw new AppError('ALREADY_EXISTS', 'An export with this id is already running.', 'exportId');
  }
  const stop = new AbortController();
  running.set(exportId, { profileId, stop });
  let last = { written: 0, total: 0 };
  try {
    return await run((written, total) => {
      last = { written, total };
      core.events.emit('export.progress', { profileId, exportId, written, total, done: false });
    }, stop.signal);
  } finally {
    running.delete(exportId);
    core.events.emit('export.progress', { profileId, exportId, ...last, done: true });
  }
}

/**
 * Runs a review export or import (`review.export`, `review.import`) with a signal that
 * `review.cancel` aborts by its `workId` (the caller's, or one made here), as `export.cancel`
 * stops a CSV export. An id already running is refused, as an export's is.
 */
async function withReviewFileWork<T>(
  running: Map<string, RunningExport>,
  profileId: string,
  requested: string | undefined,
  run: (workId: string, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const workId = requested ?? randomUUID();
  if (running.has(workId)) {
    throw new AppError(
      'ALREADY_EXISTS',
      'A review export or import with this id is already running.',
      'workId',
    );
  }
  const stop = new AbortController();
  running.set(workId, { profileId, stop });
  try {
    return await run(workId, stop.signal);
  } finally {
    running.delete(workId);
  }
}

/** Aborts the running work of `running` by its id, if it is the organisation's and not stopping. */
function cancelRunning(
  running: Map<string, RunningExport>,
  profileId: string,
  id: string,
): { cancelled: boolean } {
  const work = running.get(id);
  if (!work || work.profileId !== profileId || work.stop.signal.aborted) return { cancelled: false };
  work.stop.abort();
  return { cancelled: true };
}

/**
 * SQLite's refusal of the organisation's copy in words a person can act on (a read-only file, a
 * full disk); null for anything else, which the door below answers as it always has. The review
 * marks and other writes of a command met these as "Satchel could not complete …".
 */
function cacheTrouble(core: Core, profileId: string, error: unknown): AppError | null {
  // A copy that could not be written any more while it was open (made immutable, its disk
  // remounted read-only): opened again read-only, and refused with the words every other one gets.
  const turned = core.noteWriteRefused(profileId, error);
  if (turned) return turned;
  // A write that reached a copy opened read-only: refused with the words every other one gets.
  if (isSqliteError(error) && error.code.startsWith('SQLITE_READONLY')) {
    const readOnly = core.readOnlyError(profileId);
    if (readOnly) return readOnly;
  }
  // Only the refusals of the disk and the file: another SQLite error is a bug, answered below.
  if (!isSqliteError(error) || !/^SQLITE_(FULL|READONLY|IOERR|BUSY|LOCKED|CANTOPEN)/.test(error.code))
    return null;
  const profile = core.profiles.list().find((candidate) => candidate.id === profileId);
  const whose = profile ? `the offline copy of "${profile.name}"` : "the organisation's offline copy";
  log.warn(`SQLite refused ${whose}:`, error);
  return new AppError('INTERNAL', `Satchel could not use ${whose}: ${cacheWriteProblem(error)}.`);
}

/**
 * Each command of an organisation (its input names a `profileId`) hands an error SQLite raised
 * to the core, which notes a damaged copy (`noteCacheError`); the user then reads that the
 * organisation's copy is damaged and what to do, not that a search failed.
 */
function noticingDamage(core: Core, table: HandlerTable): HandlerTable {
  const guarded: Record<string, (input: unknown) => unknown> = {};
  for (const [name, handler] of Object.entries(table) as Array<[string, (input: unknown) => unknown]>) {
    guarded[name] = (input) => {
      const profileId = (input as { profileId?: unknown } | null)?.profileId;
      if (typeof profileId !== 'string') return handler(input);
      const damage = (error: unknown): never => {
        throw core.noteCacheError(profileId, error) ?? cacheTrouble(core, profileId, error) ?? error;
      };
      try {
        const answer = handler(input);
        return answer instanceof Promise ? answer.catch(damage) : answer;
      } catch (error) {
        return damage(error);
      }
    };
  }
  return guarded as HandlerTable;
}

/**
 * Whether the organisation's copy opens, and whether it can be written (`profiles.cacheStatus`,
 * and `satchel status`). A copy that cannot be written is opened read-only, never migrated.
 */
export function cacheStatus(core: Core, profileId: string): CommandOutput<'profiles.cacheStatus'> {
  const problem = core.cacheProblem(profileId);
  const readOnly = problem ? null : core.cacheOf(profileId).readOnly;
  const refused = readOnly ? core.readOnlyError(profileId) : null;
  return {
    problem,
    readOnly: readOnly && refused ? { message: refused.message, where: readOnly.where } : null,
  };
}

/**
 * The keychain's status, and beside it each connected organisation whose key is in a locked
 * keyring: the default keyring's state does not speak for a key kept in another one.
 */
export async function keychainStatus(core: Core): Promise<CommandOutput<'keychain.status'>> {
  const profiles = core.profiles.list();
  const [status, locked] = await Promise.all([
    core.secrets.status(),
    core.secrets.lockedAccounts(profiles.map((profile) => secretAccount(profile.id))),
  ]);
  const lockedKeys = profiles.flatMap((profile) => {
    const account = secretAccount(profile.id);
    if (!locked.has(account)) return [];
    const keyring = locked.get(account) ?? null;
    return [{ profileId: profile.id, keyring, message: lockedKeyMessage(keyring) }];
  });
  return { ...status, lockedKeys };
}

export function createHandlers(core: Core): HandlerTable {
  const runningExports = new Map<string, RunningExport>();
  // Review exports and imports under way, by their `workId`, for `review.cancel`.
  const runningReviewFiles = new Map<string, RunningExport>();
  // Per organisation, the last import that changed something, while the app runs: what undoing
  // it puts back (src-main/review/undo.ts).
  const lastImports = new Map<string, { importId: string; undo: ImportUndo }>();
  return noticingDamage(core, {
    'app.info': () => core.info(),
    'app.online': () => core.connectivity.state(),
    'dialog.pickFolder': async ({ title }) => ({ folder: await core.pickFolder(title) }),
    'dialog.pickFile': async ({ purpose, suggestedName }) => ({
      file: await core.pickFile(purpose, suggestedName),
    }),
    'keychain.status': () => keychainStatus(core),
    'profiles.list': () => ({ profiles: core.profiles.list() }),
    'profiles.add': (input) => core.addProfile(input),
    'profiles.rename': ({ id, name }) => core.profiles.rename(id, name),
    'profiles.localWork': ({ id }) => core.localWork(id),
    'profiles.cacheStatus': ({ id }) => cacheStatus(core, id),
    'profiles.recheckCache': async ({ id }) => {
      await core.recheckCache(id);
      return cacheStatus(core, id);
    },
    'profiles.rebuildCache': ({ id }) => core.rebuildCache(id),
    'profiles.recoveryPlan': () => core.recoveryPlan(),
    'profiles.recover': () => core.recoverProfiles(),
    'profiles.remove': async ({ id }) => {
      await core.removeProfile(id);
      return { removed: true as const };
    },
    'profiles.reauthenticate': ({ id, auth }) => core.reauthenticateProfile(id, auth),
    // The page here; the totals, which may take a second on a large cache, in the totals
    // thread, so that the next page or keystroke is answered meanwhile.
    'transactions.search': async ({ profileId, search }) => {
      const page = searchTransactions(core.cacheOf(profileId), { ...search, withTotals: false });
      if (!search.withTotals) return page;
      return { ...page, totals: await core.transactionTotals(profileId, search.filters) };
    },
    'transactions.position': ({ profileId, filters, sorting, id }) => ({
      index: transactionPosition(core.cacheOf(profileId).sqlite, filters, sorting, id),
    }),
    'transactions.get': ({ profileId, id }) => transactionDetail(core.cacheOf(profileId), id),
    'expenses.get': ({ profileId, id }) => expenseDetail(core.cacheOf(profileId), id),
    'bankAccounts.list': ({ profileId }) => ({ accounts: bankAccountSummaries(core.cacheOf(profileId)) }),
    // The count in the totals thread (it can take a while with many expenses), the page here.
    'expenses.search': async ({ profileId, search }) => {
      const total = await core.expenseCount(profileId, search.filters);
      return searchExpenses(core.cacheOf(profileId), search, { total });
    },
    'suppliers.search': ({ profileId, search }) => searchSuppliers(core.cacheOf(profileId), search),
    'expenseAccounts.list': ({ profileId }) => ({ accounts: listExpenseAccounts(core.cacheOf(profileId)) }),
    'dimensions.list': ({ profileId, search }) => ({
      dimensions: listDimensions(core.cacheOf(profileId), search),
    }),
    'dimensionItems.search': ({ profileId, search }) => searchDimensionItems(core.cacheOf(profileId), search),
    // A whole search result is changed in slices (review/slices.ts), with progress.
    'review.apply': ({ profileId, target, change }) =>
      withReviewProgress(core.events, profileId, (onProgress) =>
        applyReviewInSlices(core.writableCacheOf(profileId), target, change, {
          // The result is listed in the totals thread: 0.3–0.5 s for 283,292 of a million rows.
          rowsOf: (search) => core.reviewRows(profileId, search),
          onProgress,
        }),
      ),
    'review.attention': async ({ profileId }) => ({
      groups: await countAttention({
        transactions: async (filters) => (await core.transactionTotals(profileId, filters)).count,
        expenses: (filters) => core.expenseCount(profileId, filters),
      }),
    }),
    // A path from the page is taken only if the user picked it in the core's dialog for this
    // purpose (src-main/grants.ts); the command line calls the same functions without grants.
    'transactions.exportCsv': ({ profileId, exportId, ...input }) =>
      withExportProgress(core, runningExports, profileId, exportId, (onProgress, signal) =>
        core.grants.useFile('transactionsCsv', input.file, (file) =>
          exportTransactions(core.cacheOf(profileId), { ...input, file }, onProgress, signal),
        ),
      ),
    'expenses.exportCsv': ({ profileId, exportId, ...input }) =>
      withExportProgress(core, runningExports, profileId, exportId, (onProgress, signal) =>
        core.grants.useFile('expensesCsv', input.file, (file) =>
          exportExpenses(core.cacheOf(profileId), { ...input, file }, onProgress, signal),
        ),
      ),
    'export.cancel': ({ profileId, exportId }) => cancelRunning(runningExports, profileId, exportId),
    // A review export or import stops on `review.cancel` as on Ctrl+C on the command line: the
    // export between two slices or before its file replaces the target (nothing written), the
    // import during its check (nothing changed) or between two slices of its merge.
    'review.export': ({ profileId, file: named, workId }) =>
      core.grants.useFile('reviewExport', named, (file) =>
        withReviewFileWork(runningReviewFiles, profileId, workId, (running, signal) => {
          const cache = core.cacheOf(profileId);
          return afterReviewChanges(cache, () =>
            withReviewExportProgress(core.events, profileId, running, (onProgress) =>
              exportReviewFileInSlices(cache, { file }, { onProgress, signal }),
            ),
          );
        }),
      ),
    'review.import': ({ profileId, file: named, workId }) =>
      core.grants.useFile('reviewImport', named, (file) =>
        withReviewFileWork(runningReviewFiles, profileId, workId, (importId, signal) => {
          const cache = core.writableCacheOf(profileId);
          return afterReviewChanges(cache, async () => {
            // Stopped while it merged, the import answers with what it merged so far, which
            // stays and can be undone like a whole import (the user asked it to stop, not to
            // take back what it did); stopped during the check it fails: nothing changed.
            const { result, undo, interrupted } = await withReviewProgress(
              core.events,
              profileId,
              async (onProgress) => {
                try {
                  const done = await importReviewFileInSlices(
                    cache,
                    { file },
                    { onProgress, checkThread: core.reviewCheckThread, signal },
                  );
                  return { ...done, interrupted: null };
                } catch (error) {
                  if (!(error instanceof ImportInterrupted)) throw error;
                  const { merged, sofar, message } = error;
                  return { ...sofar, interrupted: { merged, total: sofar.result.marks, message } };
                }
              },
              { file: { workId: importId } },
            );
            if (!undo || undo.entries.length === 0) return { ...result, importId: null, interrupted };
            lastImports.set(profileId, { importId, undo });
            return { ...result, importId, interrupted };
          });
        }),
      ),
    'review.cancel': ({ profileId, workId }) => cancelRunning(runningReviewFiles, profileId, workId),
    'review.undoImport': ({ profileId, importId }) => {
      const last = lastImports.get(profileId);
      if (last?.importId !== importId)
        throw new AppError(
          'NOT_FOUND',
          'This import can no longer be undone: another import of the organisation came after it, it was undone already, or Satchel was started again since.',
        );
      const cache = core.writableCacheOf(profileId);
      lastImports.delete(profileId);
      return afterReviewChanges(cache, () =>
        withReviewProgress(core.events, profileId, (onProgress) =>
          undoImportInSlices(cache, last.undo, { onProgress }),
        ),
      );
    },
    'suppliers.create': ({ profileId, input }) => core.outbox.createSupplier(profileId, input),
    'suppliers.update': ({ profileId, id, input }) => core.outbox.updateSupplier(profileId, id, input),
    'dimensions.create': ({ profileId, input }) => core.outbox.createDimension(profileId, input),
    'dimensions.update': ({ profileId, id, input }) => core.outbox.updateDimension(profileId, id, input),
    'dimensionItems.create': ({ profileId, dimensionId, input }) =>
      core.outbox.createDimensionItem(profileId, dimensionId, input),
    'dimensionItems.update': ({ profileId, dimensionId, id, input }) =>
      core.outbox.updateDimensionItem(profileId, dimensionId, id, input),
    'edits.list': ({ profileId }) => ({ items: core.outbox.list(profileId) }),
    'edits.push': async ({ profileId }) => {
      await core.demo.ensureFor(profileId);
      return core.outbox.push(profileId);
    },
    'edits.cancel': ({ profileId }) => ({ cancelled: core.outbox.cancelPush(profileId) }),
    'edits.retry': ({ profileId, operationId }) => core.outbox.retry(profileId, operationId),
    'edits.edit': ({ profileId, operationId, input }) => core.outbox.edit(profileId, operationId, input),
    'edits.discard': ({ profileId, operationId }) => {
      core.outbox.discard(profileId, operationId);
      return { discarded: true as const };
    },
    'edits.resolve': ({ profileId, operationId, resolution }) => ({
      item: core.outbox.resolve(profileId, operationId, resolution),
    }),
    'demo.open': () => core.demo.open(),
    // The demo organisation's sandbox runs inside the app: started before it is used.
    'sync.start': async ({ profileId, full }) => {
      await core.demo.ensureFor(profileId);
      return core.sync.sync(profileId, { full });
    },
    'sync.cancel': ({ profileId }) => ({ cancelled: core.sync.cancel(profileId) }),
    // Only into a folder picked with `dialog.pickFolder`; a stored job (resume, retry) goes on
    // in its own folder, from the core's table.
    'downloads.start': async ({ profileId, ...request }) => {
      const destination = core.grants.checkFolder(request.destination, 'destination');
      await core.demo.ensureFor(profileId);
      return core.files.start(profileId, { ...request, destination });
    },
    'downloads.defaultFolder': () => ({ folder: core.grants.lastFolder() }),
    'downloads.pause': ({ profileId, jobId }) => core.files.pause(profileId, jobId),
    'downloads.resume': async ({ profileId, jobId }) => {
      await core.demo.ensureFor(profileId);
      return core.files.resume(profileId, jobId);
    },
    'downloads.cancel': ({ profileId, jobId }) => core.files.cancel(profileId, jobId),
    'downloads.retry': async ({ profileId, jobId, fileIds }) => {
      await core.demo.ensureFor(profileId);
      return core.files.retry(profileId, jobId, fileIds);
    },
    'downloads.check': async ({ profileId, jobId }) => {
      await core.demo.ensureFor(profileId);
      return core.files.check(profileId, jobId);
    },
    'downloads.openFolder': async ({ profileId, jobId }) => {
      await core.files.openFolder(profileId, jobId);
      return { opened: true as const };
    },
    'downloads.status': ({ profileId, jobId }) => ({
      jobs: jobId ? [core.files.status(profileId, jobId)] : core.files.list(profileId),
    }),
    'files.fetch': async ({ profileId, fileId }) => {
      await core.demo.ensureFor(profileId);
      return core.files.fetch(profileId, fileId);
    },
    'files.offlineScope.get': ({ profileId }) => core.files.offlineScope(profileId),
    'files.offlineScope.set': async ({ profileId, scope }) => {
      core.files.setOfflineScope(profileId, scope);
      await core.demo.ensureFor(profileId);
      // The fill is registered before the answer, so the answer says it runs.
      void core.files.fillOffline(profileId).catch(() => undefined);
      return core.files.offlineScope(profileId);
    },
    'sync.rateLimits': ({ profileId }) => ({
      buckets: core.sync
        .clientOf(profileId)
        .governor.snapshot()
        .map((bucket) => ({ ...bucket, resetAt: bucket.resetAt.toISOString() })),
    }),
    'sync.history': ({ profileId, limit }) => ({
      runs: core.sync.history(profileId, limit).map((run) => ({
        ...run,
        counts: JSON.parse(run.counts) as Record<string, number>,
        errors: JSON.parse(run.errors) as Array<{ resource: string; code: string; message: string }>,
      })),
      lastSucceededAt: core.sync.lastSucceededAt(profileId),
    }),
  });
}

/**
 * The single door into the core from the renderer: unknown commands and invalid input are
 * refused before any handler runs, and every failure comes back as a value the UI can show.
 * Unexpected errors are logged here and reach the renderer only as a generic message, so no
 * internal detail (a path, a token) leaks through an error text.
 */
export async function dispatch(table: HandlerTable, command: unknown, input: unknown): Promise<IpcResult> {
  if (!isCommandName(command)) {
    return {
      ok: false,
      error: { code: 'UNKNOWN_COMMAND', message: `Unknown command: ${String(command).slice(0, 80)}` },
    };
  }
  const spec = commands[command];
  const parsed = spec.input.safeParse(input);
  if (!parsed.success) return { ok: false, error: validationError(parsed.error).toShape() };
  try {
    const handler = table[command] as (value: unknown) => unknown;
    const value: unknown = await handler(parsed.data);
    return { ok: true, value: spec.output.parse(value) };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error: error.toShape() };
    log.error(`command ${command} failed:`, error);
    return {
      ok: false,
      error: {
        code: 'INTERNAL',
        message: `Satchel could not complete "${command}". Try again; if it keeps failing, restart the app.`,
      },
    };
  }
}
