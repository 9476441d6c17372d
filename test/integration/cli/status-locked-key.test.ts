import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { startSandbox } from '../../../src-sandbox';
import { runCli } from '../../helpers/cli';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { startPrivateKeyring, type PrivateKeyring } from '../../helpers/keyring';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel status` with one organisation's key in a second keyring that is locked, the default
// keyring unlocked (a real GNOME Keyring on a bus of its own): it says so for that organisation,
// as Settings does, where it used to say only "available" while that organisation's sync said
// the keychain is locked.

const tempDir = useTempDirs();
let keyring: PrivateKeyring;
beforeAll(async () => {
  keyring = await startPrivateKeyring();
  // Before this process's first keychain call: libsecret connects once.
  process.env['DBUS_SESSION_BUS_ADDRESS'] = keyring.address;
});
afterAll(() => keyring?.stop());
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('satchel status with a key in a locked second keyring', { timeout: 120_000 }, () => {
  it('names that organisation and what to do, and only it', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 20 });
    const dataDir = path.join(tempDir(), 'data');
    // The default service: the one the command line reads.
    const secrets = createKeychainSecrets();
    const core = createCore({ dataDir, secrets });
    const auth = { kind: 'client' as const, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret };
    cleanups.push(async () => {
      if (keyring.locked()) await keyring.unlock();
      await deleteProfileSecrets(secrets, [dataDir]);
      await sandbox.stop();
    });
    // Its key goes to the login keyring, the default one now.
    const elsewhere = await core.profiles.add({ name: 'Elsewhere GmbH', baseUrl: sandbox.url, auth });
    // The session keyring becomes the default: the next key goes there; the login keyring is
    // then a second keyring, and is locked.
    keyring.makeSessionDefault();
    await core.profiles.add({ name: 'Default AG', baseUrl: sandbox.url, auth });
    await core.close();
    keyring.lock();
    const env = { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: keyring.address };

    const text = await runCli(['status'], { env });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      '\nKeychain: available, but the key of one organisation is in a locked keyring (below).\n',
    );
    expect(text.stdout).toMatch(
      /\nElsewhere GmbH: Its key is in a locked keyring, so it cannot sync\. Unlock that keyring .*"Login" keyring/,
    );
    expect(text.stdout).not.toMatch(/\nDefault AG: /);

    const json = await runCli(['status', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      keychain: {
        available: true,
        lockedKeys: [
          { profileId: elsewhere.id, keyring: 'Login', message: expect.stringContaining('Unlock') },
        ],
      },
    });
    await keyring.unlock();
    const after = await runCli(['status'], { env });
    expect(after.stdout).toContain('\nKeychain: available\n');
  });
});
