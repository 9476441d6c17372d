import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reserveOf } from '../../../src-main/files/share';
import { connectedCore, type Sandbox } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// Downloads share the read bucket with sync. Under a small real limit (40 requests per 2 s
// window) a download never spends the reserve it leaves, and a sync started in its middle
// finishes while the download still runs: it is not starved. The keep-offline fill keeps to the
// same share.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const limit = 40;
const windowMs = 2000;

/** A core synced under the limit of `limit` reads per `windowMs`, its buckets full again and its request log cleared. */
async function limitedCore() {
  const dir = tempDir();
  const fixture = await connectedCore(dir, { readLimit: limit, windowSeconds: windowMs / 1000 });
  closers.push(() => fixture.close());
  expect((await fixture.core.sync.sync(fixture.profile.id)).outcome).toBe('succeeded');
  fixture.sandbox.control?.resetRateLimits();
  fixture.sandbox.control?.clearRequests();
  return { dir, ...fixture };
}

/** The sandbox's requests counted per rate-limit window: file contents, and the others. */
function requestsPerWindow(sandbox: Sandbox): Map<number, { files: number; other: number }> {
  const perWindow = new Map<number, { files: number; other: number }>();
  for (const entry of sandbox.control?.requests() ?? []) {
    const window = Math.floor(entry.at / windowMs);
    const counts = perWindow.get(window) ?? { files: 0, other: 0 };
    if (entry.operationId === 'getFileContent') counts.files += 1;
    else counts.other += 1;
    perWindow.set(window, counts);
  }
  return perWindow;
}

describe('downloads and the rate limit', () => {
  it('leaves room in every window, so a sync in the middle of a download is not starved', async () => {
    const { dir, core, profile, sandbox } = await limitedCore();

    const ids = sandbox.state.files.slice(0, 160).map((file) => file.id);
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination: path.join(dir, 'out'),
    });
    const download = core.files.wait(profile.id, job.id);
    let downloadDone = false;
    void download.then(() => (downloadDone = true));
    await new Promise((resolve) => setTimeout(resolve, windowMs * 1.5));
    const sync = await core.sync.sync(profile.id);
    expect(sync.outcome).toBe('succeeded');
    expect(downloadDone).toBe(false); // the sync finished first
    expect((await download).status).toBe('completed');

    // Per window: the download never took the whole bucket.
    const perWindow = requestsPerWindow(sandbox);
    for (const counts of perWindow.values()) {
      expect(counts.files).toBeLessThanOrEqual(limit - reserveOf(limit, false));
      expect(counts.files + counts.other).toBeLessThanOrEqual(limit);
    }
    // While the sync ran, the download kept to half of the window.
    const syncWindows = [...perWindow.values()].filter((counts) => counts.other > 0);
    expect(syncWindows.length).toBeGreaterThan(0);
    expect(Math.min(...syncWindows.map((counts) => counts.files))).toBeLessThanOrEqual(
      limit - reserveOf(limit, true),
    );
  }, 60_000);

  it("keeps the reserve when a download's requests are retried after server errors", async () => {
    const { dir, core, profile, sandbox } = await limitedCore();
    // A server having a bad moment: the first 90 file requests fail, and say to try again at
    // once. Each retry is a request of the download like any other, and keeps to its share.
    sandbox.control?.addFault({ match: 'getFileContent', status: 503, retryAfterSeconds: 0, times: 90 });

    const ids = sandbox.state.files.slice(0, 60).map((file) => file.id);
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination: path.join(dir, 'out'),
    });
    // A sync in the middle: it must find its reserve whatever the download's retries do.
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.files.wait(profile.id, job.id);

    const perWindow = requestsPerWindow(sandbox);
    const files = [...perWindow.values()].reduce((sum, counts) => sum + counts.files, 0);
    expect(files).toBeGreaterThan(90); // the retries happened
    for (const counts of perWindow.values())
      expect(counts.files).toBeLessThanOrEqual(limit - reserveOf(limit, false));
  }, 90_000);

  it('fills the offline copies through the same share: the reserve is kept in every window', async () => {
    const { core, profile, sandbox } = await limitedCore();
    // More files than two windows' worth, so the fill must wait for the bucket at least twice.
    const wanted = core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes: 2 ** 40 }).wantedFiles;
    expect(wanted).toBeGreaterThan(2 * limit);

    const fill = await core.files.fillOffline(profile.id);
    expect(fill).toMatchObject({ fetched: wanted, failed: 0 });
    expect(core.files.offlineScope(profile.id).wantedCached).toBe(wanted);

    const perWindow = requestsPerWindow(sandbox);
    const files = [...perWindow.values()].reduce((sum, counts) => sum + counts.files, 0);
    expect(files).toBe(wanted); // each file fetched once
    expect(perWindow.size).toBeGreaterThan(2);
    for (const counts of perWindow.values())
      expect(counts.files).toBeLessThanOrEqual(limit - reserveOf(limit, false));
  }, 60_000);
});
