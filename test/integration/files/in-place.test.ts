import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import { contentRequests, readManifest, sandboxFile, sha256Of } from '../../helpers/files';
import { syncedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// Files a download put in its folder and recorded done, then removed or changed by the user
// before the job ended: a resumed or retried job fetches them again, and no manifest claims a
// file that is not there. Checked by size and modification time (a stat each); a file of the
// right size whose time moved is read again (docs/files.md, "Integrity, resume and restart").

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const synced = () => syncedCore(tempDir(), closers);

/** A job's items recorded done, as the queue has them. */
function doneItems(core: Awaited<ReturnType<typeof synced>>['core'], profileId: string, jobId: string) {
  return core
    .cacheOf(profileId)
    .sqlite.prepare(
      `SELECT file_id AS fileId, relative_path AS relativePath FROM download_items
       WHERE job_id = ? AND status = 'done' ORDER BY position`,
    )
    .all(jobId) as Array<{ fileId: string; relativePath: string }>;
}

/** An item's recorded modification time (ms), as the queue has it. */
function recordedMtime(
  core: Awaited<ReturnType<typeof synced>>['core'],
  profileId: string,
  jobId: string,
  fileId: string,
): number | null {
  const row = core
    .cacheOf(profileId)
    .sqlite.prepare(`SELECT mtime_ms AS mtimeMs FROM download_items WHERE job_id = ? AND file_id = ?`)
    .get(jobId, fileId) as { mtimeMs: number | null };
  return row.mtimeMs;
}

/** Other bytes of the same length at `file`, its time an hour later than now (an edit). */
function rewriteSameSize(file: string): Buffer {
  const bytes = readFileSync(file);
  bytes[0] = bytes[0]! ^ 0xff;
  writeFileSync(file, bytes);
  const later = new Date(statSync(file).mtimeMs + 3_600_000);
  utimesSync(file, later, later);
  return bytes;
}

describe('finished files that left the folder', () => {
  it('fetches again on resume a finished file removed while the job was paused', async () => {
    const { core, profile, sandbox, dir } = await synced();
    // A dozen files come at once, the others are held until the job is paused.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 30_000, skip: 12 });
    const ids = sandbox.state.files.slice(0, 40).map((file) => file.id);
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    await until(() => core.files.status(profile.id, job.id).files.done === 12, 'a dozen files');
    core.files.pause(profile.id, job.id);
    expect((await core.files.wait(profile.id, job.id)).status).toBe('paused');

    const done = doneItems(core, profile.id, job.id);
    const [removed, grown, sameSize] = done;
    const at = (item: { relativePath: string }) => path.join(destination, ...item.relativePath.split('/'));
    rmSync(at(removed!));
    appendFileSync(at(grown!), 'a note of the user');
    const grownBytes = readFileSync(at(grown!));
    const flipped = rewriteSameSize(at(sameSize!));

    sandbox.control?.clearFaults();
    sandbox.control?.clearRequests();
    core.files.resume(profile.id, job.id);
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');

    const requested = contentRequests(sandbox);
    // The removed file came again; the untouched ones were not asked for.
    expect(requested.get(removed!.fileId)).toBe(1);
    for (const item of done.slice(1)) expect(requested.has(item.fileId), item.relativePath).toBe(false);
    expect(sha256Of(at(removed!))).toBe(sandboxFile(sandbox, removed!.fileId).sha256);
    // The grown one and the one of other bytes (its time moved, so it was read again) are the
    // user's now: never overwritten, and no longer claimed as downloaded.
    expect(readFileSync(at(grown!))).toEqual(grownBytes);
    expect(readFileSync(at(sameSize!))).toEqual(flipped);
    const status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ total: ids.length, done: ids.length - 2, failed: 2 });
    expect(status.errors).toEqual(
      [grown!, sameSize!].map((item) =>
        expect.objectContaining({
          fileId: item.fileId,
          error: `A different file is already at ${item.relativePath}; move it away, then retry.`,
        }),
      ),
    );
    const manifest = readManifest(path.join(destination, 'manifest.csv'));
    for (const row of manifest) {
      if (row['file_id'] === grown!.fileId || row['file_id'] === sameSize!.fileId)
        expect(row['status']).toBe('failed');
      else {
        expect(row['status']).toBe('done');
        expect(sha256Of(path.join(destination, row['file'] ?? ''))).toBe(row['sha256']);
      }
    }

    // Moved away, they come on retry.
    rmSync(at(grown!));
    rmSync(at(sameSize!));
    sandbox.control?.clearRequests();
    core.files.retry(profile.id, job.id);
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    expect([...contentRequests(sandbox).keys()].sort()).toEqual([grown!.fileId, sameSize!.fileId].sort());
    expect(sha256Of(at(grown!))).toBe(sandboxFile(sandbox, grown!.fileId).sha256);
    expect(core.files.status(profile.id, job.id).files).toMatchObject({ done: ids.length, failed: 0 });
  });

  it('does not claim in the manifest a file removed while the job ran, and fetches it on retry', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const ids = sandbox.state.files.slice(0, 20).map((file) => file.id);
    // One file answers late: the job is still running when the user removes a finished one.
    sandbox.control?.addFault({ match: `/v1/files/${ids[0]}/content`, latencyMs: 5_000 });
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    await until(
      () => core.files.status(profile.id, job.id).files.done === ids.length - 1,
      'all files but the late one',
    );
    const removed = doneItems(core, profile.id, job.id).find((item) => item.fileId !== ids[0])!;
    rmSync(path.join(destination, ...removed.relativePath.split('/')));
    expect(core.files.status(profile.id, job.id).status).toBe('running');

    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    const status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ done: ids.length - 1, failed: 1, pending: 0 });
    const reason = `${removed.relativePath} was removed from the folder after it was downloaded; retry to fetch it again.`;
    expect(status.errors).toEqual([expect.objectContaining({ fileId: removed.fileId, error: reason })]);
    const row = readManifest(path.join(destination, 'manifest.csv')).find(
      (entry) => entry['file_id'] === removed.fileId,
    );
    expect(row).toMatchObject({ status: 'failed', error: reason });

    sandbox.control?.clearRequests();
    core.files.retry(profile.id, job.id);
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    expect([...contentRequests(sandbox).keys()]).toEqual([removed.fileId]);
    for (const entry of readManifest(path.join(destination, 'manifest.csv'))) {
      expect(entry['status']).toBe('done');
      expect(sha256Of(path.join(destination, entry['file'] ?? ''))).toBe(entry['sha256']);
    }
  });

  it('lists a file removed from a paused download as not downloaded when it is cancelled', async () => {
    const { core, profile, sandbox, dir } = await synced();
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 30_000, skip: 5 });
    const ids = sandbox.state.files.slice(0, 40).map((file) => file.id);
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    await until(() => core.files.status(profile.id, job.id).files.done === 5, 'five files');
    core.files.pause(profile.id, job.id);
    expect((await core.files.wait(profile.id, job.id)).status).toBe('paused');
    const [removed, ...kept] = doneItems(core, profile.id, job.id);
    rmSync(path.join(destination, ...removed!.relativePath.split('/')));

    const cancelled = await core.files.cancel(profile.id, job.id);
    expect(cancelled.files.done).toBe(kept.length);
    const rows = readManifest(path.join(destination, 'manifest.csv'));
    expect(rows.find((row) => row['file_id'] === removed!.fileId)?.['status']).toBe('pending');
    const claimed = rows.filter((row) => row['status'] === 'done');
    expect(claimed.map((row) => row['file_id'])).toEqual(kept.map((item) => item.fileId));
    for (const row of claimed)
      expect(sha256Of(path.join(destination, row['file'] ?? ''))).toBe(row['sha256']);
  });
});

// A completed download with nothing failed has nothing to resume or retry: "Check folder" looks
// for its finished files in the folder and fetches again those that are not there, so that the
// folder handed to an auditor can be made whole without a new download (docs/files.md).
describe('checking the folder of a finished download', () => {
  it('fetches exactly the files removed from a completed download and rewrites the manifest', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const handlers = createHandlers(core);
    const ids = sandbox.state.files.slice(0, 12).map((file) => file.id);
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    expect(core.files.status(profile.id, job.id).files).toMatchObject({ done: ids.length, failed: 0 });
    const ref = { profileId: profile.id, jobId: job.id };
    const manifestFile = path.join(destination, 'manifest.csv');

    // Nothing failed: Retry says so, and points to Check folder, rather than doing nothing.
    sandbox.control?.clearRequests();
    expect(await dispatch(handlers, 'downloads.retry', ref)).toMatchObject({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        message:
          'Nothing to retry: no file of this download failed. Files missing from its folder are fetched again by Check folder.',
      },
    });
    expect(await dispatch(handlers, 'downloads.retry', { ...ref, fileIds: [ids[0]!] })).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR', message: 'Nothing to retry: the files named have not failed.' },
    });
    expect(core.files.status(profile.id, job.id).status).toBe('completed');
    expect(contentRequests(sandbox).size).toBe(0);

    // Nothing missing but the manifest itself: nothing is fetched, and the manifest comes back.
    rmSync(manifestFile);
    sandbox.control?.clearRequests();
    expect(await dispatch(handlers, 'downloads.check', ref)).toMatchObject({
      ok: true,
      value: { missing: 0, waitingForNetwork: false, job: { status: 'completed', active: false } },
    });
    expect(contentRequests(sandbox).size).toBe(0);
    expect(readManifest(manifestFile).map((row) => row['status'])).toEqual(ids.map(() => 'done'));

    const [first, , third] = doneItems(core, profile.id, job.id);
    const at = (item: { relativePath: string }) => path.join(destination, ...item.relativePath.split('/'));
    rmSync(at(first!));
    rmSync(at(third!));
    const checked = await dispatch(handlers, 'downloads.check', ref);
    expect(checked).toMatchObject({ ok: true, value: { missing: 2, waitingForNetwork: false } });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');

    const requested = contentRequests(sandbox);
    expect([...requested.keys()].sort()).toEqual([first!.fileId, third!.fileId].sort());
    expect([...requested.values()]).toEqual([1, 1]);
    const status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ total: ids.length, done: ids.length, failed: 0, pending: 0 });
    const rows = readManifest(manifestFile);
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) {
      expect(row['status']).toBe('done');
      expect(sha256Of(path.join(destination, row['file'] ?? ''))).toBe(row['sha256']);
    }
  });

  it('finds a file rewritten in place to other bytes of its size, and keeps one only touched', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const handlers = createHandlers(core);
    const ids = sandbox.state.files.slice(0, 6).map((file) => file.id);
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    const [rewritten, touched, earlier] = doneItems(core, profile.id, job.id);
    const at = (item: { relativePath: string }) => path.join(destination, ...item.relativePath.split('/'));
    const mtimeOf = (item: { relativePath: string }) => Math.trunc(statSync(at(item)).mtimeMs);
    // Each file's time is recorded by the end of the job.
    for (const item of doneItems(core, profile.id, job.id))
      expect(recordedMtime(core, profile.id, job.id, item.fileId)).toBe(mtimeOf(item));

    const userBytes = rewriteSameSize(at(rewritten!));
    const later = new Date(statSync(at(touched!)).mtimeMs + 7_200_000);
    utimesSync(at(touched!), later, later);
    // A file recorded done by an earlier version (no time): checked by size only, as then.
    core
      .cacheOf(profile.id)
      .sqlite.prepare(`UPDATE download_items SET mtime_ms = NULL WHERE job_id = ? AND file_id = ?`)
      .run(job.id, earlier!.fileId);
    const earlierBytes = rewriteSameSize(at(earlier!));

    sandbox.control?.clearRequests();
    const ref = { profileId: profile.id, jobId: job.id };
    expect(await dispatch(handlers, 'downloads.check', ref)).toMatchObject({
      ok: true,
      value: { missing: 1, waitingForNetwork: false },
    });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');

    // Reported as a file changed in size is: failed, not fetched again, not overwritten.
    expect(contentRequests(sandbox).size).toBe(0);
    expect(readFileSync(at(rewritten!))).toEqual(userBytes);
    const status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ total: ids.length, done: ids.length - 1, failed: 1, pending: 0 });
    expect(status.errors).toEqual([
      expect.objectContaining({
        fileId: rewritten!.fileId,
        error: `A different file is already at ${rewritten!.relativePath}; move it away, then retry.`,
      }),
    ]);
    // Only touched: still done, its new time recorded (the next check is a stat again).
    expect(recordedMtime(core, profile.id, job.id, touched!.fileId)).toBe(mtimeOf(touched!));
    expect(readFileSync(at(earlier!))).toEqual(earlierBytes);
    const rows = readManifest(path.join(destination, 'manifest.csv'));
    const statusOf = (item: { fileId: string }) =>
      rows.find((row) => row['file_id'] === item.fileId)?.['status'];
    expect(statusOf(rewritten!)).toBe('failed');
    expect(statusOf(touched!)).toBe('done');
    expect(statusOf(earlier!)).toBe('done');
    expect(rows.filter((row) => row['status'] === 'done')).toHaveLength(ids.length - 1);
  });

  it('names the job, never a path, and refuses a folder that is gone or a job not finished', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const handlers = createHandlers(core);
    const ids = sandbox.state.files.slice(0, 3).map((file) => file.id);
    const destination = path.join(dir, 'out');
    // Held: the job is still running when it is checked.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 30_000 });
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    const ref = { profileId: profile.id, jobId: job.id };
    expect(await dispatch(handlers, 'downloads.check', ref)).toMatchObject({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'This download is not finished; its files are checked as it goes on.',
      },
    });
    core.files.pause(profile.id, job.id);
    await core.files.wait(profile.id, job.id);
    sandbox.control?.clearFaults();
    core.files.resume(profile.id, job.id);
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');

    const withPath = await dispatch(handlers, 'downloads.check', { ...ref, folder: '/etc' });
    expect(withPath).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    const unknown = await dispatch(handlers, 'downloads.check', {
      profileId: profile.id,
      jobId: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });

    // The whole folder gone (moved, renamed): not made again somewhere the user no longer looks.
    rmSync(destination, { recursive: true });
    sandbox.control?.clearRequests();
    expect(await dispatch(handlers, 'downloads.check', ref)).toMatchObject({
      ok: false,
      error: {
        code: 'NOT_FOUND',
        message: `The folder ${destination} is no longer there: it was moved, renamed or deleted.`,
      },
    });
    expect(existsSync(destination)).toBe(false);
    expect(contentRequests(sandbox).size).toBe(0);
    expect(core.files.status(profile.id, job.id).status).toBe('completed');
  });
});

describe('names a new download gives', () => {
  it('takes no name a folder in the destination holds', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const ids = sandbox.state.files.slice(0, 2).map((file) => file.id);
    const scope = { by: 'ids' as const, kind: 'file' as const, ids };
    const first = path.join(dir, 'first');
    const { job } = await core.files.start(profile.id, { scope, destination: first });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    const named = readManifest(path.join(first, 'manifest.csv'))[0]!;

    // A folder of the user's with the very name the file would get.
    const second = path.join(dir, 'second');
    mkdirSync(path.join(second, named['file'] ?? ''), { recursive: true });
    const again = await core.files.start(profile.id, { scope, destination: second });
    expect((await core.files.wait(profile.id, again.job.id)).status).toBe('completed');
    const row = readManifest(path.join(second, 'manifest.csv')).find(
      (entry) => entry['file_id'] === named['file_id'],
    )!;
    expect(row['status']).toBe('done');
    expect(row['file']).not.toBe(named['file']);
    expect(sha256Of(path.join(second, row['file'] ?? ''))).toBe(row['sha256']);
    expect(readdirSync(path.join(second, named['file'] ?? ''))).toEqual([]);
  });
});
