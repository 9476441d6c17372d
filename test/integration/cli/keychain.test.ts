import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { runCli } from '../../helpers/cli';
import { contentRequests } from '../../helpers/files';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// The CLI when the credentials cannot be read (no session bus: no Secret Service answers). The
// keychain's problem concerns every request, so a sync fails at once and a download stops at
// once, paused, each with the keychain's own words said once, instead of failing resource
// after resource or file after file; once the keychain answers, the same commands finish.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

const NO_KEYCHAIN = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };

describe('the command line without a keychain', () => {
  it('fails a sync and pauses a download at once, and both go on once it answers', async () => {
    const { sandbox, dataDir, core, cacheFile } = await connect('Locked out', { transactions: 600 });
    await core.close();

    // A sync: failed at the first resource, the reason once, nothing read.
    const noSync = await runCli(['sync'], { env: { SATCHEL_DATA_DIR: dataDir, ...NO_KEYCHAIN } });
    expect(noSync.code).toBe(1);
    expect(noSync.stdout).toContain('Locked out: failed, 0 records written');
    expect(noSync.stderr.match(/No keychain answered/g)).toHaveLength(1);
    expect(sandbox.control?.requests()).toEqual([]);
    const synced = await runCli(['sync'], { env: { SATCHEL_DATA_DIR: dataDir } });
    expect(synced.code).toBe(0);
    sandbox.control?.clearRequests();
    const destination = path.join(tempDir(), 'out');
    const args = ['download', '--to', destination];

    // A download: paused at once, no file failed or asked for.
    const noKeychain = await runCli(args, { env: { SATCHEL_DATA_DIR: dataDir, ...NO_KEYCHAIN } });
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
    expect(again.stderr).not.toContain('satchel:');
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Continuing the download');
    expect(again.stdout).toMatch(/(\d+) of \1 files in /);
  }, 120_000);

  it('removes nothing when the keychain does not answer, and everything once it does', async () => {
    const { dataDir, core, profile, cacheFile } = await connect('Kept whole', { transactions: 50 });
    await core.close();
    expect((await runCli(['sync'], { env: { SATCHEL_DATA_DIR: dataDir } })).code).toBe(0);
    // A file of the offline copy (as a preview or a cached receipt leaves one).
    const offlineFile = path.join(dataDir, 'files', profile.id, 'receipt.pdf');
    mkdirSync(path.dirname(offlineFile), { recursive: true });
    writeFileSync(offlineFile, 'receipt');
    const registry = readFileSync(path.join(dataDir, 'profiles.json'), 'utf8');
    const secret = await createKeychainSecrets().get(`profile:${profile.id}`);
    expect(secret).not.toBeNull();

    const refused = await runCli(['profile', 'remove', 'Kept whole', '--force'], {
      env: { SATCHEL_DATA_DIR: dataDir, ...NO_KEYCHAIN },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('No keychain answered');
    expect(refused.stderr).toContain('"Kept whole" was not removed');
    // Everything as it was: listed, its cache and files in place, its key in the keychain.
    expect(readFileSync(path.join(dataDir, 'profiles.json'), 'utf8')).toBe(registry);
    expect(existsSync(cacheFile)).toBe(true);
    expect(readFileSync(offlineFile, 'utf8')).toBe('receipt');
    expect(await createKeychainSecrets().get(`profile:${profile.id}`)).toBe(secret);
    // Still usable: a sync goes on from the copy it has.
    expect((await runCli(['sync'], { env: { SATCHEL_DATA_DIR: dataDir } })).code).toBe(0);

    const removed = await runCli(['profile', 'remove', 'Kept whole', '--force'], {
      env: { SATCHEL_DATA_DIR: dataDir },
    });
    expect(removed).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Removed "Kept whole", its cache and its keychain entry.\n',
    });
    expect(existsSync(cacheFile)).toBe(false);
    expect(existsSync(offlineFile)).toBe(false);
    expect(await createKeychainSecrets().get(`profile:${profile.id}`)).toBeNull();
  }, 120_000);
});
