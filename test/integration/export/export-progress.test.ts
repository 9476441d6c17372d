import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/handlers';
import type { EventPayload } from '../../../src-shared/ipc';
import { syncedCoreWithFileDialog } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

type ExportProgress = EventPayload<'export.progress'>;

// A CSV export's `export.progress` events through the handler table, as the status bar gets
// them: after each batch of a thousand rows, then one `done` however the export ends — written,
// short of its total because a sync deleted rows meanwhile, or failed midway. Without that last
// event the bar's "Exporting X of Y" would stay when X never reaches Y.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * A synced core and its handler table, and `exportTo`: a CSV export as the window makes it, the
 * file picked in the dialog first (a path the user did not pick is refused).
 */
async function exportsThroughDialog() {
  const { core, profile, handlers, pickFile } = await syncedCoreWithFileDialog(tempDir(), closers, {
    transactions: 2100,
  });
  const folder = tempDir();
  const exportTo = async (
    command: 'transactions.exportCsv' | 'expenses.exportCsv',
    name: string,
    exportId?: string,
  ) => {
    const file = path.join(folder, name);
    expect(
      await pickFile(command === 'transactions.exportCsv' ? 'transactionsCsv' : 'expensesCsv', file),
    ).toMatchObject({ ok: true });
    return dispatch(handlers, command, {
      profileId: profile.id,
      search: {},
      file,
      overwrite: true,
      ...(exportId === undefined ? {} : { exportId }),
    });
  };
  return { core, folder, exportTo, handlers, profileId: profile.id };
}

describe('export progress events', () => {
  it('end with one done event whether the export is written, leaves rows out or fails midway', async () => {
    const { core, profileId, handlers, pickFile } = await syncedCoreWithFileDialog(tempDir(), closers, {
      transactions: 2100,
    });
    const cache = core.cacheOf(profileId);
    const live = cache.sqlite
      .prepare('SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL')
      .pluck()
      .get() as number;
    expect(live).toBeGreaterThan(2000);

    let events: Array<Omit<EventPayload<'export.progress'>, 'profileId' | 'exportId'>> = [];
    const exportIds = new Set<string>();
    // Run as the first batch is reported (synchronously, before the next batch is read).
    let afterFirstBatch: (() => void) | null = null;
    const stop = core.events.subscribe((name, payload) => {
      if (name !== 'export.progress') return;
      const { profileId: of, exportId, ...rest } = payload as EventPayload<'export.progress'>;
      expect(of).toBe(profileId);
      exportIds.add(exportId);
      events.push(rest);
      const run = afterFirstBatch;
      afterFirstBatch = null;
      run?.();
    });
    closers.push(() => Promise.resolve(stop()));
    const exportTo = async (file: string) => {
      expect(await pickFile('transactionsCsv', file)).toMatchObject({ ok: true });
      return dispatch(handlers, 'transactions.exportCsv', { profileId, search: {}, file, overwrite: true });
    };

    // Written whole: a thousand at a time, then done.
    const folder = path.join(tempDir(), 'Exports');
    mkdirSync(folder);
    expect(await exportTo(path.join(folder, 'all.csv'))).toMatchObject({ ok: true, value: { rows: live } });
    expect(events).toEqual([
      { written: 1000, total: live, done: false },
      { written: 2000, total: live, done: false },
      { written: live, total: live, done: false },
      { written: live, total: live, done: true },
    ]);

    // A sync deletes the rest of the result after the first batch: they are left out, so the
    // count stops short of the total, and the end is said all the same.
    events = [];
    const other = tempDir();
    afterFirstBatch = () =>
      cache.sqlite.prepare("UPDATE bank_transactions SET deleted_at = '2026-01-01T00:00:00.000Z'").run();
    expect(await exportTo(path.join(other, 'short.csv'))).toMatchObject({ ok: true, value: { rows: 1000 } });
    expect(events).toEqual([
      { written: 1000, total: live, done: false },
      { written: 1000, total: live, done: false },
      { written: 1000, total: live, done: false },
      { written: 1000, total: live, done: true },
    ]);
    cache.sqlite.prepare('UPDATE bank_transactions SET deleted_at = NULL').run();

    // The cache cannot be read after the first batch (here: its connection closed under the
    // export): the export fails midway, and says it ended.
    events = [];
    afterFirstBatch = () => cache.sqlite.close();
    expect(await exportTo(path.join(other, 'failed.csv'))).toMatchObject({ ok: false });
    expect(events).toEqual([
      { written: 1000, total: live, done: false },
      { written: 1000, total: live, done: true },
    ]);
    // One id per export, each its own.
    expect(exportIds.size).toBe(3);
  }, 120_000);

  it('tell apart two exports of one organisation that run at once', async () => {
    const { core, exportTo } = await exportsThroughDialog();

    const events: ExportProgress[] = [];
    let second: ReturnType<typeof exportTo> | null = null;
    // The expenses' export starts as the transactions' first batch is reported: it is short, and
    // ends while the transactions' still has batches to write.
    const stop = core.events.subscribe((name, payload) => {
      if (name !== 'export.progress') return;
      events.push(payload as ExportProgress);
      if (!second) second = exportTo('expenses.exportCsv', 'expenses.csv');
    });
    closers.push(() => Promise.resolve(stop()));
    expect(await exportTo('transactions.exportCsv', 'transactions.csv')).toMatchObject({ ok: true });
    expect(await second).toMatchObject({ ok: true });

    const [transactions, expenses] = [...new Set(events.map((event) => event.exportId))];
    expect(transactions).toBeDefined();
    expect(expenses).toBeDefined();
    expect(transactions).not.toBe(expenses);
    // They ran at once: the expenses' export began before the transactions' ended. Which ends
    // first is the disk's to say (each file's fsync waits on the thread pool); each ends once,
    // under its own id, which the status bar follows (test/unit/renderer/running-exports.test.ts).
    const ends = events.filter((event) => event.done).map((event) => event.exportId);
    expect([...ends].sort()).toEqual([expenses, transactions].sort());
    const endOfTransactions = events.findIndex((event) => event.exportId === transactions && event.done);
    expect(events.findIndex((event) => event.exportId === expenses)).toBeLessThan(endOfTransactions);
  }, 120_000);
  it('carry the id the caller sent, and refuse that id while its export runs', async () => {
    const { core, folder, exportTo } = await exportsThroughDialog();

    const mine = randomUUID();
    const events: ExportProgress[] = [];
    let again: ReturnType<typeof exportTo> | null = null;
    // A second export asks for the same id while the first writes its batches.
    const stop = core.events.subscribe((name, payload) => {
      if (name !== 'export.progress') return;
      events.push(payload as ExportProgress);
      again ??= exportTo('expenses.exportCsv', 'expenses.csv', mine);
    });
    closers.push(() => Promise.resolve(stop()));
    expect(await exportTo('transactions.exportCsv', 'transactions.csv', mine)).toMatchObject({ ok: true });
    expect(await again).toEqual({
      ok: false,
      error: {
        code: 'ALREADY_EXISTS',
        message: 'An export with this id is already running.',
        field: 'exportId',
      },
    });
    expect(existsSync(path.join(folder, 'expenses.csv'))).toBe(false);
    // Every event is the first export's, under the id it was given, and it ended once.
    expect(events.length).toBeGreaterThan(1);
    expect(new Set(events.map((event) => event.exportId))).toEqual(new Set([mine]));
    expect(events.filter((event) => event.done)).toHaveLength(1);

    // Ended, its id may be used again; an id that is not a UUID is refused before anything runs.
    events.length = 0;
    expect(await exportTo('expenses.exportCsv', 'expenses.csv', mine)).toMatchObject({ ok: true });
    expect(events.at(-1)).toMatchObject({ exportId: mine, done: true });
    expect(await exportTo('expenses.exportCsv', 'other.csv', 'not-an-id')).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR', field: 'exportId' },
    });
  }, 120_000);

  it('stop on export.cancel between two batches, leaving no file, no temporary and the old file', async () => {
    const { core, folder, exportTo, handlers, profileId } = await exportsThroughDialog();
    const target = path.join(folder, 'transactions.csv');
    writeFileSync(target, 'last week’s export');
    const mine = randomUUID();
    const events: ExportProgress[] = [];
    const cancels: Array<Promise<unknown>> = [];
    // The user presses Stop as the first batch is reported (synchronously, before the next).
    const stop = core.events.subscribe((name, payload) => {
      if (name !== 'export.progress') return;
      events.push(payload as ExportProgress);
      if (cancels.length === 0) {
        cancels.push(dispatch(handlers, 'export.cancel', { profileId: randomUUID(), exportId: mine }));
        cancels.push(dispatch(handlers, 'export.cancel', { profileId, exportId: mine }));
      }
    });
    closers.push(() => Promise.resolve(stop()));
    expect(await exportTo('transactions.exportCsv', 'transactions.csv', mine)).toEqual({
      ok: false,
      error: { code: 'CANCELLED', message: 'The export was cancelled; no file was written.' },
    });
    // Another organisation's id stops nothing; the export's own does.
    expect(await Promise.all(cancels)).toEqual([
      { ok: true, value: { cancelled: false } },
      { ok: true, value: { cancelled: true } },
    ]);
    expect(readFileSync(target, 'utf8')).toBe('last week’s export');
    expect(readdirSync(folder)).toEqual(['transactions.csv']);
    expect(events.map(({ written, done }) => ({ written, done }))).toEqual([
      { written: 1000, done: false },
      { written: 1000, done: true },
    ]);
    // Ended, there is nothing left to stop.
    expect(await dispatch(handlers, 'export.cancel', { profileId, exportId: mine })).toEqual({
      ok: true,
      value: { cancelled: false },
    });
  }, 120_000);

  it('end when the folder is renamed part-way, and leave nothing in the folder where it went', async () => {
    const { core, folder, exportTo } = await exportsThroughDialog();
    writeFileSync(path.join(folder, 'notes.txt'), 'mine');
    const moved = `${folder} (moved)`;
    const events: ExportProgress[] = [];
    // The accountant renames the folder as the first batch is reported (a synced folder moved
    // away in the file manager); the export writes its other batches into it, where it went.
    const stop = core.events.subscribe((name, payload) => {
      if (name !== 'export.progress') return;
      events.push(payload as ExportProgress);
      if (!existsSync(moved)) renameSync(folder, moved);
    });
    closers.push(() => Promise.resolve(stop()));
    const target = path.join(folder, 'transactions.csv');
    expect(await exportTo('transactions.exportCsv', 'transactions.csv')).toEqual({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: `Could not write ${target}: its folder was moved to ${moved} while the export was written. Nothing was written (the unfinished file was removed from there); export again to where the folder is now, or choose another place.`,
        field: 'file',
      },
    });
    // No temporary file is left where the folder went, and nothing appeared under the old name.
    expect(readdirSync(moved)).toEqual(['notes.txt']);
    expect(existsSync(folder)).toBe(false);
    expect(events.length).toBeGreaterThan(2);
    expect(events.filter((event) => event.done)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ done: true });
  }, 120_000);
});
