import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { exportReviewFileInSlices } from '../../src-main/export';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { applyReview } from '../../src-main/review';
import type { CommandInput } from '../../src-shared/ipc';
import type { FilePurpose } from '../../src-shared/export';
import { queuedFileDialog, queuedFolderDialog } from '../helpers/dialogs';
import { syncedCore } from '../helpers/sync-fixture';
import { useTempDirs } from '../helpers/temp-dir';

// The page is not trusted: every IPC command that takes a path from it writes or reads only a
// file or folder the user picked in the core's own dialogs (src-main/grants.ts). Each command
// is sent an unpicked path (refused on its field, nothing written or read there), a path picked
// for something else, and a picked one (done); a picked file serves once, a failed use gives it
// back; the last download folder picked survives a restart; a stored job resumes without one.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const refusedFile = (message: RegExp) => ({
  ok: false,
  error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(message) as unknown, field: 'file' },
});
const NOT_PICKED_TO_WRITE = /^Choose the file with Choose…; Satchel writes only where you picked\.$/;
const NOT_PICKED_TO_READ = /^Choose the file in the open dialog; Satchel reads only a file you picked\.$/;
const NOT_PICKED_FOLDER = {
  ok: false,
  error: {
    code: 'VALIDATION_ERROR',
    message: 'Choose the folder with Choose…; Satchel writes only where you picked.',
    field: 'destination',
  },
};

async function setup() {
  const dir = tempDir();
  const fileDialog = queuedFileDialog();
  const folderDialog = queuedFolderDialog();
  const fixture = await syncedCore(
    dir,
    closers,
    { transactions: 200 },
    { pickFile: fileDialog.pick, pickFolder: folderDialog.pick },
  );
  const handlers = createHandlers(fixture.core);
  const profileId = fixture.profile.id;
  const pickFile = async (purpose: FilePurpose, file: string) => {
    fileDialog.answers.push(file);
    const answer = await dispatch(handlers, 'dialog.pickFile', { purpose });
    expect(answer).toEqual({ ok: true, value: { file } });
  };
  const pickFolder = async (folder: string) => {
    folderDialog.answers.push(folder);
    expect(await dispatch(handlers, 'dialog.pickFolder', {})).toEqual({ ok: true, value: { folder } });
  };
  return { ...fixture, handlers, profileId, pickFile, pickFolder, askedFolders: folderDialog.asked };
}

describe('paths the page names must be the user’s picks', () => {
  it('exports CSV only to a file picked for that export, once; a failed try keeps the pick', async () => {
    const { handlers, profileId, pickFile } = await setup();
    const folder = tempDir();
    const exportTo = (
      command: 'transactions.exportCsv' | 'expenses.exportCsv',
      file: string,
      overwrite = false,
    ) =>
      command === 'transactions.exportCsv'
        ? dispatch(handlers, 'transactions.exportCsv', { profileId, search: {}, file, overwrite })
        : dispatch(handlers, 'expenses.exportCsv', {
            profileId,
            search: { sorting: { field: 'expenseTime', direction: 'DESC' } },
            file,
            overwrite,
          } satisfies CommandInput<'expenses.exportCsv'>);

    // A file the user has (their shell's start-up file, say) is never written unpicked.
    const victim = path.join(folder, 'profile.csv');
    writeFileSync(victim, 'echo mine\n');
    for (const command of ['transactions.exportCsv', 'expenses.exportCsv'] as const) {
      expect(await exportTo(command, victim, true)).toEqual(refusedFile(NOT_PICKED_TO_WRITE));
      expect(await exportTo(command, path.join(folder, 'new.csv'))).toEqual(refusedFile(NOT_PICKED_TO_WRITE));
    }
    expect(readFileSync(victim, 'utf8')).toBe('echo mine\n');
    expect(readdirSync(folder)).toEqual(['profile.csv']);

    // Picked for the expenses, it is not a pick for the transactions, nor one to read.
    const expenses = path.join(folder, 'expenses.csv');
    await pickFile('expensesCsv', expenses);
    expect(await exportTo('transactions.exportCsv', expenses)).toEqual(refusedFile(NOT_PICKED_TO_WRITE));
    expect(
      await dispatch(handlers, 'review.import', { profileId, file: path.join(folder, 'x.json') }),
    ).toEqual(refusedFile(NOT_PICKED_TO_READ));
    expect(existsSync(expenses)).toBe(false);
    // The same path, spelled another way, is the same file.
    const spelled = path.join(folder, 'sub', '..', 'expenses.csv');
    expect(await exportTo('expenses.exportCsv', spelled)).toMatchObject({
      ok: true,
      value: { file: expenses },
    });
    expect(readFileSync(expenses, 'utf8')).toMatch(/^\uFEFFid,/);
    // Spent: writing it again takes another pick.
    expect(await exportTo('expenses.exportCsv', expenses, true)).toEqual(refusedFile(NOT_PICKED_TO_WRITE));

    // A try that fails (the file is there and may not be replaced) leaves the pick to try again.
    const transactions = path.join(folder, 'transactions.csv');
    writeFileSync(transactions, 'old');
    await pickFile('transactionsCsv', transactions);
    expect(await exportTo('transactions.exportCsv', transactions)).toMatchObject({
      ok: false,
      error: { code: 'ALREADY_EXISTS', field: 'file' },
    });
    expect(readFileSync(transactions, 'utf8')).toBe('old');
    expect(await exportTo('transactions.exportCsv', transactions, true)).toMatchObject({
      ok: true,
      value: { file: transactions },
    });
    expect(readFileSync(transactions, 'utf8')).toMatch(/^\uFEFFid,booking_date,/);
    // A relative path is never a pick.
    expect(await exportTo('transactions.exportCsv', 'transactions.csv', true)).toEqual(
      refusedFile(NOT_PICKED_TO_WRITE),
    );
  });

  it('exports and imports the review only through files picked for it', async () => {
    const { core, handlers, profileId, pickFile } = await setup();
    const cache = core.cacheOf(profileId);
    const folder = tempDir();
    const ids = cache.sqlite
      .prepare('SELECT id FROM bank_transactions WHERE deleted_at IS NULL ORDER BY id LIMIT 2')
      .pluck()
      .all() as string[];
    const flagged = () =>
      cache.sqlite.prepare('SELECT count(*) FROM review_marks WHERE flagged = 1').pluck().get() as number;

    // A colleague's file, with two flags in it: read only once picked to be imported.
    applyReview(cache, { by: 'ids', kind: 'transaction', ids }, { action: 'flag', reason: 'Ask' });
    const colleague = path.join(folder, 'colleague.json');
    await exportReviewFileInSlices(cache, { file: colleague }); // the command line's way: no pick needed
    cache.sqlite.prepare('DELETE FROM review_marks').run(); // as in a colleague's fresh cache
    expect(flagged()).toBe(0);
    const importing = () => dispatch(handlers, 'review.import', { profileId, file: colleague });
    expect(await importing()).toEqual(refusedFile(NOT_PICKED_TO_READ));
    await pickFile('reviewExport', colleague); // picked to be written, not read
    expect(await importing()).toEqual(refusedFile(NOT_PICKED_TO_READ));
    expect(flagged()).toBe(0);
    await pickFile('reviewImport', colleague);
    expect(await importing()).toMatchObject({ ok: true, value: { marks: 2 } });
    expect(flagged()).toBe(2);
    expect(await importing()).toEqual(refusedFile(NOT_PICKED_TO_READ));

    // Export: an unpicked file is not written (nor replaced); a picked one is, once.
    const mine = path.join(folder, 'mine.json');
    const exporting = (file: string) => dispatch(handlers, 'review.export', { profileId, file });
    expect(await exporting(mine)).toEqual(refusedFile(NOT_PICKED_TO_WRITE));
    expect(existsSync(mine)).toBe(false);
    const before = readFileSync(colleague, 'utf8');
    expect(await exporting(path.join(folder, 'other.json'))).toEqual(refusedFile(NOT_PICKED_TO_WRITE));
    expect(readFileSync(colleague, 'utf8')).toBe(before);
    await pickFile('reviewExport', mine);
    expect(await exporting(mine)).toMatchObject({ ok: true, value: { file: mine, marks: 2 } });
    expect(JSON.parse(readFileSync(mine, 'utf8'))).toMatchObject({ marks: expect.any(Array) as unknown });
    expect(await exporting(mine)).toEqual(refusedFile(NOT_PICKED_TO_WRITE));
  });

  it('downloads only into the folder picked; the last one is kept across a restart; a stored job resumes', async () => {
    const { core, secrets, handlers, profileId, pickFolder, askedFolders, dir } = await setup();
    const start = (destination: string, handlerTable = handlers) =>
      dispatch(handlerTable, 'downloads.start', { profileId, scope: { by: 'all' }, destination });
    const picked = tempDir();
    const elsewhere = tempDir();
    const missing = path.join(elsewhere, 'made by the page');

    // Nothing picked yet: refused, and nothing made or written.
    expect(await dispatch(handlers, 'downloads.defaultFolder', {})).toEqual({
      ok: true,
      value: { folder: null },
    });
    expect(await start(elsewhere)).toEqual(NOT_PICKED_FOLDER);
    expect(await start(missing)).toEqual(NOT_PICKED_FOLDER);
    expect(readdirSync(elsewhere)).toEqual([]);

    // Picked: that folder, exactly; not one inside it, not another.
    await pickFolder(picked);
    expect(await dispatch(handlers, 'downloads.defaultFolder', {})).toEqual({
      ok: true,
      value: { folder: picked },
    });
    const inside = path.join(picked, 'deeper');
    expect(await start(inside)).toEqual(NOT_PICKED_FOLDER);
    expect(existsSync(inside)).toBe(false);
    expect(await start(elsewhere)).toEqual(NOT_PICKED_FOLDER);
    const started = await start(`${picked}${path.sep}`);
    if (!started.ok) throw new Error(started.error.message);
    const first = (started.value as { job: { id: string; destination: string } }).job;
    expect(first.destination).toBe(picked);
    expect((await core.files.wait(profileId, first.id)).status).toBe('completed');
    expect(existsSync(path.join(picked, 'manifest.csv'))).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);

    // A download the command line started (no pick), paused before a quit.
    const fromCli = path.join(elsewhere, 'from the command line');
    const stored = await core.files.start(profileId, { scope: { by: 'all' }, destination: fromCli });
    core.files.pause(profileId, stored.job.id);
    expect((await core.files.wait(profileId, stored.job.id)).status).toBe('paused');
    await core.close();

    // After a restart on the same data folder, without a dialog: the folder picked last is
    // offered and taken, the dialog would open there, and the stored job goes on in its own folder.
    const restarted = createCore({
      dataDir: path.join(dir, 'data'),
      secrets,
      pickFolder: (request) => {
        askedFolders.push(request);
        return Promise.resolve(null);
      },
    });
    closers.push(() => restarted.close());
    const again = createHandlers(restarted);
    expect(await dispatch(again, 'downloads.defaultFolder', {})).toEqual({
      ok: true,
      value: { folder: picked },
    });
    expect(await start(elsewhere, again)).toEqual(NOT_PICKED_FOLDER);
    const second = await start(picked, again);
    expect(second).toMatchObject({ ok: true });
    expect(restarted.files.status(profileId, stored.job.id).status).toBe('paused');
    const resumed = await dispatch(again, 'downloads.resume', { profileId, jobId: stored.job.id });
    expect(resumed).toMatchObject({ ok: true, value: { destination: fromCli } });
    expect((await restarted.files.wait(profileId, stored.job.id)).status).toBe('completed');
    expect(existsSync(path.join(fromCli, 'manifest.csv'))).toBe(true);
    await dispatch(again, 'dialog.pickFolder', {});
    expect(askedFolders.at(-1)).toEqual({ title: 'Choose a folder for the downloads', defaultPath: picked });
  });
});
