import { existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { partialFolder } from '../../../src-main/files/folder';
import { reservedPaths } from '../../../src-main/files/queue';
import { scopedFiles } from '../../../src-main/files/scope';
import { renderFileName } from '../../../src-main/files/template';
import { AppError } from '../../../src-shared/errors';
import type { DownloadProgress } from '../../../src-shared/files';
import { contentRequests, listFiles, readManifest, sandboxFile, sha256Of } from '../../helpers/files';
import { syncedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// What a download job does around its run: cancelled while it is not running, a failed file
// retried while the job still runs, downloads into one folder (names kept only while a job may
// still write them), why it stopped by itself, a request refused before anything is made on
// disk, and a job an earlier version left marked completed with files not downloaded.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const synced = () => syncedCore(tempDir(), closers);

describe('download jobs', () => {
  it('writes the manifest of a download cancelled while paused or while waiting its turn', async () => {
    const { core, profile, sandbox, dir } = await synced();
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 200 });
    const ids = sandbox.state.files.slice(0, 60).map((file) => file.id);
    const first = path.join(dir, 'first');
    const second = path.join(dir, 'second');
    const a = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination: first,
    });
    // Waits behind the first: the organisation runs one download at a time.
    const b = await core.files.start(profile.id, { scope: { by: 'all' }, destination: second });
    expect(core.files.status(profile.id, b.job.id)).toMatchObject({ status: 'pending', active: true });
    await until(() => core.files.status(profile.id, a.job.id).files.done >= 10);

    core.files.pause(profile.id, a.job.id);
    expect((await core.files.wait(profile.id, a.job.id)).status).toBe('paused');
    const cancelled = await core.files.cancel(profile.id, a.job.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', manifest: 'manifest.csv' });
    const rows = readManifest(path.join(first, 'manifest.csv'));
    expect(rows).toHaveLength(ids.length);
    const done = rows.filter((row) => row['status'] === 'done');
    expect(done).toHaveLength(cancelled.files.done);
    expect(rows.filter((row) => row['status'] === 'pending')).toHaveLength(cancelled.files.pending);
    for (const row of done)
      expect(sha256Of(path.join(first, row['file'] ?? ''))).toBe(
        sandboxFile(sandbox, row['file_id'] ?? '').sha256,
      );
    expect(existsSync(partialFolder(first, a.job.id))).toBe(false);

    // The second started when the first stopped; paused before its first file, then cancelled.
    core.files.pause(profile.id, b.job.id);
    await core.files.wait(profile.id, b.job.id);
    await core.files.cancel(profile.id, b.job.id);
    expect(readManifest(path.join(second, 'manifest.csv')).length).toBe(b.job.files.total);
    expect(existsSync(partialFolder(second, b.job.id))).toBe(false);

    // A third, cancelled while it still waits behind a fourth that runs.
    const c = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination: path.join(dir, 'c'),
    });
    const d = await core.files.start(profile.id, { scope: { by: 'all' }, destination: path.join(dir, 'd') });
    expect((await core.files.cancel(profile.id, d.job.id)).status).toBe('cancelled');
    expect(readManifest(path.join(dir, 'd', 'manifest.csv'))).toHaveLength(d.job.files.total);
    await core.files.cancel(profile.id, c.job.id);
  });

  it('retries a failed file asked for while the job still runs', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const ids = sandbox.state.files.slice(0, 80).map((file) => file.id);
    const failing = scopedFiles(core.cacheOf(profile.id), { by: 'ids', kind: 'file', ids })[0]!.fileId;
    // The first file of the job arrives damaged three times (all its attempts) and fails
    // soon; the others are slow.
    sandbox.control?.addFault({ match: `/v1/files/${failing}/content`, corruptBody: true, times: 3 });
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 400 });
    const events: DownloadProgress[] = [];
    core.events.subscribe((event, payload) => {
      if (event === 'downloads.progress') events.push(payload as DownloadProgress);
    });
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    await until(() => core.files.status(profile.id, job.id).errors.length === 1);
    expect(core.files.status(profile.id, job.id)).toMatchObject({ status: 'running', active: true });

    const retried = core.files.retry(profile.id, job.id, [failing]);
    expect(retried.errors).toEqual([]);
    expect(retried.files.failed).toBe(0);
    await until(
      () =>
        core.files.status(profile.id, job.id).status === 'completed' &&
        !core.files.status(profile.id, job.id).active,
      'the job to end',
      60_000,
    );
    const final = core.files.status(profile.id, job.id);
    expect(final.files).toMatchObject({ total: ids.length, done: ids.length, failed: 0, pending: 0 });
    const row = readManifest(path.join(destination, 'manifest.csv')).find(
      (entry) => entry['file_id'] === failing,
    );
    expect(row?.['status']).toBe('done');
    expect(sha256Of(path.join(destination, row?.['file'] ?? ''))).toBe(sandboxFile(sandbox, failing).sha256);
  });

  it('gives a download queued into the folder of an unfinished one names of its own', async () => {
    const { core, profile, sandbox, dir } = await synced();
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 100 });
    const all = sandbox.state.files.map((file) => file.id);
    const firstIds = all.slice(0, 30);
    const secondIds = all.slice(20, 60); // ten files in both
    const destination = path.join(dir, 'Audit');
    // One name for every file, numbered: the two jobs would both start at "EUR.pdf".
    const request = { destination, template: 'receipt {currency}' } as const;
    const first = await core.files.start(profile.id, {
      ...request,
      scope: { by: 'ids', kind: 'file', ids: firstIds },
    });
    const second = await core.files.start(profile.id, {
      ...request,
      scope: { by: 'ids', kind: 'file', ids: secondIds },
    });
    expect((await core.files.wait(profile.id, first.job.id)).status).toBe('completed');
    expect((await core.files.wait(profile.id, second.job.id)).status).toBe('completed');
    for (const job of [first.job, second.job]) {
      const status = core.files.status(profile.id, job.id);
      expect(status.errors).toEqual([]);
      expect(status.files).toMatchObject({ done: job.files.total, failed: 0 });
    }
    // Each job's files under names of their own (numbered names depend on a job's own files, so
    // the ten in both may be there twice, as when the second ran after the first had finished).
    const onDisk = listFiles(destination).filter((name) => !name.startsWith('manifest'));
    expect(onDisk).toHaveLength(firstIds.length + secondIds.length);
    const manifest = readManifest(path.join(destination, 'manifest.csv'));
    expect(manifest).toHaveLength(secondIds.length);
    for (const row of manifest)
      expect(sha256Of(path.join(destination, row['file'] ?? ''))).toBe(
        sandboxFile(sandbox, row['file_id'] ?? '').sha256,
      );
  });

  it('frees the name of a failed file once a later download into the folder brought it', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const template = 'receipt {currency}';
    // Two files the template names alike ("receipt EUR.pdf"): the first takes the plain name.
    const byName = new Map<string, string[]>();
    for (const file of scopedFiles(core.cacheOf(profile.id), { by: 'all' })) {
      const name = renderFileName(template, file);
      byName.set(name, [...(byName.get(name) ?? []), file.fileId]);
    }
    const [name, [failing, other]] = [...byName].find(([, ids]) => ids.length >= 2) as [
      string,
      [string, string],
    ];
    const destination = path.join(dir, 'Audit');
    const reserved = () => reservedPaths(core.cacheOf(profile.id), destination);

    // The first download's one file keeps arriving damaged: failed, its name kept for a retry.
    sandbox.control?.addFault({ match: `/v1/files/${failing}/content`, corruptBody: true });
    const first = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: [failing] },
      destination,
      template,
    });
    expect((await core.files.wait(profile.id, first.job.id)).status).toBe('completed');
    expect(core.files.status(profile.id, first.job.id).files).toMatchObject({ failed: 1 });
    expect(reserved()).toEqual([{ relativePath: name, fileId: failing }]);

    // A second download brings that file, under a name of another template.
    sandbox.control?.clearFaults();
    const second = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: [failing] },
      destination,
      template: '{fileId}',
    });
    expect((await core.files.wait(profile.id, second.job.id)).status).toBe('completed');
    expect(core.files.status(profile.id, second.job.id).files).toMatchObject({ done: 1, failed: 0 });
    expect(reserved()).toEqual([]);

    // A third, of another file named alike, gets the plain name: nothing is there, and the
    // file the first download failed is in the folder already.
    const third = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: [other] },
      destination,
      template,
    });
    expect((await core.files.wait(profile.id, third.job.id)).status).toBe('completed');
    const rows = readManifest(path.join(destination, 'manifest.csv'));
    expect(rows).toEqual([expect.objectContaining({ file: name, file_id: other, status: 'done' })]);
    expect(sha256Of(path.join(destination, name))).toBe(sandboxFile(sandbox, other).sha256);

    // The first download's retry finds that name taken and leaves the file there alone.
    core.files.retry(profile.id, first.job.id);
    expect((await core.files.wait(profile.id, first.job.id)).status).toBe('completed');
    expect(core.files.status(profile.id, first.job.id).errors).toEqual([
      expect.objectContaining({
        fileId: failing,
        error: `A different file is already at ${name}; move it away, then retry.`,
      }),
    ]);
    expect(sha256Of(path.join(destination, name))).toBe(sandboxFile(sandbox, other).sha256);
  });

  it('says why a download stopped by itself until it runs again', async () => {
    const { core, profile, sandbox, dir } = await synced();
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 50 });
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'all' },
      destination: path.join(dir, 'out'),
    });
    await until(() => core.files.status(profile.id, job.id).files.done >= 10);
    expect(core.files.status(profile.id, job.id).problem).toBeNull();
    await sandbox.stop(); // the network goes away
    const stopped = await core.files.wait(profile.id, job.id);
    expect(stopped).toMatchObject({ status: 'pending', error: { code: 'OFFLINE' } });
    expect(core.files.status(profile.id, job.id)).toMatchObject({
      status: 'pending',
      active: false,
      problem: stopped.error?.message,
    });
    expect(stopped.error?.message).toMatch(/^Could not reach /);
    // Running again, it has no problem until one stops it again.
    expect(core.files.resume(profile.id, job.id).problem).toBeNull();
  });

  it('takes the files an earlier download put in the folder once, checked by their bytes', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const ids = sandbox.state.files.slice(0, 16).map((file) => file.id);
    const destination = path.join(dir, 'Audit');
    const first = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: ids.slice(0, 10) },
      destination,
    });
    expect((await core.files.wait(profile.id, first.job.id)).status).toBe('completed');
    const rows = readManifest(path.join(destination, 'manifest.csv'));
    // One file edited in place, its size and its time put back as they were: still not trusted.
    const edited = rows[0]!;
    const editedPath = path.join(destination, edited['file'] ?? '');
    const before = statSync(editedPath);
    const bytes = readFileSync(editedPath);
    bytes[0] = bytes[0]! ^ 0xff;
    writeFileSync(editedPath, bytes);
    utimesSync(editedPath, before.atime, before.mtime);

    sandbox.control?.clearRequests();
    const second = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    // The nine good files were checked when the job was made, and are done before it runs.
    expect(second.resumed).toBe(false);
    expect(second.job.files).toMatchObject({ total: 16, done: 9, present: 9, pending: 7 });
    expect((await core.files.wait(profile.id, second.job.id)).status).toBe('completed');
    expect(core.files.status(profile.id, second.job.id).files).toMatchObject({
      total: 16,
      done: 16,
      fetched: 7,
      present: 9,
    });
    const fetched = contentRequests(sandbox);
    expect([...fetched.keys()].sort()).toEqual(
      [edited['file_id'], ...ids.filter((id) => !rows.some((row) => row['file_id'] === id))].sort(),
    );
    expect([...fetched.values()].every((count) => count === 1)).toBe(true);
    // The edited file is left as it is; its download went under a name of its own.
    expect(readFileSync(editedPath)).toEqual(bytes);
    for (const row of readManifest(path.join(destination, 'manifest.csv'))) {
      expect(row['file']).not.toBe(edited['file']);
      expect(sha256Of(path.join(destination, row['file'] ?? ''))).toBe(
        sandboxFile(sandbox, row['file_id'] ?? '').sha256,
      );
    }
  });

  it('shows a job left completed with files not downloaded as stopped, and finishes it', async () => {
    const { core, profile, sandbox, dir, secrets } = await synced();
    const ids = sandbox.state.files.slice(0, 12).map((file) => file.id);
    const jobs = [];
    for (const name of ['resumed', 'retried']) {
      const { job } = await core.files.start(profile.id, {
        scope: { by: 'ids', kind: 'file', ids: name === 'resumed' ? ids.slice(0, 6) : ids.slice(6) },
        destination: path.join(dir, name),
      });
      expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
      jobs.push(job);
    }
    const cacheFile = core.profiles.cacheFile(profile.id);
    await core.close();

    // What the old Retry-during-a-run fault left behind: the job completed, two of its files still
    // pending (and not on disk), one failed.
    const stuck = new Map<string, string[]>();
    const db = new Database(cacheFile);
    for (const job of jobs) {
      const items = db
        .prepare('SELECT file_id, relative_path FROM download_items WHERE job_id = ? ORDER BY position')
        .all(job.id) as Array<{ file_id: string; relative_path: string }>;
      const [a, b, c] = items;
      db.prepare(
        "UPDATE download_items SET status = 'pending', source = NULL, finished_at = NULL WHERE job_id = ? AND file_id IN (?, ?)",
      ).run(job.id, a!.file_id, b!.file_id);
      db.prepare(
        "UPDATE download_items SET status = 'failed', source = NULL, error = 'damaged', attempts = 3 WHERE job_id = ? AND file_id = ?",
      ).run(job.id, c!.file_id);
      for (const item of [a!, b!, c!]) rmSync(path.join(job.destination, ...item.relative_path.split('/')));
      stuck.set(job.id, [a!.file_id, b!.file_id, c!.file_id]);
    }
    expect(db.prepare("SELECT count(*) AS n FROM download_jobs WHERE status = 'completed'").get()).toEqual({
      n: 2,
    });
    db.close();

    const again = createCore({ dataDir: path.join(dir, 'data'), secrets });
    closers.push(() => again.close());
    sandbox.control?.clearRequests();
    for (const shown of again.files.list(profile.id)) {
      expect(shown).toMatchObject({
        status: 'paused',
        active: false,
        finishedAt: null,
        files: { total: 6, done: 3, pending: 2, failed: 1 },
      });
      expect(shown.problem).toMatch(/3 files were not downloaded/);
    }
    // Paused, not interrupted: it waits for the user rather than starting by itself.
    expect(again.files.resumeInterrupted(profile.id)).toEqual([]);

    const [resumed, retried] = jobs;
    again.files.resume(profile.id, resumed!.id);
    expect((await again.files.wait(profile.id, resumed!.id)).status).toBe('completed');
    again.files.retry(profile.id, retried!.id);
    expect((await again.files.wait(profile.id, retried!.id)).status).toBe('completed');

    const final = again.files.status(profile.id, resumed!.id);
    expect(final.files).toMatchObject({ total: 6, done: 5, failed: 1, pending: 0 });
    expect(final.problem).toBeNull();
    expect(again.files.status(profile.id, retried!.id).files).toMatchObject({
      total: 6,
      done: 6,
      failed: 0,
      pending: 0,
    });
    // Resume fetches the pending files; Retry the failed one too. Nothing else is asked for.
    const requested = contentRequests(sandbox);
    expect([...requested.keys()].sort()).toEqual(
      [...stuck.get(resumed!.id)!.slice(0, 2), ...stuck.get(retried!.id)!].sort(),
    );
    expect([...requested.values()].every((count) => count === 1)).toBe(true);
    for (const job of jobs)
      for (const row of readManifest(path.join(job.destination, 'manifest.csv')))
        if (row['status'] === 'done')
          expect(sha256Of(path.join(job.destination, row['file'] ?? ''))).toBe(
            sandboxFile(sandbox, row['file_id'] ?? '').sha256,
          );
  });

  it('refuses a request before making anything on disk', async () => {
    const { core, profile, dir } = await synced();
    const missing = path.join(dir, 'not yet', 'there');
    const empty = await core.files
      .start(profile.id, {
        scope: { by: 'dateRange', from: '1901-01-01', to: '1901-12-31' },
        destination: missing,
      })
      .catch((error: unknown) => error);
    expect(empty).toBeInstanceOf(AppError);
    expect(empty).toMatchObject({ field: 'scope' });
    expect(existsSync(path.join(dir, 'not yet'))).toBe(false);

    expect(core.files.list(profile.id)).toEqual([]);
  });
});
