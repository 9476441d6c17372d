import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import { partialFolder } from '../../../src-main/files/folder';
import { resolveFileRoute } from '../../../src-main/shell/file-route';
import type { DownloadProgress } from '../../../src-shared/files';
import { fixedFolderDialog } from '../../helpers/dialogs';
import { connectedCore } from '../../helpers/sync-fixture';
import { contentRequests, listFiles, readManifest, sha256Of } from '../../helpers/files';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// Pause, resume and cancel through the IPC handler table; progress events; the offline file
// cache (preview fetch, keep-offline scope within a budget) and copies from it into a download.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function synced(options: { readLimit?: number } = {}) {
  const dir = tempDir();
  // The folder dialog, answered with <dir>/out (made as the user would make it in the dialog):
  // `downloads.start` writes only into a folder picked there.
  const fixture = await connectedCore(
    dir,
    { readLimit: options.readLimit ?? 100_000 },
    { pickFolder: fixedFolderDialog(path.join(dir, 'out')) },
  );
  closers.push(() => fixture.close());
  expect((await fixture.core.sync.sync(fixture.profile.id)).outcome).toBe('succeeded');
  fixture.sandbox.control?.clearRequests();
  return { ...fixture, dir, handlers: createHandlers(fixture.core) };
}

describe('download control', () => {
  it('pauses, resumes and reports progress; a paused file is continued, a finished one never fetched again', async () => {
    const { core, profile, sandbox, dir, handlers } = await synced();
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 20 });
    const events: DownloadProgress[] = [];
    core.events.subscribe((event, payload) => {
      if (event === 'downloads.progress') events.push(payload as DownloadProgress);
    });
    const destination = path.join(dir, 'out');
    expect(await dispatch(handlers, 'dialog.pickFolder', {})).toEqual({
      ok: true,
      value: { folder: destination },
    });
    const started = await dispatch(handlers, 'downloads.start', {
      profileId: profile.id,
      scope: { by: 'all' },
      destination,
      layout: 'month',
    });
    if (!started.ok) throw new Error(started.error.message);
    const jobId = (started.value as { job: { id: string } }).job.id;
    await until(() => (events.at(-1)?.files.done ?? 0) >= 60);

    const paused = await dispatch(handlers, 'downloads.pause', { profileId: profile.id, jobId });
    expect(paused.ok).toBe(true);
    expect((await core.files.wait(profile.id, jobId)).status).toBe('paused');
    const atPause = core.files.status(profile.id, jobId);
    expect(atPause).toMatchObject({ status: 'paused', active: false });
    expect(atPause.files.pending).toBeGreaterThan(0);
    expect(events.at(-1)?.status).toBe('paused');
    const doneAtPause = new Set(listFiles(destination).filter((name) => !name.startsWith('.')));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(core.files.status(profile.id, jobId).files.done).toBe(atPause.files.done); // really stopped

    sandbox.control?.clearRequests();
    const resumed = await dispatch(handlers, 'downloads.resume', { profileId: profile.id, jobId });
    expect(resumed.ok).toBe(true);
    expect((await core.files.wait(profile.id, jobId)).status).toBe('completed');
    const final = core.files.status(profile.id, jobId);
    expect(final.files).toMatchObject({ done: final.files.total, failed: 0 });
    const manifest = readManifest(path.join(destination, 'manifest.csv'));
    const requested = contentRequests(sandbox);
    for (const row of manifest)
      if (doneAtPause.has(row['file'] ?? '')) expect(requested.has(row['file_id'] ?? '')).toBe(false);

    // Progress: files and bytes never go backwards while running, and the last event is the end.
    const running = events.filter((event) => event.jobId === jobId && event.status === 'running');
    for (let i = 1; i < running.length; i += 1) {
      expect(running[i]!.files.done).toBeGreaterThanOrEqual(running[i - 1]!.files.done);
    }
    expect(running.some((event) => event.bytesPerSecond > 0)).toBe(true);
    expect(running.some((event) => event.etaSeconds !== null && event.etaSeconds > 0)).toBe(true);
    expect(events.at(-1)).toMatchObject({ status: 'completed', etaSeconds: 0 });
    const status = await dispatch(handlers, 'downloads.status', { profileId: profile.id });
    expect(status.ok && (status.value as { jobs: unknown[] }).jobs).toHaveLength(1);
  });

  it('reports files put in place even when the job goes quiet right after', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const ids = sandbox.state.files.slice(0, 20).map((file) => file.id);
    // One file answers late; the other 19 arrive at once and are put in place as one batch, the
    // last thing that happens for seconds: their count has to reach the listener meanwhile.
    sandbox.control?.addFault({ match: `/v1/files/${ids[0]}/content`, latencyMs: 5_000 });
    const events: DownloadProgress[] = [];
    core.events.subscribe((event, payload) => {
      if (event === 'downloads.progress') events.push(payload as DownloadProgress);
    });
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    const placed = () => listFiles(destination).filter((name) => !name.startsWith('.')).length;
    await until(() => placed() === 19);
    // Longer than the interval between progress events (200 ms), far shorter than the late answer.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(contentRequests(sandbox).get(ids[0]!)).toBe(1);
    expect(core.files.status(profile.id, job.id).files.pending).toBe(1); // still waiting for it
    const last = events.filter((event) => event.jobId === job.id).at(-1);
    expect(last).toMatchObject({ status: 'running', files: { done: 19, pending: 1 } });

    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    expect(events.at(-1)).toMatchObject({ status: 'completed', files: { done: 20, pending: 0 } });
  });

  it("pauses at once while the session's first token request is still out", async () => {
    const { core, profile, sandbox, dir, secrets } = await synced();
    // A second start of the app on the same data: its client has no token yet. The token answers
    // late; the first file request waits for it, holding the permit the other workers wait on
    // to learn their bucket.
    await core.close();
    const again = createCore({ dataDir: path.join(dir, 'data'), secrets });
    closers.push(() => again.close());
    const slowToken = sandbox.control!.addFault({ match: 'issueToken', latencyMs: 5_000 });
    const { job } = await again.files.start(profile.id, {
      scope: { by: 'all' },
      destination: path.join(dir, 'out'),
    });
    await until(() => sandbox.control!.faultFired(slowToken) > 0);
    again.files.pause(profile.id, job.id);
    const stopped = await Promise.race([
      again.files.wait(profile.id, job.id),
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 4_000)),
    ]);
    expect(stopped).toMatchObject({ status: 'paused' });
    expect(contentRequests(sandbox).size).toBe(0);

    sandbox.control?.clearFaults();
    again.files.resume(profile.id, job.id);
    expect((await again.files.wait(profile.id, job.id)).status).toBe('completed');
  });

  it('cancels: partial files are removed, finished files and the manifest stay', async () => {
    const { core, profile, sandbox, dir } = await synced();
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 30 });
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, { scope: { by: 'all' }, destination });
    await until(() => core.files.status(profile.id, job.id).files.done >= 20);
    const cancelled = await core.files.cancel(profile.id, job.id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.files.pending).toBeGreaterThan(0);
    expect(existsSync(partialFolder(destination, job.id))).toBe(false);
    const rows = readManifest(path.join(destination, 'manifest.csv'));
    const done = rows.filter((row) => row['status'] === 'done');
    expect(done.length).toBe(cancelled.files.done);
    for (const row of done) expect(sha256Of(path.join(destination, row['file'] ?? ''))).toBe(row['sha256']);
    expect(listFiles(destination)).toHaveLength(done.length + 1);
    expect(() => core.files.resume(profile.id, job.id)).toThrow(/cancelled/);
  });

  it('fetches a file for preview once, behind a route confined to the organisation', async () => {
    const { core, profile, sandbox } = await synced();
    const file = sandbox.state.files.find((f) => f.mimeType === 'application/pdf')!;
    const first = await core.files.fetch(profile.id, file.id);
    expect(first).toMatchObject({
      fileId: file.id,
      mimeType: 'application/pdf',
      url: `satchel-file://${profile.id}/${file.id}.pdf`,
    });
    const again = await core.files.fetch(profile.id, file.id);
    expect(again).toEqual(first);
    expect(contentRequests(sandbox).get(file.id)).toBe(1);
    const route = resolveFileRoute(first.url, {
      filesRoot: (id) => core.files.filesRoot(id),
      allowed: (id) => id === profile.id,
    });
    if (!route.ok) throw new Error(route.reason);
    expect(route.path).toBe(path.join(core.files.filesRoot(profile.id), `${file.id}.pdf`));
    expect(sha256Of(route.path)).toBe(sandbox.state.fileRecord(file).sha256);
  });

  it('serves a kept copy under the extension of the type the record has now', async () => {
    const { core, profile, sandbox } = await synced();
    const file = sandbox.state.files.find((f) => f.mimeType === 'application/pdf')!;
    const { sqlite } = core.cacheOf(profile.id);
    // Synced first without a type or a usable name: the copy is kept as .bin.
    sqlite.prepare(`UPDATE expense_files SET mime_type = NULL, name = 'scan' WHERE id = ?`).run(file.id);
    const first = await core.files.fetch(profile.id, file.id);
    expect(first.url).toBe(`satchel-file://${profile.id}/${file.id}.bin`);
    // A later sync learns the type; the bytes (and their hash) are the same.
    sqlite.prepare(`UPDATE expense_files SET mime_type = 'application/pdf' WHERE id = ?`).run(file.id);
    const again = await core.files.fetch(profile.id, file.id);
    expect(again.url).toBe(`satchel-file://${profile.id}/${file.id}.pdf`);
    const route = resolveFileRoute(again.url, {
      filesRoot: (id) => core.files.filesRoot(id),
      allowed: (id) => id === profile.id,
    });
    if (!route.ok) throw new Error(route.reason);
    expect(sha256Of(route.path)).toBe(sandbox.state.fileRecord(file).sha256);
    expect(existsSync(path.join(core.files.filesRoot(profile.id), `${file.id}.bin`))).toBe(false);
    expect(contentRequests(sandbox).get(file.id)).toBe(1);
  });

  it('keeps the recent files offline within the budget, and a download copies them instead of fetching', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const all = core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes: 2 ** 40 });
    const budget = 60_000; // about a hundred receipts, far fewer than the organisation has
    expect(all.wantedFiles).toBe(sandbox.state.files.length);
    core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: budget });
    const fill = await core.files.fillOffline(profile.id);
    expect(fill.failed).toBe(0);
    const usage = core.files.offlineScope(profile.id);
    expect(usage.cachedBytes).toBeLessThanOrEqual(budget);
    expect(usage.cachedFiles).toBe(fill.fetched);
    expect(usage.wantedCached).toBe(usage.wantedFiles);
    expect(usage.cachedFiles).toBeGreaterThan(50);
    expect(usage.cachedFiles).toBeLessThan(sandbox.state.files.length);
    // The newest files are the ones kept.
    const cache = core.cacheOf(profile.id).sqlite;
    const newestUncached = cache
      .prepare(
        `SELECT max(e.expense_time) FROM expense_files f JOIN expenses e ON e.id = f.expense_id WHERE f.local_path IS NULL`,
      )
      .pluck()
      .get() as string;
    const oldestCached = cache
      .prepare(
        `SELECT min(e.expense_time) FROM expense_files f JOIN expenses e ON e.id = f.expense_id WHERE f.local_path IS NOT NULL`,
      )
      .pluck()
      .get() as string;
    expect(oldestCached.slice(0, 7) >= newestUncached.slice(0, 7)).toBe(true);

    // A smaller budget evicts; a second fill with nothing missing fetches nothing.
    sandbox.control?.clearRequests();
    core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: budget / 2 });
    const smaller = await core.files.fillOffline(profile.id);
    expect(smaller.fetched).toBe(0);
    expect(core.files.offlineScope(profile.id).cachedBytes).toBeLessThanOrEqual(budget / 2 + 1000);
    expect(contentRequests(sandbox).size).toBe(0);

    const cached = cache
      .prepare(`SELECT id FROM expense_files WHERE local_path IS NOT NULL`)
      .pluck()
      .all() as string[];
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'all' },
      destination: path.join(dir, 'out'),
    });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    const status = core.files.status(profile.id, job.id);
    expect(status.files.copied).toBe(cached.length);
    expect(status.files.fetched).toBe(status.files.total - cached.length);
    const requested = contentRequests(sandbox);
    for (const id of cached) expect(requested.has(id)).toBe(false);
  });

  it('fills the offline cache past a file whose body was cut, and tries it again next time', async () => {
    const { core, profile, sandbox } = await synced();
    core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: 30_000 });
    expect((await core.files.fillOffline(profile.id)).fetched).toBeGreaterThan(20);
    const [cut] = core
      .cacheOf(profile.id)
      .sqlite.prepare(`SELECT id, local_path AS localPath FROM expense_files WHERE local_path IS NOT NULL`)
      .all() as Array<{ id: string; localPath: string }>;
    rmSync(path.join(core.files.filesRoot(profile.id), cut!.localPath));
    // Its body stops after 10 bytes at each of the fill's three attempts: that file fails, the
    // others stay kept.
    sandbox.control?.addFault({ match: `/v1/files/${cut!.id}/content`, truncateBodyAt: 10, times: 3 });
    const first = await core.files.fillOffline(profile.id);
    expect(first).toMatchObject({ fetched: 0, failed: 1 });
    const usage = core.files.offlineScope(profile.id);
    expect(usage.wantedCached).toBe(usage.wantedFiles - 1);
    const again = await core.files.fillOffline(profile.id);
    expect(again).toMatchObject({ fetched: 1, failed: 0 });
    expect(core.files.offlineScope(profile.id).wantedCached).toBe(usage.wantedFiles);
  });

  it('answers a new keep-offline scope with its fill already running', async () => {
    const { profile, handlers, core } = await synced();
    const answer = await dispatch(handlers, 'files.offlineScope.set', {
      profileId: profile.id,
      scope: { mode: 'all' },
    });
    expect(answer).toMatchObject({ ok: true, value: { filling: true, scope: { mode: 'all' } } });
    const fill = await core.files.fillOffline(profile.id); // joins the running fill
    expect(fill.failed).toBe(0);
    expect(core.files.offlineScope(profile.id)).toMatchObject({ filling: false });
  });

  it('names the field at fault of a download request the core refuses', async () => {
    const { core, profile, dir } = await synced();
    await expect(
      core.files.start(profile.id, { scope: { by: 'all' }, destination: dir, template: '{nope}' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'template' });
    // A destination that cannot be a folder says why, in words.
    const file = path.join(dir, 'receipts.pdf');
    writeFileSync(file, 'not a folder');
    await expect(
      core.files.start(profile.id, { scope: { by: 'all' }, destination: file }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'destination',
      message: `Satchel cannot create the folder ${file}: a file of that name is in the way.`,
    });
    await expect(
      core.files.start(profile.id, { scope: { by: 'all' }, destination: path.join(file, '2025') }),
    ).rejects.toMatchObject({
      message: expect.stringContaining(': part of the path is a file, not a folder.'),
    });
  });
  it("opens only a download's own folder, through the shell's function", async () => {
    const dir = tempDir();
    const fixture = await connectedCore(dir, { readLimit: 100_000 });
    closers.push(() => fixture.close());
    const { sandbox, profile, secrets } = fixture;
    await fixture.core.close();
    const opened: string[] = [];
    // The shell's shell.openPath: the empty string once shown.
    const core = createCore({
      dataDir: path.join(dir, 'data'),
      secrets,
      openFolder: (folder) => {
        opened.push(folder);
        return Promise.resolve('');
      },
    });
    closers.push(() => core.close());
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const handlers = createHandlers(core);
    const destination = path.join(dir, 'Audit 2026');
    const ids = sandbox.state.files.slice(0, 3).map((file) => file.id);
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    await core.files.wait(profile.id, job.id);
    expect(core.files.status(profile.id, job.id).folderExists).toBe(true);

    const ref = { profileId: profile.id, jobId: job.id };
    expect(await dispatch(handlers, 'downloads.openFolder', ref)).toEqual({
      ok: true,
      value: { opened: true },
    });
    expect(opened).toEqual([destination]);
    // The page names a job, never a path.
    const withPath = await dispatch(handlers, 'downloads.openFolder', { ...ref, folder: '/etc' });
    expect(withPath).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    const unknown = await dispatch(handlers, 'downloads.openFolder', {
      profileId: profile.id,
      jobId: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // A folder gone is said as such, and the shell is not asked.
    rmSync(destination, { recursive: true });
    expect(core.files.status(profile.id, job.id).folderExists).toBe(false);
    expect(await dispatch(handlers, 'downloads.openFolder', ref)).toMatchObject({
      ok: false,
      error: {
        code: 'NOT_FOUND',
        message: `The folder ${destination} is no longer there: it was moved, renamed or deleted.`,
      },
    });
    expect(opened).toEqual([destination]);
  });
});
