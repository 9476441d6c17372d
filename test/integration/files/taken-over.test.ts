import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEventBus } from '../../../src-main/events';
import { createFillLeases, type FillLeases } from '../../../src-main/files/fill-lease';
import { partialFolder } from '../../../src-main/files/folder';
import { createJobLeases, RUN_TAKEN_OVER_MESSAGE, type JobLeases } from '../../../src-main/files/job-lease';
import { createFileService } from '../../../src-main/files/service';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../../src-main/store';
import { startSandbox, type Sandbox } from '../../../src-sandbox';
import { FILLING_ELSEWHERE_MESSAGE } from '../../../src-shared/files';
import { sandboxFile, sha256Of } from '../../helpers/files';
import { sandboxClient, syncFromSandbox } from '../../helpers/sandbox-sync';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// A download run or a keep-offline fill whose process went silent for two minutes (a suspended
// laptop) and whose lease another process took over meanwhile. When it wakes, its wall clock
// has moved on but its timers have not fired: its next heartbeat is up to 15 s away. It must
// not go on writing beside the run that took over: not one outcome, status or copy recorded,
// not one byte more into a `.part` file the other run continues. Two services on two
// connections to one cache file stand for the two processes; the old one's heartbeat is made
// too slow to fire during the test, and its clock is moved on by three minutes at the
// takeover, as a suspend moves it.

const tempDir = useTempDirs();
const PROFILE = '00000000-0000-4000-8000-000000000001';
const THREE_MINUTES = 3 * 60_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Side {
  cache: CacheDb;
  files: ReturnType<typeof createFileService>;
}

async function setUp(options: { bigFile?: boolean } = {}) {
  const sandbox = await startSandbox({
    port: 0,
    seed: 11,
    control: true,
    readLimit: 100_000,
    transactions: 150,
  });
  cleanups.push(() => sandbox.stop());
  // A receipt large enough to be written to its `.part` file as it arrives (over 1 MiB).
  const big = sandbox.state.files[0]!;
  if (options.bigFile) sandbox.control!.replaceFile(big.id, { content: new Uint8Array(3_000_000).fill(5) });
  const dir = tempDir();
  const file = path.join(dir, 'cache.sqlite');
  const cacheA = openCache(file, { migrationsDir: defaultMigrationsDir() });
  cleanups.push(() => cacheA.close());
  await syncFromSandbox(cacheA, sandbox);
  // The other process's own connection to the same file.
  const cacheB = openCache(file, { migrationsDir: defaultMigrationsDir() });
  cleanups.push(() => cacheB.close());

  /** The old holder's wall clock, moved on at the takeover. */
  let skew = 0;
  const now = () => Date.now() + skew;
  const oldLeases = { heartbeatMs: 600_000, now };
  const jobLeasesA = createJobLeases(oldLeases);
  const fillLeasesA = createFillLeases(oldLeases);
  // The other process sees every lease as expired: it takes the old one's over at once.
  const jobLeasesB = createJobLeases({ expiryMs: 0 });
  const fillLeasesB = createFillLeases({ expiryMs: 0 });

  const service = (cache: CacheDb, jobLeases: JobLeases, fillLeases: FillLeases, maxRetries?: number) => {
    const files = createFileService({
      dataDir: dir,
      cacheOf: () => cache,
      // Server errors are the file's to retry (three attempts), not the client's.
      clientOf: () => sandboxClient(sandbox, maxRetries === undefined ? {} : { maxRetries }),
      syncing: () => false,
      events: createEventBus(),
      now: () => new Date(),
      concurrency: 2,
      durable: false,
      jobLeases,
      fillLeases,
    });
    cleanups.push(() => files.stopAll());
    return files;
  };
  const a: Side = { cache: cacheA, files: service(cacheA, jobLeasesA, fillLeasesA, 0) };
  const b: Side = { cache: cacheB, files: service(cacheB, jobLeasesB, fillLeasesB) };
  const suspend = () => {
    skew = THREE_MINUTES;
  };
  // Once the old holder has stopped, its clock agrees with the other's again (the three minutes
  // passed for it alone here), so that each sees the other's heartbeat as it is.
  const awake = () => {
    skew = 0;
  };
  return { sandbox, dir, big, a, b, jobLeasesB, fillLeasesB, suspend, awake };
}

type Item = {
  fileId: string;
  status: string;
  attempts: number;
  error: string | null;
  finishedAt: string | null;
};
const items = (cache: CacheDb, jobId: string) =>
  cache.sqlite
    .prepare(
      `SELECT file_id AS fileId, status, attempts, error, finished_at AS finishedAt FROM download_items
       WHERE job_id = ? ORDER BY position`,
    )
    .all(jobId) as Item[];
const jobState = (cache: CacheDb, jobId: string) =>
  cache.sqlite.prepare('SELECT status, updated_at AS updatedAt FROM download_jobs WHERE id = ?').get(jobId);
const doneCount = (cache: CacheDb, jobId: string) =>
  cache.sqlite
    .prepare(`SELECT count(*) FROM download_items WHERE job_id = ? AND status = 'done'`)
    .pluck()
    .get(jobId) as number;

/** The files whose content was asked for after the `from`-th request, with how often each. */
function requestedSince(sandbox: Sandbox, from: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of sandbox.control!.requests('getFileContent').slice(from)) {
    const id = /\/v1\/files\/([^/]+)\/content/.exec(entry.path)?.[1] ?? '';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
const requestCount = (sandbox: Sandbox) => sandbox.control!.requests('getFileContent').length;

/** The new run: started in the other process on the same request, to its end. */
async function finishElsewhere(b: Side, destination: string, jobId: string) {
  const started = await b.files.start(PROFILE, { scope: { by: 'all' }, destination });
  expect(started).toMatchObject({ resumed: true, job: { id: jobId } });
  const result = await b.files.wait(PROFILE, jobId);
  expect(result.error).toBeUndefined();
  return result;
}

function expectWholeJob(sandbox: Sandbox, b: Side, destination: string, jobId: string): void {
  expect(b.files.status(PROFILE, jobId)).toMatchObject({
    status: 'completed',
    files: { failed: 0, pending: 0 },
  });
  const rows = b.cache.sqlite
    .prepare(`SELECT file_id AS id, relative_path AS path FROM download_items WHERE job_id = ?`)
    .all(jobId) as Array<{ id: string; path: string }>;
  for (const row of rows)
    expect(sha256Of(path.join(destination, ...row.path.split('/'))), row.path).toBe(
      sandboxFile(sandbox, row.id).sha256,
    );
  expect(existsSync(partialFolder(destination, jobId))).toBe(false);
  expect(b.cache.sqlite.prepare('SELECT count(*) FROM download_runs').pluck().get()).toBe(0);
}

describe('a download run taken over while its process was silent', () => {
  it('records no outcome from then on, a failure it meets included, and the new run fetches each unfinished file once', async () => {
    const { sandbox, dir, a, b, jobLeasesB, suspend, awake } = await setUp();
    const destination = path.join(dir, 'out');
    sandbox.control!.addFault({ match: 'getFileContent', latencyMs: 100 });
    const { job } = await a.files.start(PROFILE, { scope: { by: 'all' }, destination });
    await until(() => doneCount(a.cache, job.id) >= 6, 'a few files done');

    // The next two files answer a server error, a second after they are asked for, at each of
    // their three attempts.
    const failing = sandbox.control!.addFault({
      match: 'getFileContent',
      latencyMs: 1000,
      status: 503,
      times: 6,
    });
    await until(() => sandbox.control!.faultFired(failing) >= 2, 'both workers to wait on a failing file');
    // What the run finished before is recorded by now (renamed at once, recorded within 100 ms).
    await until(
      () => doneCount(a.cache, job.id) === requestCount(sandbox) - sandbox.control!.faultFired(failing),
      'the finished files to be recorded',
    );

    // The takeover, as the other process writes it once this one was silent for two minutes,
    // and this one's clock, three minutes on as it wakes.
    const stolen = jobLeasesB.take(b.cache, job.id, () => undefined);
    suspend();
    const before = items(a.cache, job.id);
    const statusBefore = jobState(a.cache, job.id);
    const requestsBefore = requestCount(sandbox);

    // The failures arrive: the run stops at the first write they lead to, and writes nothing.
    const result = await a.files.wait(PROFILE, job.id);
    expect(items(a.cache, job.id)).toEqual(before);
    expect(result.error?.message).toBe(RUN_TAKEN_OVER_MESSAGE);
    expect(before.filter((item) => item.status !== 'done').every((item) => item.attempts === 0)).toBe(true);
    expect(jobState(a.cache, job.id)).toEqual(statusBefore);
    expect(jobState(a.cache, job.id)).toMatchObject({ status: 'running' });
    // Nothing asked for again either: no retry of the failed files.
    expect(requestCount(sandbox)).toBe(requestsBefore);
    awake();
    // The Files area here shows it running elsewhere, with no controls.
    expect(a.files.status(PROFILE, job.id)).toMatchObject({ active: false, elsewhere: true });

    // The other process runs it to its end, the server well again.
    sandbox.control!.clearFaults();
    stolen!.release();
    const from = requestCount(sandbox);
    await finishElsewhere(b, destination, job.id);
    const requested = requestedSince(sandbox, from);
    const unfinished = before.filter((item) => item.status !== 'done').map((item) => item.fileId);
    expect([...requested.keys()].sort()).toEqual([...unfinished].sort());
    expect([...requested.values()].every((count) => count === 1)).toBe(true);
    expectWholeJob(sandbox, b, destination, job.id);
  }, 120_000);

  it('writes no more into the .part file of a slow file, which the new run continues', async () => {
    const { sandbox, dir, big, a, b, jobLeasesB, suspend } = await setUp({ bigFile: true });
    const destination = path.join(dir, 'out');
    // The big receipt arrives in ten pieces over 8 s: the run is in the middle of it.
    sandbox.control!.addFault({ match: `/v1/files/${big.id}/content`, slowBodyMs: 8_000, times: 1 });
    const { job } = await a.files.start(PROFILE, { scope: { by: 'all' }, destination });
    const position = a.cache.sqlite
      .prepare('SELECT position FROM download_items WHERE job_id = ? AND file_id = ?')
      .pluck()
      .get(job.id, big.id) as number;
    const part = path.join(partialFolder(destination, job.id), `${position}.part`);
    const size = () => (existsSync(part) ? statSync(part).size : 0);
    await until(() => size() >= 600_000, 'the big file to be under way', 60_000);
    // Every other file is done and recorded: the big one is all the run does now.
    await until(
      () => doneCount(a.cache, job.id) === job.files.total - 1,
      'the other files to be recorded',
      60_000,
    );

    const stolen = jobLeasesB.take(b.cache, job.id, () => undefined);
    suspend();
    const before = items(a.cache, job.id);
    const partBefore = size();
    const requestsBefore = requestCount(sandbox);

    const result = await a.files.wait(PROFILE, job.id);
    // Its next piece was not written: the file is as the takeover found it, not put in place.
    expect(size()).toBe(partBefore);
    expect(partBefore).toBeLessThan(3_000_000);
    expect(items(a.cache, job.id)).toEqual(before);
    expect(result.error?.message).toBe(RUN_TAKEN_OVER_MESSAGE);
    expect(jobState(a.cache, job.id)).toMatchObject({ status: 'running' });
    expect(requestCount(sandbox)).toBe(requestsBefore);

    stolen!.release();
    const from = requestCount(sandbox);
    await finishElsewhere(b, destination, job.id);
    // Only the big file was left, continued from the bytes the old run had written.
    const entries = sandbox.control!.requests('getFileContent').slice(from);
    expect(entries.map((entry) => entry.path)).toEqual([`/v1/files/${big.id}/content`]);
    expect(entries[0]?.range).toBe(`bytes=${partBefore}-`);
    expectWholeJob(sandbox, b, destination, job.id);
  }, 120_000);
});

describe('a keep-offline fill taken over while its process was silent', () => {
  it('records no copy and writes no .part byte from then on; the new fill fetches each missing file once', async () => {
    const { sandbox, big, a, b, fillLeasesB, suspend, awake } = await setUp({ bigFile: true });
    a.files.setOfflineScope(PROFILE, { mode: 'all', budgetBytes: 2_000_000_000 });
    const root = a.files.filesRoot(PROFILE);
    // The big receipt arrives slowly, while the other worker fetches the small ones one by one.
    sandbox.control!.addFault({ match: 'getFileContent', latencyMs: 100 });
    sandbox.control!.addFault({ match: `/v1/files/${big.id}/content`, slowBodyMs: 20_000, times: 1 });
    const recorded = () =>
      a.cache.sqlite
        .prepare(
          'SELECT id, local_path AS localPath FROM expense_files WHERE local_path IS NOT NULL ORDER BY id',
        )
        .all() as Array<{ id: string; localPath: string }>;
    const part = path.join(root, `${big.id}.part`);
    const size = () => (existsSync(part) ? statSync(part).size : 0);
    const filling = a.files.fillOffline(PROFILE);
    await until(() => size() >= 600_000, 'the big file to be under way', 60_000);
    await until(() => recorded().length >= 3, 'a few copies recorded', 60_000);

    const stolen = fillLeasesB.take(b.cache, () => undefined);
    suspend();
    const before = recorded();
    const partBefore = size();

    const stopped = await filling;
    expect(recorded()).toEqual(before);
    expect(size()).toBe(partBefore);
    expect(stopped).toMatchObject({ elsewhere: true });
    awake();
    expect(a.files.offlineScope(PROFILE)).toMatchObject({ filling: false, fillingElsewhere: true });
    expect(FILLING_ELSEWHERE_MESSAGE).toBe('Another Satchel window or command is filling the offline files.');

    // The other process fills: a copy the old fill put in place before it stopped is taken as it
    // is (its bytes checked), each file still missing is fetched once, the big one continued.
    sandbox.control!.clearFaults();
    stolen!.release();
    const from = requestCount(sandbox);
    // In place already: a copy, or a `.part` file the old fill wrote whole but did not rename
    // before it stopped, which the new fill checks and puts in place with no request.
    const placed = new Set(
      readdirSync(root)
        .filter(
          (name) =>
            !name.endsWith('.part') ||
            statSync(path.join(root, name)).size === sandboxFile(sandbox, name.split('.')[0]!).size,
        )
        .map((name) => name.split('.')[0]),
    );
    const result = await b.files.fillOffline(PROFILE);
    expect(result).toMatchObject({ failed: 0 });
    const requested = requestedSince(sandbox, from);
    const missing = recorded()
      .map((row) => row.id)
      .filter((id) => !before.some((row) => row.id === id) && !placed.has(id));
    expect([...requested.keys()].sort()).toEqual(missing.sort());
    expect([...requested.values()].every((count) => count === 1)).toBe(true);
    const bigRequest = sandbox
      .control!.requests('getFileContent')
      .slice(from)
      .find((entry) => entry.path === `/v1/files/${big.id}/content`);
    expect(bigRequest?.range).toBe(`bytes=${partBefore}-`);
    for (const name of readdirSync(root)) {
      expect(name.endsWith('.part'), name).toBe(false);
      expect(sha256Of(path.join(root, name)), name).toBe(sandboxFile(sandbox, name.split('.')[0]!).sha256);
    }
    const usage = b.files.offlineScope(PROFILE);
    expect(usage.wantedCached).toBe(usage.wantedFiles);
    expect(usage.cachedFiles).toBe(recorded().length);
  }, 180_000);
});
