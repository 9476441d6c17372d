import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { startSandbox } from '../../../src-sandbox';
import { readApi, readCache, sortById } from '../../helpers/api-snapshot';
import { runCli } from '../../helpers/cli';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { useTempDirs } from '../../helpers/temp-dir';

// The CLI syncs in a child process that is killed with SIGKILL at ten random moments and
// restarted each time; the cache must end exactly equal to the API, nothing lost or doubled.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const tempDir = useTempDirs();
const secrets = createKeychainSecrets(); // the CLI uses the default keychain service
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await deleteProfileSecrets(secrets, tempDir.list()); // only this test's entries
});

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/**
 * Runs `satchel sync` in a child process and kills it with SIGKILL `extraMs` after its
 * `afterRequests`-th request reached the sandbox: the kill lands while an answer is awaited or,
 * a moment later, while a page is parsed and committed. Counting requests instead of time keeps
 * every run short of the end of the sync on a fast machine as on a slow one.
 */
function syncUntilKilled(
  dataDir: string,
  sandbox: Sandbox,
  afterRequests: number,
  extraMs: number,
): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve, reject) => {
    const before = sandbox.control?.requests().length ?? 0;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'src-main/cli.ts'), 'sync'],
      {
        cwd: repoRoot,
        env: { ...process.env, SATCHEL_DATA_DIR: dataDir },
        stdio: 'ignore',
      },
    );
    const deadline = Date.now() + 60_000;
    const poll = setInterval(() => {
      const made = (sandbox.control?.requests().length ?? 0) - before;
      if (made < afterRequests && Date.now() < deadline) return;
      clearInterval(poll);
      setTimeout(() => child.kill('SIGKILL'), made < afterRequests ? 0 : extraMs);
    }, 2);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      resolve(signal ?? code);
    });
  });
}

describe('sync killed and restarted', () => {
  it('ends exact after ten SIGKILLs at random moments', async () => {
    // Slow answers stretch the sync so that kills land in the middle of pages and windows.
    const sandbox = await startSandbox({
      port: 0,
      seed: 11,
      transactions: 3000,
      control: true,
      readLimit: 100_000,
    });
    stops.push(() => sandbox.stop());
    sandbox.control?.addFault({ match: '*', latencyMs: 40 });
    const dataDir = path.join(tempDir(), 'data');
    const core = createCore({ dataDir, secrets });
    await core.profiles.add({
      name: 'Killed',
      baseUrl: sandbox.url,
      auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    });
    await core.close();

    // A full sync of this organisation takes 98 requests; ten runs of at most 8 each cannot
    // finish it, so every run is killed in the middle.
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const outcomes: Array<NodeJS.Signals | number | null> = [];
    for (let kill = 0; kill < 10; kill += 1)
      outcomes.push(
        await syncUntilKilled(dataDir, sandbox, 1 + Math.floor(random() * 8), Math.floor(random() * 60)),
      );
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => 'SIGKILL'));

    sandbox.control?.clearFaults();
    const final = await runCli(['sync'], { env: { SATCHEL_DATA_DIR: dataDir }, timeoutMs: 120_000 });
    expect(final.stderr).not.toContain('satchel:');
    expect(final.code).toBe(0);

    const check = createCore({ dataDir, secrets });
    const [profile] = check.profiles.list();
    const api = await readApi(sandbox.url, sandbox.clientId, sandbox.clientSecret);
    const cache = readCache(check.cacheOf(profile?.id ?? ''));
    for (const [resource, records] of Object.entries(api))
      expect(cache[resource], resource).toEqual(sortById(records));
    const runs = check.sync.history(profile?.id ?? '', 50).map((run) => run.outcome);
    expect(runs[0]).toBe('succeeded');
    expect(runs.filter((outcome) => outcome === 'interrupted').length).toBeGreaterThanOrEqual(8);
    await check.close();
  }, 300_000);
});
