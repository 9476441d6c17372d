import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { startSandbox } from '../../../src-sandbox';
import { runCli } from '../../helpers/cli';
import { contentRequests, listFiles, readManifest, sandboxFile, sha256Of } from '../../helpers/files';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel download` in a child process, killed with SIGKILL twice in the middle and run again
// with the same options: it continues the same job, and no file that was already in the folder
// when the process died is requested again.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** Starts the download and kills it once `afterFiles` more file requests have arrived. */
async function downloadUntilKilled(sandbox: Sandbox, dataDir: string, args: string[], afterFiles: number) {
  const before = sandbox.control?.requests('getFileContent').length ?? 0;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src-main/cli.ts'), 'download', ...args],
    { cwd: repoRoot, env: { ...process.env, SATCHEL_DATA_DIR: dataDir }, stdio: 'ignore' },
  );
  const exited = new Promise<NodeJS.Signals | number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(signal ?? code));
  });
  const deadline = Date.now() + 60_000;
  while ((sandbox.control?.requests('getFileContent').length ?? 0) < before + afterFiles) {
    if (Date.now() > deadline) throw new Error('the download did not get going');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGKILL');
  return exited;
}

describe('download killed and run again', () => {
  it('resumes after SIGKILLs without fetching any finished file again', async () => {
    const { sandbox, dataDir, core, profile, cacheFile } = await connect('Killed', { transactions: 3000 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();

    // Slow answers, so that the kills land while files are in flight.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 15 });
    const destination = path.join(tempDir(), 'out');
    const args = ['--to', destination, '--layout', 'supplier'];
    const total = sandbox.state.files.length;

    let finishedIds = new Set<string>();
    for (const afterFiles of [250, 400, null]) {
      sandbox.control?.clearRequests();
      if (afterFiles !== null) {
        expect(await downloadUntilKilled(sandbox, dataDir, args, afterFiles)).toBe('SIGKILL');
      } else {
        sandbox.control?.clearFaults();
        const final = await runCli(['download', ...args], {
          env: { SATCHEL_DATA_DIR: dataDir },
          timeoutMs: 120_000,
        });
        expect(final.stderr).not.toContain('satchel:');
        expect(final.code).toBe(0);
        expect(final.stderr).toContain('Continuing the download');
        expect(final.stdout).toContain(`${total} of ${total} files`);
      }
      // Not one file that was in the folder when the last run died was asked for again.
      const requested = contentRequests(sandbox);
      expect([...finishedIds].filter((id) => requested.has(id))).toEqual([]);
      if (afterFiles !== null) expect(requested.size).toBeGreaterThan(0);

      const db = new Database(cacheFile, { readonly: true });
      const items = db
        .prepare(`SELECT relative_path AS path, file_id AS id, status FROM download_items`)
        .all() as Array<{
        path: string;
        id: string;
        status: string;
      }>;
      db.close();
      const onDisk = new Set(listFiles(destination));
      // Every file recorded as done is in the folder (a file may be there a moment before its record).
      for (const item of items)
        if (item.status === 'done') expect(onDisk.has(item.path), item.path).toBe(true);
      finishedIds = new Set(items.filter((item) => onDisk.has(item.path)).map((item) => item.id));
      if (afterFiles !== null) {
        expect(finishedIds.size).toBeGreaterThan(0);
        expect(finishedIds.size).toBeLessThan(total);
      }
    }

    const manifest = readManifest(path.join(destination, 'manifest.csv'));
    expect(manifest).toHaveLength(total);
    for (const row of manifest) {
      const file = path.join(destination, ...(row['file'] ?? '').split('/'));
      expect(existsSync(file)).toBe(true);
      expect(sha256Of(file)).toBe(sandboxFile(sandbox, row['file_id'] ?? '').sha256);
    }
    expect(listFiles(destination).filter((name) => name.startsWith('.'))).toEqual([]);
    for (const row of manifest) if (row['status'] !== 'done') throw new Error(`${row['file']} not done`);
  }, 180_000);
});
