import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors';
import type { EventPayload } from '../../src-shared/ipc';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { cacheExtension } from '../../src-main/files/template';
import { setLogSink } from '../../src-main/log';
import { connectedCore } from '../helpers/sync-fixture';
import { useImmutableFiles, useReadOnlyFolders } from '../helpers/read-only';
import { useTempDirs } from '../helpers/temp-dir';

// An offline copy that becomes read-only while the app runs, through the handler table the
// window uses (docs/store.md, "A copy that cannot be written").
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
// Declared after the temporary folders: undone before they are removed.
const makeReadOnly = useReadOnlyFolders();
const makeImmutable = useImmutableFiles();

async function syncedCopy() {
  const setup = await connectedCore(tempDir(), { transactions: 80 });
  cleanups.push(setup.close);
  const handlers = createHandlers(setup.core);
  const profileId = setup.profile.id;
  expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({
    ok: true,
    value: { outcome: 'succeeded' },
  });
  const file = setup.core.profiles.cacheFile(profileId);
  const ids = setup.core
    .cacheOf(profileId)
    .sqlite.prepare('SELECT id FROM bank_transactions ORDER BY id LIMIT 3')
    .pluck()
    .all() as string[];
  const note = (id: string | undefined, text: string) =>
    dispatch(handlers, 'review.apply', {
      profileId,
      target: { by: 'ids', kind: 'transaction', ids: [id ?? ''] },
      change: { action: 'setNote', note: text },
    });
  const notes = () =>
    setup.core
      .cacheOf(profileId)
      .sqlite.prepare('SELECT note FROM review_marks WHERE note IS NOT NULL ORDER BY note')
      .pluck()
      .all();
  return { ...setup, handlers, profileId, file, ids, note, notes };
}

/** The log's lines while the test runs (the lease left behind is said there). */
function logLines(): string[] {
  const lines: string[] = [];
  const before = setLogSink((_level, line) => lines.push(line));
  cleanups.push(async () => void setLogSink(before));
  return lines;
}

describe('a copy that becomes read-only while it is open', () => {
  it('keeps writing through a read-only mount put over its folder: the open file is not affected', async () => {
    const { core, handlers, profileId, file, ids, note, notes, sandbox } = await syncedCopy();
    expect(await note(ids[0], 'Before')).toMatchObject({ ok: true });
    // The kernel checks a read-only mount when a file is opened, not at each write: SQLite's open
    // file, its WAL and its -shm stay writable, and nothing the user does is lost.
    makeReadOnly(path.dirname(file));
    expect(await note(ids[1], 'After')).toMatchObject({ ok: true });
    expect(notes()).toEqual(['After', 'Before']);
    // Nor is a preview refused before its request (its record is written as the mark was).
    const receipt = sandbox.state.files[0];
    expect(await dispatch(handlers, 'files.fetch', { profileId, fileId: receipt?.id ?? '' })).toMatchObject({
      ok: true,
      value: { fileId: receipt?.id },
    });
    expect(
      core
        .cacheOf(profileId)
        .sqlite.prepare('SELECT local_path FROM expense_files WHERE id = ?')
        .pluck()
        .get(receipt?.id),
    ).not.toBeNull();
    expect(await dispatch(handlers, 'profiles.cacheStatus', { id: profileId })).toMatchObject({
      ok: true,
      value: { problem: null, readOnly: null },
    });
  });

  it('turns read-only at the first write refused, says so as the banner does, and loses nothing', async (context) => {
    const { core, handlers, profileId, file, ids, note, notes, sandbox } = await syncedCopy();
    expect(await note(ids[0], 'Before')).toMatchObject({ ok: true });
    expect(existsSync(`${file}-wal`)).toBe(true);
    const events: Array<EventPayload<'cache.readOnly'>> = [];
    const stop = core.events.subscribe((event, payload) => {
      if (event === 'cache.readOnly') events.push(payload as EventPayload<'cache.readOnly'>);
    });
    cleanups.push(async () => stop());
    // The file and its WAL made immutable while open: every write to them is refused from now on.
    const undo = makeImmutable([file, `${file}-wal`]);
    if (!undo) return context.skip();

    const message = `The offline copy of "Sandbox" is read-only: Satchel may not write to the file ${file} (its permissions or owner changed, or it is locked). You can search and read; sync, edits, review marks and downloads into the copy are off until ${file} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`;
    expect(await note(ids[1], 'Refused')).toEqual({ ok: false, error: { code: 'READ_ONLY', message } });
    // The window is told, and asks: the banner's words, with Check again.
    expect(events).toEqual([{ profileId }]);
    expect(await dispatch(handlers, 'profiles.cacheStatus', { id: profileId })).toEqual({
      ok: true,
      value: { problem: null, readOnly: { message, where: file } },
    });
    // Not taken for damage; what was written before still reads, searches too.
    expect(core.cacheProblem(profileId)).toBeNull();
    expect(notes()).toEqual(['Before']);
    expect(
      await dispatch(handlers, 'transactions.search', {
        profileId,
        search: { filters: {}, withTotals: true },
      }),
    ).toMatchObject({ ok: true, value: { totals: { count: 80 } } });
    // An edit is refused in the same words, before anything is sent.
    sandbox.control?.clearRequests();
    const supplier = sandbox.state.suppliers[2];
    expect(
      await dispatch(handlers, 'suppliers.update', {
        profileId,
        id: supplier?.id ?? '',
        input: { name: 'Never sent GmbH' },
      }),
    ).toEqual({ ok: false, error: { code: 'READ_ONLY', message } });

    // Fixed: Check again brings writing back, and the refused note can be made.
    undo();
    expect(await dispatch(handlers, 'profiles.recheckCache', { id: profileId })).toEqual({
      ok: true,
      value: { problem: null, readOnly: null },
    });
    expect(await note(ids[1], 'Refused')).toMatchObject({ ok: true });
    expect(notes()).toEqual(['Before', 'Refused']);
  });
});

describe('a sync of a copy that becomes read-only', () => {
  /** The copy made immutable; then what a sync, the banner and a search say. */
  async function syncRefused(when: 'before' | 'during') {
    const { core, handlers, profileId, file, notes, note, ids } = await syncedCopy();
    expect(await note(ids[0], 'Kept')).toMatchObject({ ok: true });
    const seen: string[] = [];
    const finished: Array<EventPayload<'sync.finished'>> = [];
    let undo: (() => void) | null = null;
    const stop = core.events.subscribe((event, payload) => {
      seen.push(event);
      if (event === 'sync.finished') finished.push(payload as EventPayload<'sync.finished'>);
      // The first page of this run stored: every write after it is refused (chattr is synchronous).
      if (when === 'during' && event === 'sync.progress' && !undo)
        if ((payload as EventPayload<'sync.progress'>).records > 0)
          undo = makeImmutable([file, `${file}-wal`]);
    });
    cleanups.push(async () => stop());
    if (when === 'before') undo = makeImmutable([file, `${file}-wal`]);
    if (process.getuid?.() !== 0) return null;
    // Before: the core itself, as the command line calls it (the window's door below would turn
    // a stray SQLite error into the same words). During: through that door.
    const answer =
      when === 'before'
        ? await core.sync.sync(profileId).then(
            (value) => ({ ok: true as const, value }),
            (error: unknown) => ({
              ok: false as const,
              error: {
                appError: error instanceof AppError,
                code: (error as { code?: unknown }).code,
                message: (error as Error).message,
              },
            }),
          )
        : await dispatch(handlers, 'sync.start', { profileId, full: true });
    expect(undo).not.toBeNull();
    const message = `The offline copy of "Sandbox" is read-only: Satchel may not write to the file ${file} (its permissions or owner changed, or it is locked). You can search and read; sync, edits, review marks and downloads into the copy are off until ${file} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`;
    // The run ends failed, in the banner's words (not the disk error's), once.
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({
      outcome: 'failed',
      errors: [{ resource: '', code: 'READ_ONLY', message }],
    });
    // Refused before its first page, the run could not be recorded and the call is refused; later,
    // the run ends failed with that error.
    if (when === 'before')
      expect(answer).toEqual({ ok: false, error: { appError: true, code: 'READ_ONLY', message } });
    else
      expect(answer).toMatchObject({ ok: true, value: { outcome: 'failed', errors: finished[0]?.errors } });
    // The window is told at once, as after a refused edit: the banner and Check again.
    expect(seen.filter((event) => event === 'cache.readOnly')).toHaveLength(1);
    expect(await dispatch(handlers, 'profiles.cacheStatus', { id: profileId })).toEqual({
      ok: true,
      value: { problem: null, readOnly: { message, where: file } },
    });
    // Nothing stored is lost: the note and every transaction still read and search.
    expect(core.cacheProblem(profileId)).toBeNull();
    expect(notes()).toEqual(['Kept']);
    expect(
      await dispatch(handlers, 'transactions.search', {
        profileId,
        search: { filters: {}, withTotals: true },
      }),
    ).toMatchObject({ ok: true, value: { totals: { count: 80 } } });
    // The next sync is refused at once, in the same words.
    expect(await dispatch(handlers, 'sync.start', { profileId })).toEqual({
      ok: false,
      error: { code: 'READ_ONLY', message },
    });
    return { handlers, profileId, undo: undo as unknown as () => void };
  }

  it('made read-only before Sync now: the sync says read-only and the copy turns read-only', async (context) => {
    const refused = await syncRefused('before');
    if (!refused) return context.skip();
    // Fixed: Check again, and the sync runs.
    refused.undo();
    await dispatch(refused.handlers, 'profiles.recheckCache', { id: refused.profileId });
    expect(await dispatch(refused.handlers, 'sync.start', { profileId: refused.profileId })).toMatchObject({
      ok: true,
      value: { outcome: 'succeeded' },
    });
  });

  it('made read-only while the sync stores pages: it stops in the same words, the copy turns read-only', async (context) => {
    const refused = await syncRefused('during');
    if (!refused) return context.skip();
  });
});

describe('a download into a copy that becomes read-only', () => {
  it('ends in the read-only words, the copy turns read-only, and the job resumes once it is fixed', async (context) => {
    const { core, handlers, profileId, file, sandbox } = await syncedCopy();
    const lines = logLines();
    const ids = sandbox.state.files.slice(0, 6).map((entry) => entry.id);
    const seen: string[] = [];
    let undo: (() => void) | null = null;
    const stop = core.events.subscribe((event, payload) => {
      seen.push(event);
      // At the job's first word of progress, before it records a file: every write of the run
      // from here on is refused (chattr is synchronous).
      if (event === 'downloads.progress' && !undo && (payload as { status: string }).status === 'running')
        undo = makeImmutable([file, `${file}-wal`]);
    });
    cleanups.push(async () => stop());
    if (process.getuid?.() !== 0) return context.skip();
    const destination = path.join(tempDir(), 'receipts');
    const { job } = await core.files.start(profileId, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });

    const ended = await core.files.wait(profileId, job.id);
    expect(undo).not.toBeNull();
    const message = `The offline copy of "Sandbox" is read-only: Satchel may not write to the file ${file} (its permissions or owner changed, or it is locked). You can search and read; sync, edits, review marks and downloads into the copy are off until ${file} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`;
    expect(ended.error).toBeInstanceOf(AppError);
    expect(ended.error).toMatchObject({ code: 'READ_ONLY', message });
    expect(seen.filter((event) => event === 'cache.readOnly')).toHaveLength(1);
    expect(await dispatch(handlers, 'profiles.cacheStatus', { id: profileId })).toEqual({
      ok: true,
      value: { problem: null, readOnly: { message, where: file } },
    });

    // Its run could not give its lease back: the row stays, and the log says why in plain words.
    const runRows = () =>
      core.cacheOf(profileId).sqlite.prepare('SELECT count(*) FROM download_runs').pluck().get() as number;
    expect(runRows()).toBe(1);
    expect(lines.filter((line) => line.includes('could not give its lease back'))).toEqual([]);
    expect(
      lines.filter((line) =>
        line.includes(
          `download ${job.id} left its lease in the offline copy, which cannot be written now (SQLITE_`,
        ),
      ),
    ).toHaveLength(1);

    // Fixed: Check again, and the job resumes at once (its lease taken over, not waited for) and
    // finishes, the files it fetched kept.
    (undo as unknown as () => void)();
    await dispatch(handlers, 'profiles.recheckCache', { id: profileId });
    await core.files.resume(profileId, job.id);
    expect(core.files.status(profileId, job.id)).toMatchObject({ active: true, elsewhere: false });
    expect((await core.files.wait(profileId, job.id)).status).toBe('completed');
    expect(core.files.status(profileId, job.id).files.done).toBe(6);
    expect(runRows()).toBe(0);
  });
});

describe('a keep-offline fill of a copy that becomes read-only', () => {
  it('stops at its first refused write, turns the copy read-only, and fills again once it is fixed', async (context) => {
    const { core, handlers, profileId, file, sandbox } = await syncedCopy();
    const control = sandbox.control!;
    const lines = logLines();
    const contentRequests = () => control.requests('getFileContent').length;
    const recorded = () =>
      core
        .cacheOf(profileId)
        .sqlite.prepare('SELECT count(*) FROM expense_files WHERE local_path IS NOT NULL')
        .pluck()
        .get() as number;
    const leaseRows = () =>
      core
        .cacheOf(profileId)
        .sqlite.prepare('SELECT count(*) FROM offline_fill_lease')
        .pluck()
        .get() as number;
    const wanted = sandbox.state.files.length;
    expect(wanted).toBeGreaterThan(12);
    // Slow enough that the fill is still fetching when the copy is made immutable.
    control.addFault({ match: 'getFileContent', latencyMs: 150 });
    core.files.setOfflineScope(profileId, { mode: 'all', budgetBytes: 1_000_000_000 });
    const seen: string[] = [];
    let undo: (() => void) | null = null;
    let before = 0;
    const stop = core.events.subscribe((event, payload) => {
      seen.push(event);
      // The fill's first word of files put in place: every write from here on is refused.
      const { fetched, filling } = payload as EventPayload<'files.offline'>;
      if (event === 'files.offline' && filling && fetched > 0 && !undo) {
        before = recorded();
        undo = makeImmutable([file, `${file}-wal`]);
      }
    });
    cleanups.push(async () => stop());
    if (process.getuid?.() !== 0) return context.skip();

    const ended = await core.files.fillOffline(profileId).then(
      () => null,
      (error: unknown) => error,
    );
    expect(undo).not.toBeNull();
    const message = `The offline copy of "Sandbox" is read-only: Satchel may not write to the file ${file} (its permissions or owner changed, or it is locked). You can search and read; sync, edits, review marks and downloads into the copy are off until ${file} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`;
    // The fill ends in the read-only words, and the window is told at once (the banner).
    expect(ended).toBeInstanceOf(AppError);
    expect(ended).toMatchObject({ code: 'READ_ONLY', message });
    expect(seen.filter((event) => event === 'cache.readOnly')).toHaveLength(1);
    expect(await dispatch(handlers, 'profiles.cacheStatus', { id: profileId })).toEqual({
      ok: true,
      value: { problem: null, readOnly: { message, where: file } },
    });
    // Stopped: not filling, its end said with the usage, and no file asked for after it (nor
    // every file fetched only to have its record refused).
    expect(core.files.offlineScope(profileId)).toMatchObject({
      filling: false,
      lastFill: { problem: message },
    });
    const asked = contentRequests();
    expect(asked).toBeLessThan(wanted);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(contentRequests()).toBe(asked);
    // Nothing lost: the copies recorded before still are. Another fill is refused at once.
    expect(before).toBeGreaterThan(0);
    expect(recorded()).toBe(before);
    await expect(core.files.fillOffline(profileId)).rejects.toMatchObject({ code: 'READ_ONLY', message });
    // Its lease could not be given back, and the log says why in plain words.
    expect(leaseRows()).toBe(1);
    expect(lines.filter((line) => line.includes('could not give its lease back'))).toEqual([]);
    expect(
      lines.filter((line) =>
        line.includes(
          'the offline fill left its lease in the offline copy, which cannot be written now (SQLITE_',
        ),
      ),
    ).toHaveLength(1);

    // Fixed: Check again, and the next fill takes its lease over at once and brings in the rest.
    (undo as unknown as () => void)();
    await dispatch(handlers, 'profiles.recheckCache', { id: profileId });
    control.clearFaults();
    const again = await core.files.fillOffline(profileId);
    expect(again.elsewhere).toBeUndefined();
    expect(again.failed).toBe(0);
    expect(recorded()).toBe(wanted);
    expect(leaseRows()).toBe(0);
  });
});

describe('a preview that fetches into a copy that becomes read-only', () => {
  it('turns the copy read-only at its refused record, ends in the read-only words, and works after Check again', async (context) => {
    const { core, handlers, profileId, file, sandbox } = await syncedCopy();
    const [shown, fetched] = sandbox.state.files;
    if (!shown || !fetched) throw new Error('the sandbox has too few files');
    const preview = (fileId: string) => dispatch(handlers, 'files.fetch', { profileId, fileId });
    const recorded = (fileId: string) =>
      core
        .cacheOf(profileId)
        .sqlite.prepare('SELECT local_path FROM expense_files WHERE id = ?')
        .pluck()
        .get(fileId) as string | null;
    // One receipt looked at before: kept on this computer.
    const before = await preview(shown.id);
    expect(before).toMatchObject({ ok: true, value: { fileId: shown.id } });
    expect(recorded(shown.id)).not.toBeNull();
    const seen: string[] = [];
    const stop = core.events.subscribe((event) => seen.push(event));
    cleanups.push(async () => stop());
    const undo = makeImmutable([file, `${file}-wal`]);
    if (!undo) return context.skip();

    // Another, not on this computer yet: refused before its request, as the copy's file the
    // record would be written to refuses writes now (the WAL is immutable), nothing saved.
    const message = `The offline copy of "Sandbox" is read-only: Satchel may not write to the file ${file} (its permissions or owner changed, or it is locked). You can search and read; sync, edits, review marks and downloads into the copy are off until ${file} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`;
    const contentRequests = () => sandbox.control?.requests('getFileContent').length;
    const asked = contentRequests();
    expect(await preview(fetched.id)).toEqual({ ok: false, error: { code: 'READ_ONLY', message } });
    expect(contentRequests()).toBe(asked);
    expect(
      readdirSync(core.files.filesRoot(profileId)).filter((name) => name.startsWith(fetched.id)),
    ).toEqual([]);
    // The window is told at once (the banner), as after a refused edit, once.
    expect(seen.filter((event) => event === 'cache.readOnly')).toHaveLength(1);
    expect(await dispatch(handlers, 'profiles.cacheStatus', { id: profileId })).toEqual({
      ok: true,
      value: { problem: null, readOnly: { message, where: file } },
    });
    // The receipt already on this computer is still shown (a read); the other is refused alike.
    expect(await preview(shown.id)).toEqual(before);
    expect(await preview(fetched.id)).toEqual({ ok: false, error: { code: 'READ_ONLY', message } });
    expect(contentRequests()).toBe(asked);
    expect(seen.filter((event) => event === 'cache.readOnly')).toHaveLength(1);
    expect(recorded(fetched.id)).toBeNull();

    // Fixed: Check again, and the preview is fetched, recorded and shown.
    undo();
    await dispatch(handlers, 'profiles.recheckCache', { id: profileId });
    expect(await preview(fetched.id)).toMatchObject({ ok: true, value: { fileId: fetched.id } });
    expect(recorded(fetched.id)).not.toBeNull();
    expect(contentRequests()).toBe((asked ?? 0) + 1);
  });

  it('refuses a preview before its request when the folder of its receipts refuses writes, and fetches it after Check again', async (context) => {
    const { core, handlers, profileId, sandbox } = await syncedCopy();
    const [shown, fetched] = sandbox.state.files;
    if (!shown || !fetched) throw new Error('the sandbox has too few files');
    const preview = (fileId: string) => dispatch(handlers, 'files.fetch', { profileId, fileId });
    // The folder exists once a receipt was kept on this computer.
    expect(await preview(shown.id)).toMatchObject({ ok: true, value: { fileId: shown.id } });
    const root = core.files.filesRoot(profileId);
    // Made immutable while Satchel runs: no file can be made in it (the `.part` neither).
    const undo = makeImmutable([root]);
    if (!undo) return context.skip();

    const contentRequests = () => sandbox.control?.requests('getFileContent').length;
    const asked = contentRequests();
    const refused = await preview(fetched.id);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY', message: expect.stringContaining(`the folder ${root}`) },
    });
    expect(contentRequests()).toBe(asked);
    expect(readdirSync(root).filter((name) => name.startsWith(fetched.id))).toEqual([]);
    expect(await dispatch(handlers, 'profiles.cacheStatus', { id: profileId })).toMatchObject({
      ok: true,
      value: { readOnly: { message: (refused as { error: { message: string } }).error.message } },
    });

    undo();
    await dispatch(handlers, 'profiles.recheckCache', { id: profileId });
    expect(await preview(fetched.id)).toMatchObject({ ok: true, value: { fileId: fetched.id } });
    expect(contentRequests()).toBe((asked ?? 0) + 1);
  });

  it('keeps a receipt whose record was refused mid-fetch, and shows it after Check again without a request', async (context) => {
    const { core, handlers, profileId, file, sandbox } = await syncedCopy();
    const control = sandbox.control!;
    const [saved, damaged] = sandbox.state.files;
    if (!saved || !damaged) throw new Error('the sandbox has too few files');
    const preview = (fileId: string) => dispatch(handlers, 'files.fetch', { profileId, fileId });
    const contentRequests = () => control.requests('getFileContent').length;
    const record = (fileId: string) =>
      core
        .cacheOf(profileId)
        .sqlite.prepare(
          'SELECT name, mime_type AS mimeType, size, sha256, local_path AS localPath FROM expense_files WHERE id = ?',
        )
        .get(fileId) as {
        name: string | null;
        mimeType: string | null;
        size: number;
        sha256: string;
        localPath: string | null;
      };
    const root = core.files.filesRoot(profileId);
    const inFolder = (fileId: string) => readdirSync(root).filter((name) => name.startsWith(`${fileId}.`));
    if (process.getuid?.() !== 0) return context.skip();

    // The copy turns read-only while the receipt is on its way: its bytes are put in the folder,
    // its record refused.
    control.addFault({ match: 'getFileContent', latencyMs: 400 });
    const asked = contentRequests();
    const refused = preview(saved.id);
    while (contentRequests() === asked) await new Promise((resolve) => setTimeout(resolve, 10));
    const undo = makeImmutable([file, `${file}-wal`]);
    expect(await refused).toMatchObject({ ok: false, error: { code: 'READ_ONLY' } });
    const savedName = `${saved.id}${cacheExtension(record(saved.id).name, record(saved.id).mimeType)}`;
    expect(inFolder(saved.id)).toEqual([savedName]);
    expect(record(saved.id).localPath).toBeNull();
    // Another receipt's unrecorded copy whose bytes are not the record's (same size): never taken.
    const damagedRecord = record(damaged.id);
    const damagedName = `${damaged.id}${cacheExtension(damagedRecord.name, damagedRecord.mimeType)}`;
    writeFileSync(path.join(root, damagedName), Buffer.alloc(damagedRecord.size, 0x78));

    // Check again: the saved receipt is taken as it is (size and sha256 are its record's), with
    // no request; the damaged one is fetched again.
    undo?.();
    await dispatch(handlers, 'profiles.recheckCache', { id: profileId });
    control.clearFaults();
    control.clearRequests();
    expect(await preview(saved.id)).toMatchObject({ ok: true, value: { fileId: saved.id } });
    expect(contentRequests()).toBe(0);
    expect(record(saved.id).localPath).toBe(savedName);
    expect(await preview(damaged.id)).toMatchObject({ ok: true, value: { fileId: damaged.id } });
    expect(control.requests('getFileContent').map((entry) => entry.path)).toEqual([
      expect.stringContaining(damaged.id),
    ]);
    expect(record(damaged.id).localPath).toBe(damagedName);
    const bytes = readFileSync(path.join(root, damagedName));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(damagedRecord.sha256);
  });
});
