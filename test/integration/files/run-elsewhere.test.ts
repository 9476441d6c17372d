import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { createEventBus } from '../../../src-main/events';
import { createJobLeases, RUN_TAKEN_OVER_MESSAGE } from '../../../src-main/files/job-lease';
import { createFileService } from '../../../src-main/files/service';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { defaultMigrationsDir, openCache } from '../../../src-main/store';
import { startSandbox } from '../../../src-sandbox';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { contentRequests, sha256Of, sandboxFile, listFiles } from '../../helpers/files';
import { sandboxClient, syncFromSandbox } from '../../helpers/sandbox-sync';
import { useTempDirs } from '../../helpers/temp-dir';

// One run of a download job at a time across processes (files/job-lease.ts): the app and the
// command line are separate processes on one cache, and neither may run a job the other runs.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);
const PROFILE = '00000000-0000-4000-8000-000000000001';

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a download run by another process', () => {
  it('is neither run again, resumed, paused nor cancelled here, and each file is fetched once', async () => {
    const { sandbox, dataDir, core, profile, cacheFile } = await connect('Elsewhere', { transactions: 1500 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 20 });
    sandbox.control?.clearRequests();
    const destination = path.join(tempDir(), 'out');
    const args = ['--to', destination, '--layout', 'month'];
    const total = sandbox.state.files.length;

    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'src-main/cli.ts'), 'download', ...args],
      {
        cwd: repoRoot,
        env: { ...process.env, SATCHEL_DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let childOut = '';
    child.stdout.on('data', (chunk: Buffer) => (childOut += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (childOut += chunk.toString()));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => resolve(code));
    });
    await until(
      'the first download to get going',
      () => (sandbox.control?.requests('getFileContent').length ?? 0) >= 60,
    );

    // The same command again, as a second terminal would run it: refused, nothing fetched by it.
    const again = await runCli(['download', ...args], {
      env: { SATCHEL_DATA_DIR: dataDir },
      timeoutMs: 60_000,
    });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('This download is running in another Satchel window or command');
    expect(again.stderr).not.toContain('Continuing the download');

    // The app starting on the same data folder: the job is not interrupted, so not resumed; its
    // controls are the other process's.
    const app = createCore({ dataDir, secrets: createKeychainSecrets() });
    try {
      expect(app.files.resumeInterrupted(profile.id)).toEqual([]);
      const [listed] = app.files.list(profile.id);
      expect(listed).toMatchObject({ status: 'running', active: false, elsewhere: true });
      const jobId = listed!.id;
      for (const command of [
        () => app.files.pause(profile.id, jobId),
        () => app.files.resume(profile.id, jobId),
        () => app.files.retry(profile.id, jobId),
      ])
        expect(command).toThrow('running in another Satchel window or command');
      await expect(app.files.cancel(profile.id, jobId)).rejects.toThrow('running in another Satchel window');
      await expect(
        app.files.start(profile.id, {
          scope: { by: 'all' },
          destination,
          layout: 'month',
        }),
      ).rejects.toThrow('running in another Satchel window or command');

      expect(await exited, childOut).toBe(0);
      // Ended there: no longer elsewhere, and finished.
      expect(app.files.list(profile.id)[0]).toMatchObject({ status: 'completed', elsewhere: false });
    } finally {
      await app.close();
    }

    const requested = contentRequests(sandbox);
    expect(requested.size).toBe(total);
    expect([...requested.values()].every((count) => count === 1)).toBe(true);
    for (const file of listFiles(destination).filter((name) => name !== 'manifest.csv')) {
      expect(file.startsWith('.')).toBe(false);
    }
    const db = new Database(cacheFile, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM download_runs').get()).toEqual({ n: 0 });
      const done = db
        .prepare(`SELECT file_id AS id, relative_path AS path FROM download_items`)
        .all() as Array<{
        id: string;
        path: string;
      }>;
      for (const item of done)
        expect(sha256Of(path.join(destination, ...item.path.split('/')))).toBe(
          sandboxFile(sandbox, item.id).sha256,
        );
    } finally {
      db.close();
    }
  }, 240_000);

  it('stops without writing the job when another process takes its run over', async () => {
    const sandbox = await startSandbox({
      port: 0,
      seed: 7,
      control: true,
      readLimit: 100_000,
      transactions: 800,
    });
    try {
      const dir = tempDir();
      const cache = openCache(path.join(dir, 'cache.sqlite'), { migrationsDir: defaultMigrationsDir() });
      await syncFromSandbox(cache, sandbox);
      sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 30 });
      const files = createFileService({
        dataDir: dir,
        cacheOf: () => cache,
        clientOf: () => sandboxClient(sandbox),
        syncing: () => false,
        events: createEventBus(),
        now: () => new Date(),
        concurrency: 2,
        jobLeases: createJobLeases({ heartbeatMs: 50 }),
      });
      const { job } = await files.start(PROFILE, {
        scope: { by: 'all' },
        destination: path.join(dir, 'out'),
      });
      await until('a few files', () => (sandbox.control?.requests('getFileContent').length ?? 0) >= 10);
      // Another process's takeover, as its `take` writes it after this one went silent.
      cache.sqlite
        .prepare(`UPDATE download_runs SET owner = 'another', pid = ?, heartbeat_at = ? WHERE job_id = ?`)
        .run(process.ppid, new Date().toISOString(), job.id);
      const result = await files.wait(PROFILE, job.id);
      expect(result.error?.message).toBe(RUN_TAKEN_OVER_MESSAGE);
      // Left as the other run has it: still running, not paused, pending or completed here.
      expect(files.status(PROFILE, job.id)).toMatchObject({
        status: 'running',
        active: false,
        elsewhere: true,
      });
      expect(cache.sqlite.prepare('SELECT owner FROM download_runs WHERE job_id = ?').get(job.id)).toEqual({
        owner: 'another',
      });
      const requested = sandbox.control?.requests('getFileContent').length ?? 0;
      expect(requested).toBeLessThan(sandbox.state.files.length);
      cache.close();
    } finally {
      await sandbox.stop();
    }
  }, 120_000);
});
