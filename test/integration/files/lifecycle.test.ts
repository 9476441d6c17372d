import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { partialFolder } from '../../../src-main/files/runner';
import { scopedFiles } from '../../../src-main/files/scope';
import { AppError } from '../../../src-shared/errors';
import type { DownloadProgress } from '../../../src-shared/files';
import { listFiles, readManifest, sandboxFile, sha256Of } from '../../helpers/files';
import { syncedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// What a download job does around its run: cancelled while it is not running, a failed file
// retried while the job still runs, two downloads into one folder, why it stopped by itself,
// and a request refused before anything is made on disk.

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
