import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { startPrivateKeyring, type PrivateKeyring } from '../helpers/keyring';
import { useTempDirs } from '../helpers/temp-dir';

// Settings' keychain status, per organisation: one organisation's key in a second keyring that
// is locked while the default keyring is not (a real GNOME Keyring on a bus of its own,
// test/helpers/keyring.ts). The status must name that organisation as locked, with the locked
// keyring's label, and not the one whose key is in the default keyring; before, it said only
// "available", while the first organisation's sync said the keychain is locked.

const tempDir = useTempDirs();
let keyring: PrivateKeyring;
beforeAll(async () => {
  keyring = await startPrivateKeyring();
  // Before this process's first keychain call: libsecret connects once.
  process.env['DBUS_SESSION_BUS_ADDRESS'] = keyring.address;
});
afterAll(() => keyring?.stop());

describe('the keychain status with a key in a second, locked keyring', () => {
  it('names the organisation whose key is locked, and only it, until the keyring is unlocked', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-status-orgs-${randomUUID()}` });
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 20 });
    const core = createCore({ dataDir: path.join(tempDir(), 'data'), secrets });
    const handlers = createHandlers(core);
    const auth = { kind: 'client' as const, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret };
    try {
      // Its key goes to the login keyring, then the default one.
      const elsewhere = await core.addProfile({ name: 'Elsewhere GmbH', baseUrl: sandbox.url, auth });
      expect(await dispatch(handlers, 'keychain.status', {})).toEqual({
        ok: true,
        value: { available: true, lockedKeys: [] },
      });
      // The session keyring becomes the default: the next key goes there, and the login keyring,
      // locked, is a second keyring.
      keyring.makeSessionDefault();
      const here = await core.addProfile({ name: 'Default AG', baseUrl: sandbox.url, auth });
      keyring.lock();

      const status = await dispatch(handlers, 'keychain.status', {});
      expect(status).toEqual({
        ok: true,
        value: {
          available: true,
          lockedKeys: [
            {
              profileId: elsewhere.id,
              keyring: 'Login',
              message: expect.stringMatching(
                /^Its key is in a locked keyring, so it cannot sync\. Unlock that keyring in your system's keyring manager \(on Linux: the "Login" keyring in Passwords and Keys, or sign in to your desktop again\), then try again\./,
              ),
            },
          ],
        },
      });
      // What the status says is what the syncs find.
      const locked = await dispatch(handlers, 'sync.start', { profileId: elsewhere.id });
      expect(locked).toMatchObject({
        ok: true,
        value: {
          outcome: 'failed',
          errors: [
            {
              code: 'KEYCHAIN_LOCKED',
              message: expect.stringMatching(/keychain is locked.*Unlock it .*the "Login" keyring/s),
            },
          ],
        },
      });
      expect(await dispatch(handlers, 'sync.start', { profileId: here.id })).toMatchObject({
        ok: true,
        value: { outcome: 'succeeded' },
      });

      await keyring.unlock();
      expect(await dispatch(handlers, 'keychain.status', {})).toEqual({
        ok: true,
        value: { available: true, lockedKeys: [] },
      });
    } finally {
      await core.close();
      if (keyring.locked()) await keyring.unlock();
      for (const account of await secrets.list()) await secrets.delete(account);
      await sandbox.stop();
    }
  });
});
