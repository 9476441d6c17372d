import { existsSync, readdirSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { AppError } from '../../../src-shared/errors';
import { resolveFileRoute } from '../../../src-main/shell/file-route';
import { connectedCore, syncedCore } from '../../helpers/sync-fixture';
import { contentRequests, sandboxFile, sha256Of } from '../../helpers/files';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// The offline file cache as an accountant leans on it: what is on disk is what the record says
// (a copy cut short or gone is fetched again, by the preview and by the fill alike), two asks
// for one file fetch it once, and a change of the keep-offline setting takes effect on the fill
// already running.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function synced() {
  const fixture = await syncedCore(tempDir(), closers);
  // The fill that sync started (nothing to keep yet) is over before a test sets a scope.
  await fixture.core.files.fillOffline(fixture.profile.id);
  fixture.sandbox.control?.clearRequests();
  return fixture;
}

/**
 * `synced`, its recent files kept offline (a 10 kB budget) by a fill, then the first `count` of
 * the kept copies removed from the folder and the request log cleared: the next fill fetches them.
 */
async function keptThenRemoved(count: number) {
  const fixture = await synced();
  const { core, profile, sandbox } = fixture;
  core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: 10_000 });
  expect(await core.files.fillOffline(profile.id)).toMatchObject({ failed: 0 });
  const kept = core
    .cacheOf(profile.id)
    .sqlite.prepare(`SELECT id, local_path AS localPath FROM expense_files WHERE local_path IS NOT NULL`)
    .all() as Array<{ id: string; localPath: string }>;
  const removed = kept.slice(0, count);
  if (removed.length < count) throw new Error(`the fill kept fewer than ${count} files`);
  for (const file of removed) rmSync(path.join(core.files.filesRoot(profile.id), file.localPath));
  sandbox.control?.clearRequests();
  return { ...fixture, removed };
}

const requestCount = (sandbox: Awaited<ReturnType<typeof synced>>['sandbox']) =>
  [...contentRequests(sandbox).values()].reduce((sum, count) => sum + count, 0);

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

  it('forgets a copy gone from disk that the setting does not keep, so it is not counted', async () => {
    const { core, profile, sandbox } = await synced();
    const file = sandbox.state.files.find((f) => f.mimeType === 'application/pdf')!;
    const opened = await core.files.fetch(profile.id, file.id); // opened once, kept as a preview
    expect(core.files.offlineScope(profile.id)).toMatchObject({ cachedFiles: 1, cachedBytes: opened.size });
    rmSync(path.join(core.files.filesRoot(profile.id), `${file.id}.pdf`));
    await core.files.fillOffline(profile.id); // the fill after the next sync
    expect(core.files.offlineScope(profile.id)).toMatchObject({ cachedFiles: 0, cachedBytes: 0 });
  });

  it('clears what no copy records out of the folder: parts of stopped fetches, lost copies', async () => {
    const { core, profile, sandbox } = await synced();
    core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: 10_000 });
    await core.files.fillOffline(profile.id);
    const root = core.files.filesRoot(profile.id);
    const kept = readdirSync(root).sort();
    expect(kept.length).toBeGreaterThan(5);
    const { sqlite } = core.cacheOf(profile.id);
    const [part, lost] = sqlite
      .prepare(`SELECT id FROM expense_files WHERE local_path IS NULL ORDER BY id LIMIT 2`)
      .pluck()
      .all() as string[];
    // A fetch stopped midway (a fill whose setting changed, a quit) and a copy whose row was
    // cleared without it, for files the setting does not keep: room the budget does not see.
    // Left long ago: a fill's sweep removes them.
    const long = new Date('2020-01-01T00:00:00Z');
    for (const name of [`${part}.part`, `${lost}.pdf`]) {
      writeFileSync(path.join(root, name), Buffer.alloc(50_000));
      utimesSync(path.join(root, name), long, long);
    }
    sandbox.control?.clearRequests();
    await core.files.fillOffline(profile.id);
    expect(readdirSync(root).sort()).toEqual(kept);
    expect(contentRequests(sandbox).size).toBe(0);
  });

  it('leaves what was written in the last two minutes: another process may be writing or recording it', async () => {
    const { core, profile } = await synced();
    core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: 10_000 });
    await core.files.fillOffline(profile.id);
    const root = core.files.filesRoot(profile.id);
    const { sqlite } = core.cacheOf(profile.id);
    const [preview, placed, old] = sqlite
      .prepare(`SELECT id FROM expense_files WHERE local_path IS NULL ORDER BY id LIMIT 3`)
      .pluck()
      .all() as string[];
    // Another process's preview still arriving, and a copy it has put in place but not yet
    // recorded; beside them a `.part` file of the same kind left long ago.
    const writing = [`${preview}.4242-0a1b2c3d.part`, `${placed}.pdf`];
    for (const name of writing) writeFileSync(path.join(root, name), Buffer.alloc(5_000));
    const long = new Date('2020-01-01T00:00:00Z');
    writeFileSync(path.join(root, `${old}.4242-0a1b2c3d.part`), Buffer.alloc(5_000));
    utimesSync(path.join(root, `${old}.4242-0a1b2c3d.part`), long, long);
    await core.files.fillOffline(profile.id);
    const left = readdirSync(root);
    for (const name of writing) expect(left).toContain(name);
    expect(left).not.toContain(`${old}.4242-0a1b2c3d.part`);
    // Nor is such a copy taken as the record's until it is done: a `.part` file never is.
    expect(
      sqlite.prepare(`SELECT local_path FROM expense_files WHERE id = ?`).pluck().get(preview),
    ).toBeNull();
  });

  it('takes the files its folder holds after a rebuild instead of fetching them again', async () => {
    const { core, profile, sandbox, secrets, dir } = await synced();
    core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: 20_000 });
    await core.files.fillOffline(profile.id);
    const root = core.files.filesRoot(profile.id);
    const kept = readdirSync(root).sort();
    expect(kept.length).toBeGreaterThan(5);
    // One copy whose bytes are not the record's (a disk fault): never taken as the file.
    const [wrong] = kept;
    const wrongBytes = Buffer.alloc(statSync(path.join(root, wrong!)).size, 0x41);
    writeFileSync(path.join(root, wrong!), wrongBytes);
    await core.close();
    // A later version of Satchel migrated the copy further: set aside and rebuilt.
    const file = core.profiles.cacheFile(profile.id);
    const sqlite = new Database(file);
    sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run('from-the-future', 4_102_444_800_000);
    sqlite.close();
    const fresh = createCore({ dataDir: path.join(dir, 'data'), secrets });
    closers.push(() => fresh.close());
    await fresh.rebuildCache(profile.id);
    sandbox.control?.clearRequests();

    expect((await fresh.sync.sync(profile.id)).outcome).toBe('succeeded');
    await fresh.files.fillOffline(profile.id);
    // Only the copy that differed is fetched; the others are the fresh copy's, in place.
    expect([...contentRequests(sandbox).keys()]).toEqual([wrong!.split('.')[0]]);
    expect(readdirSync(root).sort()).toEqual(kept);
    for (const name of kept)
      expect(sha256Of(path.join(root, name))).toBe(sandboxFile(sandbox, name.split('.')[0]!).sha256);
    const usage = fresh.files.offlineScope(profile.id);
    expect(usage).toMatchObject({ cachedFiles: kept.length, wantedCached: usage.wantedFiles });
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

  it('stops a preview fetch in flight before removing the cache, and says so in plain words', async () => {
    const { core, profile, sandbox } = await synced();
    const file = sandbox.state.files.find((f) => f.mimeType === 'image/png')!;
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 1500 });
    const opened = core.files.fetch(profile.id, file.id);
    void opened.catch(() => undefined);
    await until(() => requestCount(sandbox) >= 1);
    await core.files.removeCache(profile.id);
    // The fetch ended before the folder went: not an ENOENT of a folder that is gone.
    const error = await opened.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CANCELLED' });
    expect(existsSync(core.files.filesRoot(profile.id))).toBe(false);
  });

  it('opens a receipt the fill was fetching when the setting changes under it', async () => {
    const { core, profile, sandbox } = await synced();
    // The fill's first two requests are slow; anything after answers at once.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 1500, times: 2 });
    core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes: 20_000 });
    const fill = core.files.fillOffline(profile.id);
    await until(() => requestCount(sandbox) >= 1);
    const fileId = [...contentRequests(sandbox).keys()][0]!;
    const opened = core.files.fetch(profile.id, fileId); // waits for the fill's copy
    core.files.setOfflineScope(profile.id, { mode: 'none' }); // which is stopped
    await expect(opened).resolves.toMatchObject({ fileId });
    await fill;
    expect(contentRequests(sandbox).get(fileId)).toBe(2);
    const { sqlite } = core.cacheOf(profile.id);
    const localPath = sqlite
      .prepare(`SELECT local_path FROM expense_files WHERE id = ?`)
      .pluck()
      .get(fileId) as string;
    expect(sha256Of(path.join(core.files.filesRoot(profile.id), localPath))).toBe(
      sandboxFile(sandbox, fileId).sha256,
    );
  });

  it('applies a new keep-offline setting to the fill already running, wider or smaller', async () => {
    const { core, profile, sandbox } = await synced();
    // Slow bodies, so that each fill is still running when the setting changes.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 40 });
    core.files.setOfflineScope(profile.id, { mode: 'recent', days: 3650, budgetBytes: 20_000 });
    const narrow = core.files.fillOffline(profile.id);
    await until(() => requestCount(sandbox) >= 2);

    // Every file, in a larger budget: the fill the caller waits for brings exactly that.
    core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes: 80_000 });
    const wide = core.files.fillOffline(profile.id);
    await until(() => requestCount(sandbox) >= 60);
    expect(core.files.offlineScope(profile.id).filling).toBe(true);

    // Then a smaller budget, while it still fills: nothing more is fetched past it.
    const budget = 10_000;
    core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes: budget });
    const small = await core.files.fillOffline(profile.id);
    expect(small.failed).toBe(0);
    // Those who waited on the earlier fills are answered too.
    await expect(narrow).resolves.toMatchObject({ failed: 0 });
    await expect(wide).resolves.toMatchObject({ failed: 0 });
    const usage = core.files.offlineScope(profile.id);
    expect(usage).toMatchObject({ filling: false, scope: { mode: 'all', budgetBytes: budget } });
    expect(usage.cachedBytes).toBeLessThanOrEqual(budget);
    expect(usage.wantedCached).toBe(usage.wantedFiles);
    expect(usage.wantedFiles).toBeGreaterThan(5);

    // And widening again while nothing runs still works: the next fill brings the rest.
    core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes: 40_000 });
    await core.files.fillOffline(profile.id);
    const wider = core.files.offlineScope(profile.id);
    expect(wider.cachedBytes).toBeLessThanOrEqual(40_000);
    expect(wider.wantedCached).toBe(wider.wantedFiles);
    expect(wider.wantedFiles).toBeGreaterThan(usage.wantedFiles);
    expect(existsSync(core.files.filesRoot(profile.id))).toBe(true);
  });

  it('fills in a second round the files a sync brought while a fill was running', async () => {
    const { core, profile, sandbox } = await synced();
    const { sqlite } = core.cacheOf(profile.id);
    // The newest files are not known yet: as if they came with a sync still to finish.
    const newest = sqlite
      .prepare(
        `SELECT f.id FROM expense_files f JOIN expenses e ON e.id = f.expense_id
         ORDER BY e.expense_time DESC, f.id LIMIT 5`,
      )
      .pluck()
      .all() as string[];
    const mark = sqlite.prepare(`UPDATE expense_files SET deleted_at = ? WHERE id = ?`);
    for (const id of newest) mark.run('2020-01-01T00:00:00Z', id);
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 40 });
    core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes: 20_000 });
    const running = core.files.fillOffline(profile.id);
    await until(() => requestCount(sandbox) >= 2);
    // The sync writes them and, finishing, asks for a fill: the one running takes them in.
    for (const id of newest) mark.run(null, id);
    const after = core.files.fillOffline(profile.id);
    await Promise.all([running, after]);
    const usage = core.files.offlineScope(profile.id);
    expect(usage).toMatchObject({ filling: false });
    expect(usage.wantedCached).toBe(usage.wantedFiles);
    expect(usage.cachedBytes).toBeLessThanOrEqual(20_000);
    for (const id of newest) expect(contentRequests(sandbox).get(id)).toBe(1);
  });

  it('says at once that a file not kept offline cannot be opened while the system has no network', async () => {
    const { core, profile, sandbox } = await synced();
    const [kept, missing] = sandbox.state.files.filter((f) => f.mimeType === 'application/pdf');
    await core.files.fetch(profile.id, kept!.id);
    sandbox.control?.clearRequests();
    core.connectivity.setNetwork(false);
    await expect(core.files.fetch(profile.id, missing!.id)).rejects.toMatchObject({
      code: 'OFFLINE',
      message: expect.stringMatching(/not on this computer.*no network/),
    });
    expect(contentRequests(sandbox).size).toBe(0);
    // What is kept opens as ever.
    await expect(core.files.fetch(profile.id, kept!.id)).resolves.toMatchObject({ fileId: kept!.id });
    core.connectivity.setNetwork(true);
    await expect(core.files.fetch(profile.id, missing!.id)).resolves.toMatchObject({ fileId: missing!.id });
  });

  it('tells how the last fill ended: the files it could not fetch, then what stopped it', async () => {
    const { core, profile, sandbox, removed } = await keptThenRemoved(2);
    const [damaged] = removed;
    // One body arrives damaged at every attempt: after the fill's three, that file is left out;
    // the other is kept.
    sandbox.control?.addFault({ match: `/v1/files/${damaged!.id}/content`, corruptBody: true });
    const first = await core.files.fillOffline(profile.id);
    expect(first).toMatchObject({ fetched: 1, failed: 1 });
    expect(contentRequests(sandbox).get(damaged!.id)).toBe(3);
    const usage = core.files.offlineScope(profile.id);
    expect(usage.wantedCached).toBe(usage.wantedFiles - 1);
    expect(usage.lastFill).toMatchObject({ fetched: 1, failed: 1, problem: null });
    // The next fill, with the system off the network, stops at once and says why.
    core.connectivity.setNetwork(false);
    await expect(core.files.fillOffline(profile.id)).rejects.toMatchObject({ code: 'OFFLINE' });
    expect(core.files.offlineScope(profile.id)).toMatchObject({
      filling: false,
      lastFill: { fetched: 0, failed: 0, problem: expect.stringMatching(/no network/) },
    });
  });

  it('fills a file whose body broke off once in the same fill, continuing where it stopped', async () => {
    const { core, profile, sandbox, removed } = await keptThenRemoved(1);
    const [cut] = removed;
    sandbox.control?.addFault({ match: `/v1/files/${cut!.id}/content`, truncateBodyAt: 10, times: 1 });

    expect(await core.files.fillOffline(profile.id)).toMatchObject({ fetched: 1, failed: 0 });
    const ranges = (sandbox.control?.requests('getFileContent') ?? []).map((entry) => entry.range);
    expect(ranges).toEqual([undefined, 'bytes=10-']);
    const usage = core.files.offlineScope(profile.id);
    expect(usage.wantedCached).toBe(usage.wantedFiles);
    expect(usage.lastFill).toMatchObject({ fetched: 1, failed: 0, problem: null });
    expect(sha256Of(path.join(core.files.filesRoot(profile.id), cut!.localPath))).toBe(
      sandboxFile(sandbox, cut!.id).sha256,
    );
  });

  it('fails a file whose connection is reset before any answer after three attempts, not the fill', async () => {
    const { core, profile, sandbox, removed } = await keptThenRemoved(2);
    const [dropped] = removed;
    // Connected, then cut before the headers, every time: the network itself works.
    sandbox.control?.addFault({ match: `/v1/files/${dropped!.id}/content`, drop: true });

    expect(await core.files.fillOffline(profile.id)).toMatchObject({ fetched: 1, failed: 1 });
    expect(contentRequests(sandbox).get(dropped!.id)).toBe(3);
    expect(core.files.offlineScope(profile.id).lastFill).toMatchObject({
      fetched: 1,
      failed: 1,
      problem: null,
    });
    expect(core.connectivity.state()).toMatchObject({ online: true, reason: null });
  });

  it('removes the stale copy of a file whose record changed type and bytes', async () => {
    const { core, profile, sandbox } = await synced();
    const file = sandbox.state.files.find((f) => f.mimeType === 'image/png')!;
    const { sqlite } = core.cacheOf(profile.id);
    const root = core.files.filesRoot(profile.id);
    // First known without a type: kept as .bin.
    sqlite.prepare(`UPDATE expense_files SET mime_type = NULL, name = 'scan' WHERE id = ?`).run(file.id);
    await core.files.fetch(profile.id, file.id);
    expect(existsSync(path.join(root, `${file.id}.bin`))).toBe(true);
    // A later sync brings other bytes of another type: the copy is stale and fetched again.
    sqlite
      .prepare(`UPDATE expense_files SET mime_type = 'image/png', local_sha256 = 'earlier' WHERE id = ?`)
      .run(file.id);
    const again = await core.files.fetch(profile.id, file.id);
    expect(again.url).toBe(`satchel-file://${profile.id}/${file.id}.png`);
    expect(contentRequests(sandbox).get(file.id)).toBe(2);
    expect(existsSync(path.join(root, `${file.id}.bin`))).toBe(false);
    expect(sha256Of(path.join(root, `${file.id}.png`))).toBe(sandboxFile(sandbox, file.id).sha256);
  });

  it('keeps an empty receipt as an empty copy, for the preview and a bulk download alike', async () => {
    const dir = tempDir();
    const fixture = await connectedCore(dir, { transactions: 80, readLimit: 100_000 });
    closers.push(() => fixture.close());
    const { core, profile, sandbox } = fixture;
    // Uploaded empty (a scan that failed): the record says 0 bytes, and the sha256 of nothing.
    const file = sandbox.state.files.find((f) => f.mimeType === 'application/pdf')!;
    sandbox.control?.replaceFile(file.id, { content: new Uint8Array(0) });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');

    const cached = await core.files.fetch(profile.id, file.id);
    const copy = path.join(core.files.filesRoot(profile.id), `${file.id}.pdf`);
    expect(cached.url).toBe(`satchel-file://${profile.id}/${file.id}.pdf`);
    expect(statSync(copy).size).toBe(0);

    const destination = path.join(dir, 'audit');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids: [file.id] },
      destination,
      layout: 'flat',
    });
    expect(await core.files.wait(profile.id, job.id)).toEqual({ status: 'completed' });
    const written = readdirSync(destination).filter((name) => name.endsWith('.pdf'));
    expect(written).toHaveLength(1);
    expect(statSync(path.join(destination, written[0]!)).size).toBe(0);
  });
});
