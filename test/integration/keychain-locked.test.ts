import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { startPrivateKeyring, type PrivateKeyring } from '../helpers/keyring';
import { useTempDirs } from '../helpers/temp-dir';

// The app started while the login keyring is locked (a screen lock, another login session, a
// keyring left locked after a password change), against a real GNOME Keyring that the test
// locks and unlocks. Reading and reviewing need no secret; everything that signs in says the
// keychain is locked, loses nothing, and works once it is unlocked, with no key asked again.

const tempDir = useTempDirs();
let keyring: PrivateKeyring;
beforeAll(async () => {
  keyring = await startPrivateKeyring();
  // Before this process's first keychain call: libsecret connects once.
  process.env['DBUS_SESSION_BUS_ADDRESS'] = keyring.address;
});
afterAll(() => keyring?.stop());

const locked = { code: 'KEYCHAIN_LOCKED', message: expect.stringMatching(/keychain is locked.*Unlock it/s) };

describe('a locked keyring', () => {
  it('reads offline, says “locked” for every sign-in, keeps the edit, and works once unlocked', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-locked-${randomUUID()}` });
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 60, control: true });
    const dataDir = path.join(tempDir(), 'data');
    try {
      const first = createCore({ dataDir, secrets });
      const profile = await first.addProfile({
        name: 'Locked GmbH',
        baseUrl: sandbox.url,
        auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
      });
      expect((await first.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
      await first.close();

      keyring.lock();
      // Started while locked: no token in memory, every request must ask the keychain.
      const core = createCore({ dataDir, secrets });
      const handlers = createHandlers(core);
      try {
        const profileId = profile.id;
        // The default keyring is the login one, which holds the organisation's key: both said.
        expect(await dispatch(handlers, 'keychain.status', {})).toMatchObject({
          ok: true,
          value: {
            available: false,
            ...locked,
            lockedKeys: [{ profileId: profile.id, keyring: 'Login' }],
          },
        });
        expect(await dispatch(handlers, 'profiles.list', {})).toMatchObject({
          ok: true,
          value: { profiles: [{ name: 'Locked GmbH' }] },
        });
        const found = await dispatch(handlers, 'transactions.search', {
          profileId,
          search: {},
        });
        expect(found).toMatchObject({
          ok: true,
          value: { rows: expect.arrayContaining([expect.anything()]) },
        });
        const supplier = sandbox.state.suppliers[3]!;
        expect(
          await dispatch(handlers, 'suppliers.update', {
            profileId,
            id: supplier.id,
            input: { name: 'Kept AG' },
          }),
        ).toMatchObject({ ok: true });

        const sync = await dispatch(handlers, 'sync.start', { profileId });
        expect(sync).toMatchObject({ ok: true, value: { outcome: 'failed', errors: [locked] } });
        const push = await dispatch(handlers, 'edits.push', { profileId });
        expect(push).toMatchObject({ ok: true });
        const waiting = await dispatch(handlers, 'edits.list', { profileId });
        expect(waiting).toMatchObject({
          ok: true,
          value: { items: [{ recordId: supplier.id, status: 'pending', error: locked }] },
        });
        const file = sandbox.state.files[0]!;
        expect(await dispatch(handlers, 'files.fetch', { profileId, fileId: file.id })).toMatchObject({
          ok: false,
          error: locked,
        });
        // Not taken for the network: the API was never asked.
        expect(core.connectivity.state()).toMatchObject({ online: true });
        expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).not.toBe('Kept AG');
        // Removing it would leave its key behind in the locked keyring: refused, all kept.
        expect(await dispatch(handlers, 'profiles.remove', { id: profileId })).toMatchObject({
          ok: false,
          error: locked,
        });

        await keyring.unlock();
        // The same core, no key entered again: the next sync signs in and sends the edit.
        const again = await dispatch(handlers, 'sync.start', { profileId });
        expect(again).toMatchObject({ ok: true, value: { outcome: 'succeeded' } });
        expect(await dispatch(handlers, 'edits.list', { profileId })).toEqual({
          ok: true,
          value: { items: [] },
        });
        expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Kept AG');
        expect(await dispatch(handlers, 'files.fetch', { profileId, fileId: file.id })).toMatchObject({
          ok: true,
        });
        expect(await dispatch(handlers, 'keychain.status', {})).toEqual({
          ok: true,
          value: { available: true, lockedKeys: [] },
        });
      } finally {
        await core.close();
      }
    } finally {
      if (keyring.locked()) await keyring.unlock();
      for (const account of await secrets.list()) await secrets.delete(account);
      await sandbox.stop();
    }
  });
});

describe('a locked keyring that is not the default one', () => {
  // Last in this file: the session keyring stays the default from here on.
  it('says the organisation’s key is locked, not lost, and refuses its removal', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-locked-second-${randomUUID()}` });
    const sandbox = await startSandbox({ port: 0, seed: 6, transactions: 20, control: true });
    const dataDir = path.join(tempDir(), 'data');
    const core = createCore({ dataDir, secrets });
    const handlers = createHandlers(core);
    try {
      const profile = await core.addProfile({
        name: 'Elsewhere GmbH',
        baseUrl: sandbox.url,
        auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
      });
      // The key is in the login keyring; the session keyring becomes the default, unlocked, and
      // the login keyring is locked.
      keyring.makeSessionDefault();
      keyring.lock();
      const sync = await dispatch(handlers, 'sync.start', { profileId: profile.id });
      expect(sync).toMatchObject({ ok: true, value: { outcome: 'failed', errors: [locked] } });
      expect(await dispatch(handlers, 'profiles.remove', { id: profile.id })).toMatchObject({
        ok: false,
        error: locked,
      });
      expect(await dispatch(handlers, 'profiles.list', {})).toMatchObject({
        ok: true,
        value: { profiles: [{ name: 'Elsewhere GmbH' }] },
      });

      await keyring.unlock();
      expect(await dispatch(handlers, 'sync.start', { profileId: profile.id })).toMatchObject({
        ok: true,
        value: { outcome: 'succeeded' },
      });
    } finally {
      await core.close();
      if (keyring.locked()) await keyring.unlock();
      for (const account of await secrets.list()) await secrets.delete(account);
      await sandbox.stop();
    }
  });
});
