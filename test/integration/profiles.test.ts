import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProfileStore } from '../../src-main/profiles';
import { createKeychainSecrets } from '../../src-main/secrets';
import { useTempDirs } from '../helpers/temp-dir';

// Real keychain (scripts/with-keyring.sh), real files in a temporary data folder.
const secrets = createKeychainSecrets({ service: `Satchel-test-${randomUUID()}` });
const tempDir = useTempDirs();

afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

function store() {
  const dataDir = tempDir();
  return { dataDir, profiles: createProfileStore({ dataDir, secrets }) };
}

describe('connections (profiles)', () => {
  it('adds a connection with its secret in the keychain and nothing secret on disk', async () => {
    const { dataDir, profiles } = store();
    const profile = await profiles.add({
      name: 'Acme GmbH',
      baseUrl: 'https://api.example.test/',
      auth: { kind: 'client', clientId: 'kid_acme', clientSecret: 'sk_acme_very_secret' },
    });
    expect(profile).toMatchObject({
      name: 'Acme GmbH',
      baseUrl: 'https://api.example.test',
      clientId: 'kid_acme',
    });
    expect(await secrets.list()).toEqual([`profile:${profile.id}`]);
    expect(readFileSync(path.join(dataDir, 'profiles.json'), 'utf8')).not.toContain('sk_acme_very_secret');
    expect(await profiles.credentials('Acme GmbH')).toEqual({
      kind: 'client',
      clientId: 'kid_acme',
      clientSecret: 'sk_acme_very_secret',
    });
  });

  it('renames, re-authenticates and removes with cache and keychain entry', async () => {
    const { profiles } = store();
    const profile = await profiles.add({
      name: 'Beta',
      baseUrl: 'http://127.0.0.1:4010',
      auth: { kind: 'token', accessToken: 'tok_1' },
    });
    expect(profiles.rename(profile.id, 'Beta Ltd').name).toBe('Beta Ltd');
    await profiles.reauthenticate(profile.id, {
      kind: 'client',
      clientId: 'kid_beta',
      clientSecret: 'sk_beta',
    });
    expect(await profiles.credentials(profile.id)).toEqual({
      kind: 'client',
      clientId: 'kid_beta',
      clientSecret: 'sk_beta',
    });

    mkdirSync(path.dirname(profiles.cacheFile(profile.id)), { recursive: true });
    writeFileSync(profiles.cacheFile(profile.id), 'cache');
    writeFileSync(`${profiles.cacheFile(profile.id)}-wal`, 'wal');
    await profiles.remove(profile.id);
    expect(existsSync(profiles.cacheFile(profile.id))).toBe(false);
    expect(existsSync(`${profiles.cacheFile(profile.id)}-wal`)).toBe(false);
    expect(await secrets.list()).toEqual([]);
    expect(profiles.list()).toEqual([]);
  });

  it('names the field of a bad connection and writes nothing', async () => {
    const { dataDir, profiles } = store();
    await expect(
      profiles.add({ name: ' ', baseUrl: 'https://x.test', auth: { kind: 'token', accessToken: 't' } }),
    ).rejects.toMatchObject({ field: 'name' });
    await expect(
      profiles.add({ name: 'A', baseUrl: 'ftp://x.test', auth: { kind: 'token', accessToken: 't' } }),
    ).rejects.toMatchObject({ field: 'baseUrl' });
    await expect(
      profiles.add({
        name: 'A',
        baseUrl: 'https://x.test',
        auth: { kind: 'client', clientId: '', clientSecret: 's' },
      }),
    ).rejects.toMatchObject({ field: 'auth' });
    expect(existsSync(path.join(dataDir, 'profiles.json'))).toBe(false);
    expect(await secrets.list()).toEqual([]);
  });

  it('says the list is damaged when profiles.json is not JSON, and leaves it and the keychain alone', async () => {
    const { dataDir, profiles } = store();
    const file = path.join(dataDir, 'profiles.json');
    for (const damaged of ['{"version":1,"profiles":[{"id"', '', '\u0000\u0000\u0000']) {
      writeFileSync(file, damaged);
      expect(() => profiles.list(), JSON.stringify(damaged)).toThrow(
        expect.objectContaining({ code: 'INTERNAL', message: expect.stringMatching(/is damaged/) }),
      );
      await expect(
        profiles.add({ name: 'A', baseUrl: 'https://x.test', auth: { kind: 'token', accessToken: 't' } }),
      ).rejects.toMatchObject({ code: 'INTERNAL' });
      expect(readFileSync(file, 'utf8')).toBe(damaged);
    }
    expect(await secrets.list()).toEqual([]);
  });

  it('says the list cannot be read when profiles.json is not a file, and writes nothing', async () => {
    const { dataDir, profiles } = store();
    const file = path.join(dataDir, 'profiles.json');
    // A folder where the list should be: reading it fails as a file the user may not read would.
    mkdirSync(file);
    expect(() => profiles.list()).toThrow(
      expect.objectContaining({
        code: 'INTERNAL',
        message: expect.stringMatching(
          /^Satchel cannot read the list of organisations \(.*profiles\.json\): /,
        ),
      }),
    );
    await expect(
      profiles.add({ name: 'A', baseUrl: 'https://x.test', auth: { kind: 'token', accessToken: 't' } }),
    ).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringMatching(/cannot read the list/) });
    expect(await secrets.list()).toEqual([]);
  });

  it('refuses a second connection with the same name', async () => {
    const { profiles } = store();
    await profiles.add({
      name: 'Acme',
      baseUrl: 'https://x.test',
      auth: { kind: 'token', accessToken: 't' },
    });
    await expect(
      profiles.add({ name: 'acme', baseUrl: 'https://y.test', auth: { kind: 'token', accessToken: 'u' } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'name' });
  });

  it('says what to do when the keychain lost the secret', async () => {
    const { profiles } = store();
    const profile = await profiles.add({
      name: 'Gone',
      baseUrl: 'https://x.test',
      auth: { kind: 'token', accessToken: 't' },
    });
    await secrets.delete(`profile:${profile.id}`);
    await expect(profiles.credentials(profile.id)).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      message: expect.stringMatching(/Enter the API key again/),
    });
  });

  it('leaves the keychain as the list says when the list cannot be saved', async () => {
    const { dataDir, profiles } = store();
    const kept = await profiles.add({
      name: 'Kept',
      baseUrl: 'https://api.example.test',
      auth: { kind: 'client', clientId: 'kid_kept', clientSecret: 'sk_kept' },
    });
    // A folder where the list's temporary file goes: every save fails, as on a full disk.
    const listFile = path.join(dataDir, 'profiles.json');
    const before = readFileSync(listFile, 'utf8');
    mkdirSync(`${listFile}.${process.pid}.tmp`);

    await expect(
      profiles.add({
        name: 'Lost',
        baseUrl: 'https://api.example.test',
        auth: { kind: 'client', clientId: 'kid_lost', clientSecret: 'sk_lost' },
      }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/Could not save the list of organisations.*Nothing was changed/),
    });
    // No secret left behind for a connection that is not listed.
    expect(await secrets.list()).toEqual([`profile:${kept.id}`]);

    await expect(
      profiles.reauthenticate(kept.id, { kind: 'client', clientId: 'kid_new', clientSecret: 'sk_new' }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/Could not save/) });
    // The old key is back, matching the client id the list still has.
    expect(await profiles.credentials(kept.id)).toEqual({
      kind: 'client',
      clientId: 'kid_kept',
      clientSecret: 'sk_kept',
    });
    expect(readFileSync(listFile, 'utf8')).toBe(before);
  });
});
