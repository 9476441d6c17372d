import { rmSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveFileRoute } from '../../../src-main/shell/file-route';
import { connectedCore } from '../../helpers/sync-fixture';
import { contentRequests, sandboxFile, sha256Of } from '../../helpers/files';
import { useTempDirs } from '../../helpers/temp-dir';

// The offline file cache as an accountant leans on it: what is on disk is what the record says
// (a copy cut short or gone is fetched again, by the preview and by the fill alike), and two
// asks for one file fetch it once.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function synced() {
  const dir = tempDir();
  const fixture = await connectedCore(dir, { readLimit: 100_000 });
  closers.push(() => fixture.close());
  expect((await fixture.core.sync.sync(fixture.profile.id)).outcome).toBe('succeeded');
  fixture.sandbox.control?.clearRequests();
  return { ...fixture, dir };
}

describe('offline file cache', () => {
  it('fetches again a cached copy that was cut short or removed, instead of serving it', async () => {
    const { core, profile, sandbox } = await synced();
    const file = sandbox.state.files.find((f) => f.mimeType === 'application/pdf')!;
    const record = sandboxFile(sandbox, file.id);
    const first = await core.files.fetch(profile.id, file.id);
    const route = resolveFileRoute(first.url, {
      filesRoot: (id) => core.files.filesRoot(id),
      allowed: (id) => id === profile.id,
    });
    if (!route.ok) throw new Error(route.reason);
    // A crash of the disk, a sync tool or a cleaner cut the copy short.
    truncateSync(route.path, Math.floor(statSync(route.path).size / 2));
    await core.files.fetch(profile.id, file.id);
    expect(contentRequests(sandbox).get(file.id)).toBe(2);
    expect(sha256Of(route.path)).toBe(record.sha256);
    // Removed altogether.
    rmSync(route.path);
    await core.files.fetch(profile.id, file.id);
    expect(contentRequests(sandbox).get(file.id)).toBe(3);
    expect(sha256Of(route.path)).toBe(record.sha256);
  });

  it('fills again the kept files whose copies were cut short or removed, and counts only good ones', async () => {
    const { core, profile, sandbox } = await synced();
    core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: 20_000 });
    const first = await core.files.fillOffline(profile.id);
    expect(first.failed).toBe(0);
    expect(first.fetched).toBeGreaterThan(5);
    const { sqlite } = core.cacheOf(profile.id);
    const kept = sqlite
      .prepare(
        `SELECT id, local_path AS localPath FROM expense_files WHERE local_path IS NOT NULL ORDER BY id`,
      )
      .all() as Array<{ id: string; localPath: string }>;
    const root = core.files.filesRoot(profile.id);
    const [cut, gone] = kept;
    truncateSync(path.join(root, cut!.localPath), 10);
    rmSync(path.join(root, gone!.localPath));

    sandbox.control?.clearRequests();
    const again = await core.files.fillOffline(profile.id);
    expect(again).toMatchObject({ fetched: 2, failed: 0 });
    expect([...contentRequests(sandbox).keys()].sort()).toEqual([cut!.id, gone!.id].sort());
    for (const row of [cut!, gone!])
      expect(sha256Of(path.join(root, row.localPath))).toBe(sandboxFile(sandbox, row.id).sha256);
    const usage = core.files.offlineScope(profile.id);
    expect(usage.wantedCached).toBe(usage.wantedFiles);
  });

  it('fetches a file once when it is asked for twice at the same time', async () => {
    const { core, profile, sandbox } = await synced();
    const file = sandbox.state.files.find((f) => f.mimeType === 'image/png')!;
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 100 });
    const [a, b] = await Promise.all([
      core.files.fetch(profile.id, file.id),
      core.files.fetch(profile.id, file.id),
    ]);
    expect(a).toEqual(b);
    expect(contentRequests(sandbox).get(file.id)).toBe(1);
    expect(sha256Of(path.join(core.files.filesRoot(profile.id), `${file.id}.png`))).toBe(
      sandboxFile(sandbox, file.id).sha256,
    );
  });
});
