import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { startSandbox } from '../../../src-sandbox';
import { runCli } from '../../helpers/cli';
import { contentRequests } from '../../helpers/files';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel download` when the credentials cannot be read: the keychain's problem concerns every
// file, so the job stops at once, paused with the keychain's own words, instead of failing
// every file one by one; once the keychain answers, the same command finishes it.

const tempDir = useTempDirs();
const secrets = createKeychainSecrets(); // the CLI uses the default keychain service
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await deleteProfileSecrets(secrets, tempDir.list()); // only this test's entries
});

describe('satchel download without a keychain', () => {
  it('stops at once, paused, and goes on once the keychain answers', async () => {
    const sandbox = await startSandbox({
      port: 0,
      seed: 7,
      transactions: 600,
      control: true,
      readLimit: 100_000,
    });
    stops.push(() => sandbox.stop());
    const dataDir = path.join(tempDir(), 'data');
    const core = createCore({ dataDir, secrets });
    const profile = await core.profiles.add({
      name: 'Locked out',
      baseUrl: sandbox.url,
      auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const cacheFile = core.profiles.cacheFile(profile.id);
    await core.close();
    sandbox.control?.clearRequests();
    const destination = path.join(tempDir(), 'out');
    const args = ['download', '--to', destination];

    // No session bus to reach the Secret Service on: no keychain answers.
    const noKeychain = await runCli(args, {
      env: { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
    });
    expect(noKeychain.code).toBe(1);
    expect(noKeychain.stderr.match(/No keychain answered/g)).toHaveLength(1);
    expect(noKeychain.stdout).toMatch(/0 of \d+ files in /);
    expect(noKeychain.stdout).not.toContain('failed');
    const db = new Database(cacheFile, { readonly: true });
    const job = db.prepare(`SELECT status FROM download_jobs`).get() as { status: string };
    const failed = db.prepare(`SELECT count(*) FROM download_items WHERE status = 'failed'`).pluck().get();
    db.close();
    expect(job.status).toBe('paused');
    expect(failed).toBe(0);
    expect(existsSync(path.join(destination, 'manifest.csv'))).toBe(false);
    expect(contentRequests(sandbox).size).toBe(0);

    const again = await runCli(args, { env: { SATCHEL_DATA_DIR: dataDir }, timeoutMs: 120_000 });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Continuing the download');
    expect(again.stdout).toMatch(/(\d+) of \1 files in /);
  }, 120_000);
});
