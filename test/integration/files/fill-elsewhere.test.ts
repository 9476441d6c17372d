import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src-main/core';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { FILLING_ELSEWHERE_MESSAGE } from '../../../src-shared/files';
import { contentRequests, sandboxFile, sha256Of } from '../../helpers/files';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// The offline file cache of one organisation across two processes: the app fills it after its
// syncs and the command line sweeps it after its own, each under the fill lease
// (files/fill-lease.ts), and a preview in the app fetches into it too. Every process here is
// real: the CLI, or the app's fill in a process of its own.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

function spawnNode(dataDir: string, args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: repoRoot,
    env: { ...process.env, SATCHEL_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null)));
  });
  // The fill's result is the last line its process printed (log lines may come before it).
  const result = () => JSON.parse(stdout.slice(stdout.lastIndexOf('\n{') + 1)) as Record<string, unknown>;
  return { child, exited, output: () => output, result };
}

const spawnCli = (dataDir: string, args: string[]) =>
  spawnNode(dataDir, [path.join(repoRoot, 'src-main/cli.ts'), ...args]);
const spawnFill = (dataDir: string, profileId: string) =>
  spawnNode(dataDir, [path.join(repoRoot, 'test/helpers/fill-process.ts'), dataDir, profileId]);

type Fixture = Awaited<ReturnType<ReturnType<typeof useCliProfiles>>>;

/**
 * A synced organisation whose keep-offline setting asks for `budgetBytes` of its newest files,
 * and the app's core on it, fresh (no fill of this session yet), whose fill looks every 100 ms
 * whether another process's fill is over.
 */
async function keeping(name: string, budgetBytes: number): Promise<Fixture> {
  const fixture = await connect(name);
  const { core, profile, sandbox, dataDir } = fixture;
  expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
  core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes });
  await core.close();
  sandbox.control?.clearRequests();
  const app: Core = createCore({
    dataDir,
    secrets: createKeychainSecrets(),
    fillLease: { heartbeatMs: 100 },
  });
  return { ...fixture, core: app };
}

/** Every file in the organisation's folder is a whole copy: no `.part` file, each sha256 right. */
function expectWholeCopies(fixture: Fixture): string[] {
  const root = fixture.core.files.filesRoot(fixture.profile.id);
  const names = readdirSync(root);
  for (const name of names) {
    expect(name.endsWith('.part'), name).toBe(false);
    expect(sha256Of(path.join(root, name)), name).toBe(
      sandboxFile(fixture.sandbox, name.split('.')[0]!).sha256,
    );
  }
  return names;
}

const leaseOwner = (fixture: Fixture) =>
  fixture.core
    .cacheOf(fixture.profile.id)
    .sqlite.prepare('SELECT pid FROM offline_fill_lease')
    .pluck()
    .get() as number | undefined;

describe('the offline file cache filled by two processes', () => {
  it('is filled by one process at a time: the other skips, says so, and no file is fetched twice', async () => {
    const fixture = await keeping('One filler', 60_000);
    const { sandbox, dataDir, core, profile } = fixture;
    try {
      sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 150 });
      const other = spawnFill(dataDir, profile.id);
      await until(() => contentRequests(sandbox).size >= 2, 'the other process to start filling', 60_000);
      expect(leaseOwner(fixture)).toBe(other.child.pid);

      // The app's fill after its own sync, while the other fills: it does not run beside it.
      await expect(core.files.fillOffline(profile.id)).resolves.toMatchObject({
        elsewhere: true,
        fetched: 0,
      });
      const usage = core.files.offlineScope(profile.id);
      // Not a failure: no last fill of this session, and the Files area's words for it.
      expect(usage).toMatchObject({ filling: false, fillingElsewhere: true, lastFill: null });
      expect(FILLING_ELSEWHERE_MESSAGE).toBe(
        'Another Satchel window or command is filling the offline files.',
      );

      expect(await other.exited, other.output()).toBe(0);
      expect(other.result()).toMatchObject({ failed: 0 });
      // Once the other gave the lease back, this process fills (nothing left to fetch).
      await until(
        () => core.files.offlineScope(profile.id).lastFill !== null,
        'the fill here after the other',
      );
      expect(core.files.offlineScope(profile.id)).toMatchObject({
        fillingElsewhere: false,
        lastFill: { fetched: 0, failed: 0, problem: null },
      });
      const requested = contentRequests(sandbox);
      expect([...requested].filter(([, count]) => count > 1)).toEqual([]);
      const names = expectWholeCopies(fixture);
      expect(names.length).toBe(requested.size);
      expect(core.files.offlineScope(profile.id)).toMatchObject({ wantedCached: names.length });
    } finally {
      await core.close();
    }
  }, 240_000);

  it('takes the fill over from a filler that was killed', async () => {
    const fixture = await keeping('Killed filler', 60_000);
    const { sandbox, dataDir, core, profile } = fixture;
    try {
      sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 300 });
      const other = spawnFill(dataDir, profile.id);
      await until(() => contentRequests(sandbox).size >= 6, 'the other process to fill a few files', 60_000);
      expect(leaseOwner(fixture)).toBe(other.child.pid);
      await expect(core.files.fillOffline(profile.id)).resolves.toMatchObject({ elsewhere: true });
      other.child.kill('SIGKILL');
      await other.exited;
      sandbox.control?.clearFaults();

      // Its process is gone: the lease is taken over at once (at the next look), not after two
      // minutes, and the skipped fill runs here.
      await until(
        () => core.files.offlineScope(profile.id).lastFill !== null,
        'the fill here after the kill',
      );
      expect(core.files.offlineScope(profile.id).lastFill).toMatchObject({ failed: 0, problem: null });
      expect(leaseOwner(fixture)).toBeUndefined();
      const requested = contentRequests(sandbox);
      // Only what the killed process had in flight (two at a time) is asked for twice.
      expect([...requested.values()].filter((count) => count > 1).length).toBeLessThanOrEqual(2);
      const names = expectWholeCopies(fixture);
      expect(core.files.offlineScope(profile.id)).toMatchObject({
        wantedCached: names.length,
        fillingElsewhere: false,
      });
    } finally {
      await core.close();
    }
  }, 240_000);

  it('opens at once a receipt the other process is fetching for its fill, each writing its own file', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Preview beside a fill');
    try {
      const file = sandbox.state.files[0]!;
      sandbox.control?.replaceFile(file.id, { content: new Uint8Array(3_000_000).fill(9) });
      expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
      await core.files.fillOffline(profile.id);
      core.files.setOfflineScope(profile.id, { mode: 'all', budgetBytes: 2_000_000_000 });
      sandbox.control?.clearRequests();
      // The receipt arrives slowly, to the other process's fill and to the preview alike.
      sandbox.control?.addFault({ match: `/v1/files/${file.id}/content`, slowBodyMs: 6_000, times: 2 });
      const other = spawnFill(dataDir, profile.id);
      await until(
        () => (contentRequests(sandbox).get(file.id) ?? 0) >= 1,
        'the other to fetch the receipt',
        60_000,
      );

      // Fetched here too rather than after the other's whole fill, into a `.part` of its own.
      const opened = await core.files.fetch(profile.id, file.id);
      expect(opened).toMatchObject({ fileId: file.id, size: 3_000_000 });
      expect(await other.exited, other.output()).toBe(0);
      expect(other.result()).toMatchObject({ failed: 0 });
      expect(contentRequests(sandbox).get(file.id)).toBe(2);
      const root = core.files.filesRoot(profile.id);
      for (const name of readdirSync(root)) {
        expect(name.endsWith('.part'), name).toBe(false);
        expect(sha256Of(path.join(root, name)), name).toBe(sandboxFile(sandbox, name.split('.')[0]!).sha256);
      }
    } finally {
      await core.close();
    }
  }, 240_000);

  it('keeps a preview the app is still writing while the command line syncs and sweeps the folder', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Preview beside a sync');
    try {
      // A receipt large enough to be written to its `.part` file as it arrives, arriving slowly.
      const file = sandbox.state.files[0]!;
      sandbox.control?.replaceFile(file.id, { content: new Uint8Array(3_000_000).fill(7) });
      expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
      await core.files.fillOffline(profile.id);
      sandbox.control?.clearRequests();
      sandbox.control?.addFault({ match: 'getFileContent', slowBodyMs: 30_000, times: 1 });
      const root = core.files.filesRoot(profile.id);
      let settled = false;
      const preview = core.files.fetch(profile.id, file.id).finally(() => (settled = true));
      await until(
        () => existsSync(root) && readdirSync(root).some((name) => name.endsWith('.part')),
        'the preview to start writing',
      );

      // `satchel sync` sweeps the folder after its sync (it fetches nothing) before it exits.
      const cli = spawnCli(dataDir, ['sync']);
      expect(await cli.exited, cli.output()).toBe(0);
      expect(settled).toBe(false); // still arriving: the sweep had something to leave alone

      await expect(preview).resolves.toMatchObject({ fileId: file.id, size: 3_000_000 });
      expect(contentRequests(sandbox).get(file.id)).toBe(1);
      expect(readdirSync(root)).toEqual([`${file.id}${path.extname(readdirSync(root)[0]!)}`]);
      expect(sha256Of(path.join(root, readdirSync(root)[0]!))).toBe(sandboxFile(sandbox, file.id).sha256);
    } finally {
      await core.close();
    }
  }, 240_000);
});
