import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src-main/api/client';
import { createCommitter } from '../../../src-main/files/commit';
import { fetchFile } from '../../../src-main/files/fetch';
import { partialFolder } from '../../../src-main/files/folder';
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } from '../../../src-sandbox';
import { connectedCore, syncedCore } from '../../helpers/sync-fixture';
import { contentRequests, listFiles, readManifest, sandboxFile, sha256Of } from '../../helpers/files';
import { useTempDirs } from '../../helpers/temp-dir';

// Damaged answers from the real sandbox: bodies cut off midway and bodies with a flipped byte
// are detected (size, sha256), never renamed into place, and fetched again — a cut body
// continues with a Range request. A file that keeps failing is reported and can be retried.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const synced = () => syncedCore(tempDir(), closers);

/** A client of the sandbox's demo organisation, with its own time-out when given. */
function demoClient(baseUrl: string, timeoutMs?: number) {
  return createApiClient({
    baseUrl,
    credentials: async () => ({ kind: 'client', clientId: DEMO_CLIENT_ID, clientSecret: DEMO_CLIENT_SECRET }),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

/** A synced sandbox, one of its files and where to put it (a fresh folder named `folder`). */
async function slowFile(index: number, folder: string) {
  const { sandbox, dir } = await synced();
  const id = sandbox.state.files[index]!.id;
  mkdirSync(path.join(dir, folder));
  return { sandbox, id, record: sandboxFile(sandbox, id), finalPath: path.join(dir, folder, 'receipt') };
}

describe('damaged downloads', () => {
  it('places a checked .part file a kill left before its batch was placed, without fetching it', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const id = sandbox.state.files[3]!.id;
    const record = sandboxFile(sandbox, id);
    const first = path.join(dir, 'first');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: [id] },
      destination: first,
      template: '{fileId}',
    });
    expect(await core.files.wait(profile.id, job.id)).toEqual({ status: 'completed' });
    // The whole, checked file as a kill between the check and the batch's sync leaves it.
    const partial = path.join(dir, 'second', '.partial');
    mkdirSync(partial, { recursive: true });
    const partPath = path.join(partial, '1.part');
    copyFileSync(path.join(first, `${id}${path.extname(record.name)}`), partPath);
    sandbox.control?.clearRequests();

    const client = demoClient(sandbox.url);
    const committer = createCommitter({ folder: partial, durable: true });
    const finalPath = path.join(dir, 'second', 'receipt.pdf');
    const result = await fetchFile({
      client,
      file: { id, size: record.size, sha256: record.sha256 },
      partPath,
      finalPath,
      place: committer.place,
    });
    await committer.flush();
    await result.placed;
    expect(result).toMatchObject({ bytes: 0, resumedFrom: record.size });
    expect(sha256Of(finalPath)).toBe(record.sha256);
    expect(existsSync(partPath)).toBe(false);
    expect(contentRequests(sandbox).size).toBe(0);
  });

  it('stops with a clear error, not a crash, when the cache cannot record finished files', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const files = sandbox.state.files.slice(30, 36).map((file) => file.id);
    // A real write failure of the cache (as a full disk would give) for every outcome.
    core
      .cacheOf(profile.id)
      .sqlite.exec(
        `CREATE TRIGGER test_refuse_outcomes BEFORE UPDATE ON download_items BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
      );
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: files },
      destination: path.join(dir, 'out'),
    });
    const result = await core.files.wait(profile.id, job.id);
    expect(result.status).toBe('paused');
    expect(result.error?.message).toMatch(/database or disk is full/);
    expect(core.files.status(profile.id, job.id).status).toBe('paused');
    core.cacheOf(profile.id).sqlite.exec('DROP TRIGGER test_refuse_outcomes');
    // Once the cache can be written again, resuming finishes the job without fetching again
    // what is already in place.
    const before = contentRequests(sandbox);
    core.files.resume(profile.id, job.id);
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    expect(core.files.status(profile.id, job.id).files).toMatchObject({ total: 6, done: 6, failed: 0 });
    const after = contentRequests(sandbox);
    for (const id of files) expect(after.get(id) ?? 0, id).toBe(before.get(id) ?? 0);
  });

  it('detects truncated and corrupted bodies, retries them and resumes cut ones with Range', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const files = sandbox.state.files.slice(0, 12).map((file) => file.id);
    const [cut, corrupted] = files;
    sandbox.control?.addFault({ match: `/v1/files/${cut}/content`, truncateBodyAt: 100, times: 1 });
    sandbox.control?.addFault({ match: `/v1/files/${corrupted}/content`, corruptBody: true, times: 2 });
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: files },
      destination,
      template: '{fileId}',
    });
    expect(await core.files.wait(profile.id, job.id)).toEqual({ status: 'completed' });
    const status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ total: 12, done: 12, failed: 0 });

    for (const id of files) {
      const record = sandboxFile(sandbox, id);
      expect(sha256Of(path.join(destination, `${id}${path.extname(record.name)}`))).toBe(record.sha256);
    }
    const log = sandbox.control?.requests('getFileContent') ?? [];
    const ofCut = log.filter((entry) => entry.path.includes(cut!));
    expect(ofCut).toHaveLength(2);
    expect(ofCut[0]?.range).toBeUndefined();
    expect(ofCut[1]?.range).toBe('bytes=100-'); // continued where the cut left it
    const ofCorrupted = log.filter((entry) => entry.path.includes(corrupted!));
    expect(ofCorrupted).toHaveLength(3);
    expect(ofCorrupted.every((entry) => entry.range === undefined)).toBe(true); // damaged bytes are never kept
    expect(contentRequests(sandbox).size).toBe(12);
    expect(listFiles(destination).some((name) => name.startsWith('.'))).toBe(false);
  });

  it('starts a file over when its .part outgrew it and its record has no size or sha256 to tell', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const id = sandbox.state.files[7]!.id;
    const record = sandboxFile(sandbox, id);
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: [id] },
      destination,
      template: '{fileId}',
    });
    expect(await core.files.wait(profile.id, job.id)).toEqual({ status: 'completed' });
    const finalPath = path.join(destination, `${id}${path.extname(record.name)}`);
    // The local columns allow a file without size and sha256 (the API always gives both). Such
    // a file failed, its bytes gone, and a .part longer than the file left in the job's folder:
    // a Range from its end is answered 416, and without an ETag no If-Range brings the whole.
    const oversize = Buffer.concat([readFileSync(finalPath), Buffer.from('bytes of another file')]);
    core
      .cacheOf(profile.id)
      .sqlite.prepare(
        `UPDATE download_items SET size = NULL, sha256 = NULL, status = 'failed', source = NULL,
           finished_at = NULL, mtime_ms = NULL, attempts = 1, error = 'It failed.' WHERE job_id = ?`,
      )
      .run(job.id);
    rmSync(finalPath);
    const partial = partialFolder(destination, job.id);
    mkdirSync(partial);
    writeFileSync(path.join(partial, '0.part'), oversize);
    sandbox.control?.clearRequests();

    // Retried, the .part is dropped at the 416 and the whole file fetched in the same attempt.
    core.files.retry(profile.id, job.id);
    expect(await core.files.wait(profile.id, job.id)).toEqual({ status: 'completed' });
    expect(core.files.status(profile.id, job.id).files).toMatchObject({ total: 1, done: 1, failed: 0 });
    expect(sha256Of(finalPath)).toBe(record.sha256);
    const log = sandbox.control?.requests('getFileContent') ?? [];
    expect(log.map((entry) => entry.range)).toEqual([`bytes=${oversize.length}-`, undefined]);
    expect(existsSync(partial)).toBe(false);
  });

  it('lets a body arrive slowly past the time-out as long as bytes keep coming', async () => {
    const { sandbox, id, record, finalPath } = await slowFile(5, 'slow');
    // Ten pieces, 150 ms apart (1.35 s in all), against a time-out of 400 ms: the whole
    // body takes far longer than the time-out, but there are never 400 ms without a byte.
    sandbox.control?.addFault({ match: `/v1/files/${id}/content`, slowBodyMs: 1_500, times: 1 });
    const client = demoClient(sandbox.url, 400);
    const started = Date.now();
    const result = await fetchFile({
      client,
      file: { id, size: record.size, sha256: record.sha256 },
      partPath: `${finalPath}.part`,
      finalPath,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_300);
    expect(result).toMatchObject({ bytes: record.size, resumedFrom: 0 });
    expect(sha256Of(finalPath)).toBe(record.sha256);
    const log = sandbox.control?.requests('getFileContent') ?? [];
    expect(log.map((entry) => entry.range)).toEqual([undefined]); // one request, never cut
  });

  it('gives up on a body that stops arriving after the time-out and continues it with Range', async () => {
    const { sandbox, id, record, finalPath } = await slowFile(6, 'stalled');
    // The first of ten pieces at once, the next 6 s later: far longer than the time-out.
    sandbox.control?.addFault({ match: `/v1/files/${id}/content`, slowBodyMs: 60_000, times: 1 });
    const client = demoClient(sandbox.url, 300);
    const partPath = `${finalPath}.part`;
    const file = { id, size: record.size, sha256: record.sha256 };
    const started = Date.now();
    await expect(fetchFile({ client, file, partPath, finalPath })).rejects.toMatchObject({
      code: 'BROKEN_OFF',
      message: expect.stringMatching(/download of file .* broke off \(No data arrived/),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    const piece = Math.ceil(record.size / 10);
    const result = await fetchFile({ client, file, partPath, finalPath });
    expect(result).toMatchObject({ resumedFrom: piece, bytes: record.size - piece });
    expect(sha256Of(finalPath)).toBe(record.sha256);
    const log = sandbox.control?.requests('getFileContent') ?? [];
    expect(log.map((entry) => entry.range)).toEqual([undefined, `bytes=${piece}-`]);
  });

  it('says a download that keeps breaking off broke off, never that it is offline', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const [cut, kept] = sandbox.state.files.slice(25, 27).map((file) => file.id);
    // Every answer for the file stops after 10 bytes while the API keeps answering the rest.
    sandbox.control?.addFault({ match: `/v1/files/${cut}/content`, truncateBodyAt: 10 });
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: [cut!, kept!] },
      destination,
    });
    const result = await core.files.wait(profile.id, job.id);
    expect(result).toEqual({ status: 'completed' }); // not stopped as if the network were gone
    const status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ total: 2, done: 1, failed: 1 });
    expect(status.errors).toEqual([
      expect.objectContaining({
        fileId: cut,
        attempts: 3,
        error: expect.stringMatching(
          /^The download of file \S+ broke off \(.*\) \(gave up after 3 attempts\)\.$/,
        ),
      }),
    ]);
    expect(status.errors[0]?.error).not.toMatch(/offline|network/i);
    // Each attempt continued where the last one stopped.
    const ranges = (sandbox.control?.requests('getFileContent') ?? [])
      .filter((entry) => entry.path.includes(cut!))
      .map((entry) => entry.range);
    expect(ranges).toEqual([undefined, 'bytes=10-', 'bytes=20-']);

    // The preview's fetch of it: its own code, and a message that says it is retried.
    await expect(core.files.fetch(profile.id, cut!)).rejects.toMatchObject({
      code: 'BROKEN_OFF',
      message: expect.stringMatching(/broke off .*; it is retried from where it stopped\.$/),
    });
  });

  it('fails a file whose connection is reset before any answer after three attempts, and completes the rest', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const files = sandbox.state.files.slice(30, 36).map((file) => file.id);
    const dropped = [files[1]!, files[4]!];
    // Connected, then cut before the headers, every time: the network itself works.
    for (const id of dropped) sandbox.control?.addFault({ match: `/v1/files/${id}/content`, drop: true });
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: files },
      destination: path.join(dir, 'out'),
    });
    const result = await core.files.wait(profile.id, job.id);
    expect(result).toEqual({ status: 'completed' }); // not left waiting for the network
    const status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ total: 6, done: 4, failed: 2 });
    const host = new URL(sandbox.url).host;
    const byFile = (a: { fileId: string }, b: { fileId: string }) => a.fileId.localeCompare(b.fileId);
    expect([...status.errors].sort(byFile)).toEqual(
      [...dropped].sort().map((fileId) =>
        expect.objectContaining({
          fileId,
          attempts: 3,
          error: `The connection to ${host} was reset before the server answered (gave up after 3 attempts).`,
        }),
      ),
    );
    const requests = contentRequests(sandbox);
    for (const id of dropped) expect(requests.get(id)).toBe(3);
    expect(core.connectivity.state()).toMatchObject({ online: true, reason: null });
  });

  it("gives up a preview's fetch after two resets and says so, and fetches it once they stop", async () => {
    const { core, profile, sandbox } = await synced();
    const id = sandbox.state.files[40]!.id;
    // Connected, then cut before the headers, every time: a person waits for this one.
    sandbox.control?.addFault({ match: `/v1/files/${id}/content`, drop: true });
    const host = new URL(sandbox.url).host;
    await expect(core.files.fetch(profile.id, id)).rejects.toMatchObject({
      code: 'CONNECTION_RESET',
      message: `The connection to ${host} was reset before the server answered; try again.`,
    });
    expect(contentRequests(sandbox).get(id)).toBe(2);
    expect(core.connectivity.state()).toMatchObject({ online: true, reason: null });
    sandbox.control?.clearFaults();
    await expect(core.files.fetch(profile.id, id)).resolves.toMatchObject({ fileId: id });
  });

  it("gives up a preview's fetch after two 503s, says it was a server error, and fetches it once they stop", async () => {
    const { core, profile, sandbox } = await synced();
    const id = sandbox.state.files[41]!.id;
    // A person waits: two attempts, not the client's six and their 8–15 s of backoff.
    sandbox.control?.addFault({ match: `/v1/files/${id}/content`, status: 503 });
    const host = new URL(sandbox.url).host;
    await expect(core.files.fetch(profile.id, id)).rejects.toMatchObject({
      code: 'SERVER_ERROR',
      message: `The server at ${host} answered with a server error (503: Injected fault); try again.`,
    });
    expect(contentRequests(sandbox).get(id)).toBe(2);
    expect(core.connectivity.state()).toMatchObject({ online: true, reason: null });
    sandbox.control?.clearFaults();
    await expect(core.files.fetch(profile.id, id)).resolves.toMatchObject({ fileId: id });
    expect(contentRequests(sandbox).get(id)).toBe(3);

    // A server that asks for a longer wait than a person should sit through is reported at once.
    const other = sandbox.state.files[42]!.id;
    sandbox.control?.addFault({ match: `/v1/files/${other}/content`, status: 503, retryAfterSeconds: 30 });
    await expect(core.files.fetch(profile.id, other)).rejects.toMatchObject({ code: 'SERVER_ERROR' });
    expect(contentRequests(sandbox).get(other)).toBe(1);
  });

  it("gives up a preview's fetch after two time-outs, says no answer came in time, and fetches it once it answers", async () => {
    // The client's time-out made short; the sandbox holds the file's answer for longer.
    const { core, profile, sandbox } = await syncedCore(tempDir(), closers, {}, { apiTimeoutMs: 1_500 });
    const id = sandbox.state.files[43]!.id;
    sandbox.control?.addFault({ match: `/v1/files/${id}/content`, latencyMs: 4_000 });
    const host = new URL(sandbox.url).host;
    await expect(core.files.fetch(profile.id, id)).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: `The server at ${host} did not answer within 2 s; try again.`,
    });
    expect(contentRequests(sandbox).get(id)).toBe(2);
    // A server slow to answer is not a network gone: the pane does not say offline.
    expect(core.connectivity.state()).toMatchObject({ online: true, reason: null });
    sandbox.control?.clearFaults();
    await expect(core.files.fetch(profile.id, id)).resolves.toMatchObject({ fileId: id });
    expect(contentRequests(sandbox).get(id)).toBe(3);
  });

  it("gives up a preview's fetch when no answer begins within its first-byte wait, long before the client's time-out", async () => {
    // The client's silence time-out is 5 s; a preview waits 600 ms for the answer to begin. The
    // sandbox takes the connection and says nothing for far longer (a hung server).
    const { core, profile, sandbox } = await syncedCore(
      tempDir(),
      closers,
      {},
      { apiTimeoutMs: 5_000, previewFirstByteMs: 600 },
    );
    const id = sandbox.state.files[45]!.id;
    sandbox.control?.addFault({ match: `/v1/files/${id}/content`, latencyMs: 20_000 });
    const host = new URL(sandbox.url).host;
    const started = Date.now();
    await expect(core.files.fetch(profile.id, id)).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: `The server at ${host} did not answer within 600 ms; try again.`,
    });
    // Two attempts of 600 ms and the short pause between: not two of the client's 5 s.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(contentRequests(sandbox).get(id)).toBe(2);
    expect(core.connectivity.state()).toMatchObject({ online: true, reason: null });
    sandbox.control?.clearFaults();
    await expect(core.files.fetch(profile.id, id)).resolves.toMatchObject({ fileId: id });
    expect(contentRequests(sandbox).get(id)).toBe(3);
  });

  it("delivers a preview's body that trickles on well past the first-byte wait, whole and in one request", async () => {
    // The answer begins at once, then its other three pieces come 1.5 s apart: each gap far
    // longer than the preview's 300 ms wait for the first byte (undici times its waits to within
    // a second), none near the client's 4 s of silence.
    const { core, profile, sandbox } = await syncedCore(
      tempDir(),
      closers,
      {},
      { apiTimeoutMs: 4_000, previewFirstByteMs: 300 },
    );
    const id = sandbox.state.files[46]!.id;
    const record = sandboxFile(sandbox, id);
    sandbox.control?.addFault({
      match: `/v1/files/${id}/content`,
      slowBodyMs: 6_000,
      slowBodyPieces: 4,
      times: 1,
    });
    const started = Date.now();
    const shown = await core.files.fetch(profile.id, id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_300);
    expect(shown).toMatchObject({ fileId: id, size: record.size });
    const localName = core
      .cacheOf(profile.id)
      .sqlite.prepare(`SELECT local_path FROM expense_files WHERE id = ?`)
      .pluck()
      .get(id) as string;
    expect(sha256Of(path.join(core.files.filesRoot(profile.id), localName))).toBe(record.sha256);
    const log = sandbox.control?.requests('getFileContent') ?? [];
    expect(log.map((entry) => entry.range)).toEqual([undefined]); // one request, never cut
  });

  it('bounds the token request a preview makes to two attempts and its wait, while a sync keeps its retries', async () => {
    // Tokens that live 30 s are fetched again before every request (the client renews a
    // minute ahead): the preview's file request needs a new token first, every time.
    const { core, profile, sandbox } = await syncedCore(
      tempDir(),
      closers,
      { tokenTtlSeconds: 30 },
      { apiTimeoutMs: 5_000, previewFirstByteMs: 600 },
    );
    const control = sandbox.control!;
    const id = sandbox.state.files[47]!.id;
    // A sign-in that fails with 503 every time: two attempts, not the client's six and their
    // backoff (8–15 s) while the pane shows a spinner.
    const failing = control.addFault({ match: 'issueToken', status: 503 });
    let started = Date.now();
    await expect(core.files.fetch(profile.id, id)).rejects.toMatchObject({
      code: 'SERVER_ERROR',
      message: expect.stringMatching(/^The API's sign-in failed \(503\): Injected fault/),
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(control.faultFired(failing)).toBe(2);
    expect(contentRequests(sandbox).get(id)).toBeUndefined();

    // A sign-in that does not answer: two attempts of the preview's wait, not of the 5 s.
    control.clearFaults();
    const silent = control.addFault({ match: 'issueToken', latencyMs: 20_000 });
    started = Date.now();
    await expect(core.files.fetch(profile.id, id)).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: `The server at ${new URL(sandbox.url).host} did not answer within 600 ms; try again.`,
    });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(control.faultFired(silent)).toBe(2);

    // A sync's sign-in keeps the client's retries: three 503s in a row are waited out.
    control.clearFaults();
    const flaky = control.addFault({ match: 'issueToken', status: 503, times: 3 });
    const summary = await core.sync.sync(profile.id);
    expect(summary.outcome).toBe('succeeded');
    expect(control.faultFired(flaky)).toBe(3);
    // And the preview opens once the sign-in works.
    await expect(core.files.fetch(profile.id, id)).resolves.toMatchObject({ fileId: id });
  });

  it("waits out a 429 for a preview's fetch as for any request, not counting it as an attempt", async () => {
    // A forced 429 empties the bucket until its window ends: a window of a second keeps it brief.
    const { core, profile, sandbox } = await syncedCore(tempDir(), closers, { windowSeconds: 1 });
    const id = sandbox.state.files[44]!.id;
    // Two "too many requests", each asking for a second: honoured, then the file is served.
    sandbox.control?.addFault({
      match: `/v1/files/${id}/content`,
      rateLimit: true,
      retryAfterSeconds: 1,
      times: 2,
    });
    await expect(core.files.fetch(profile.id, id)).resolves.toMatchObject({ fileId: id });
    expect(contentRequests(sandbox).get(id)).toBe(3);
  });

  it('marks a file that keeps arriving damaged as failed, then retries it on request', async () => {
    const { core, profile, sandbox, dir } = await synced();
    const files = sandbox.state.files.slice(20, 25).map((file) => file.id);
    const bad = files[2]!;
    sandbox.control?.addFault({ match: `/v1/files/${bad}/content`, corruptBody: true });
    const destination = path.join(dir, 'out');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: files },
      destination,
    });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    let status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ total: 5, done: 4, failed: 1 });
    expect(status.errors).toEqual([
      expect.objectContaining({
        fileId: bad,
        attempts: 3,
        error: expect.stringMatching(/sha256 does not match\) \(gave up after 3 attempts\)\.$/),
      }),
    ]);
    const failedRow = readManifest(path.join(destination, 'manifest.csv')).find(
      (row) => row['file_id'] === bad,
    );
    expect(failedRow).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/sha256 does not match\) \(gave up after 3 attempts\)\.$/),
    });
    expect(existsSync(path.join(destination, failedRow?.['file'] ?? 'x'))).toBe(false);

    sandbox.control?.clearFaults();
    sandbox.control?.clearRequests();
    core.files.retry(profile.id, job.id);
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    status = core.files.status(profile.id, job.id);
    expect(status.files).toMatchObject({ total: 5, done: 5, failed: 0 });
    expect([...contentRequests(sandbox).keys()]).toEqual([bad]);
    expect(
      readManifest(path.join(destination, 'manifest.csv')).every((row) => row['status'] === 'done'),
    ).toBe(true);
  });

  it('puts hostile names from the server safely inside the destination', async () => {
    const dir = tempDir();
    const fixture = await connectedCore(dir, { readLimit: 100_000 });
    closers.push(() => fixture.close());
    const { core, profile, sandbox } = fixture;
    const hostile = [
      '../../../../etc/passwd',
      '/etc/shadow',
      'C:\\Windows\\System32\\evil.pdf',
      '..\\..\\up.pdf',
      'CON.pdf',
      'con.pdf',
      'aux',
      'LPT1.png',
      'name. . .',
      '..',
      '.',
      '',
      '   ',
      'null\u0000byte.pdf',
      'new\nline\r.pdf',
      `${'€'.repeat(300)}.pdf`,
      'a:b*c?d"e<f>g|h.pdf',
      '%2e%2e%2fencoded.pdf',
      '.hidden',
      'receipt.pdf',
      'RECEIPT.pdf',
      'receipt.PDF',
    ];
    const targets = sandbox.state.files.slice(0, hostile.length);
    hostile.forEach((name, i) =>
      sandbox.control?.corruptRecord({ resource: 'files', id: targets[i]!.id, patch: { name } }),
    );
    // A counterparty that tries to climb out through the supplier folder.
    const expense = sandbox.state.expenses.find((e) => e.id === targets[0]!.expenseId)!;
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const stored = core
      .cacheOf(profile.id)
      .sqlite.prepare(`SELECT name FROM expense_files WHERE id = ?`)
      .pluck();
    expect(targets.map((t) => stored.get(t.id))).toEqual(hostile);
    core
      .cacheOf(profile.id)
      .sqlite.prepare(`UPDATE bank_transactions SET counterparty = '../../../climb' WHERE id = ?`)
      .run(expense.bankTransactionId);

    const destination = path.join(dir, 'safe', 'out');
    // A separator typed into the template is refused before anything starts; one in a value
    // (the counterparty above) never makes a folder.
    await expect(
      core.files.start(profile.id, {
        scope: { by: 'ids', kind: 'file', ids: targets.map((t) => t.id) },
        destination: path.join(destination, 'typed'),
        template: '{counterparty}/{originalName}',
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'template' });
    for (const [template, layout] of [
      ['{originalName}', 'flat'],
      ['{counterparty} {originalName}', 'supplier'],
    ] as const) {
      const target = path.join(destination, layout);
      const { job } = await core.files.start(profile.id, {
        scope: { by: 'ids', kind: 'file', ids: targets.map((t) => t.id) },
        destination: target,
        template,
        layout,
      });
      expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
      expect(core.files.status(profile.id, job.id).files.done).toBe(hostile.length);
      // Nothing outside the destination: the parent holds only the two destinations.
      expect(readdirSync(path.join(dir, 'safe')).sort()).toEqual(['out']);
      const names = listFiles(target);
      expect(names).toHaveLength(hostile.length + 1);
      for (const name of names) {
        const full = path.resolve(target, name);
        expect(path.relative(target, full).startsWith('..')).toBe(false);
        for (const segment of name.split('/')) {
          expect(segment).not.toMatch(/[\p{Cc}<>:"\\|?*]/u);
          expect(segment).not.toMatch(/[. ]$/);
          expect(segment).not.toMatch(/^\.\.?$/);
          expect(segment.split('.')[0]).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)$/i);
          expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(255);
        }
      }
      // Case-insensitive collisions are numbered, not overwritten.
      const lower = names.map((name) => name.toLowerCase());
      expect(new Set(lower).size).toBe(lower.length);
      for (const row of readManifest(path.join(target, 'manifest.csv')))
        expect(sha256Of(path.join(target, ...(row['file'] ?? '').split('/')))).toBe(row['sha256']);
    }
    expect(listFiles(path.join(destination, 'supplier')).every((name) => !name.includes('climb/'))).toBe(
      true,
    );
  });
});
