import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { contentRequests } from '../../helpers/files';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel sync` on an organisation that keeps its files offline: the command exits as soon as
// its sync is done, so it starts no fill of the offline files it would stop at once (requests
// spent for nothing, `.part` files left); the app fills the cache. It still clears the folder
// of what a stopped fetch left long ago.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

describe('satchel sync and the offline files', () => {
  it('asks for no file content with keep-offline set, and still clears stale leftovers', async () => {
    const { core, profile, sandbox, dataDir } = await connect('Keeps files');
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    // A second organisation, synced after the first: a fill the first's sync started would
    // fetch while it syncs.
    const second = await core.profiles.add({
      name: 'Keeps files too',
      baseUrl: sandbox.url,
      auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    });
    // The newest files wanted (60 kB of them), none fetched yet: the setting alone starts no fill.
    for (const id of [profile.id, second.id])
      core.files.setOfflineScope(id, { mode: 'all', budgetBytes: 60_000 });
    expect(core.files.offlineScope(profile.id)).toMatchObject({ cachedFiles: 0 });
    expect(core.files.offlineScope(profile.id).wantedFiles).toBeGreaterThan(10);
    const root = core.files.filesRoot(profile.id);
    await core.close();
    // A preview's `.part` file an hour old, of a fetch stopped long ago: the sweep's to remove.
    mkdirSync(root, { recursive: true });
    const stale = path.join(root, `${sandbox.state.files[0]!.id}.4242-0a1b2c3d.part`);
    writeFileSync(stale, 'half a receipt');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, anHourAgo, anHourAgo);
    sandbox.control?.clearRequests();

    const synced = await runCli(['sync'], { env: { SATCHEL_DATA_DIR: dataDir } });
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(
      /^Keeps files: succeeded, \d+ records written\nKeeps files too: succeeded, \d+ records written\n$/,
    );
    expect([...contentRequests(sandbox)]).toEqual([]);
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(root)).toEqual([]);

    // The app, opened on the folder, keeps the files offline: its fill fetches them.
    const app = createCore({ dataDir, secrets: createKeychainSecrets() });
    try {
      const filled = await app.files.fillOffline(profile.id);
      expect(filled).toMatchObject({ failed: 0 });
      expect(filled.fetched).toBe(contentRequests(sandbox).size);
      expect(filled.fetched).toBeGreaterThan(10);
    } finally {
      await app.close();
    }
  }, 120_000);
});
