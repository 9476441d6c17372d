import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultKeyringLocked } from '../../src-main/secrets/locked';
import { startPrivateKeyring, type PrivateKeyring } from '../helpers/keyring';

// Settings asks the keychain's status each time it is shown, and every 5 s while it is not
// available. The status must not crash the app where a search of the service's items would: a
// locked item the default keyring's lock check does not see (the item in a second keyring,
// locked; the same as a keyring locked between the check and the search). A real GNOME Keyring
// on a bus of its own (test/helpers/keyring.ts); the keychain is asked in a child process, whose
// end (a signal, or its answer) is what the test reads.

function ask(keyring: PrivateKeyring, service: string, ...args: string[]) {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.resolve('test/fixtures/keychain-status.ts'), service, ...args],
    {
      encoding: 'utf8',
      // No display: an unlock prompt cannot be shown, as on a locked screen nobody answers it.
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: keyring.address, DISPLAY: '' },
      timeout: 30_000,
    },
  );
  const last = result.stdout.trim().split('\n').at(-1) ?? '';
  return {
    signal: result.signal,
    status: result.status,
    stderr: result.stderr,
    answer: last ? JSON.parse(last) : null,
  };
}

const locked = {
  code: 'KEYCHAIN_LOCKED',
  message: expect.stringMatching(
    /^The system keychain is locked.*Unlock it.*Nothing needs to be entered again/s,
  ),
};

describe('an item of the service in a locked keyring that is not the default', () => {
  let keyring: PrivateKeyring;
  const service = `Satchel-status-${randomUUID()}`;
  beforeAll(async () => {
    keyring = await startPrivateKeyring();
    expect(ask(keyring, service, 'store', 'profile:locked-away')).toMatchObject({
      signal: null,
      answer: { ok: true, status: { available: true } },
    });
    // The item stays in the login keyring; another keyring becomes the default, and the login
    // keyring is locked: the default keyring's lock check says unlocked.
    keyring.makeSessionDefault();
    keyring.lock();
    expect(await defaultKeyringLocked(keyring.address)).toBe(false);
  });
  afterAll(() => keyring?.stop());

  it('leaves the status answering, without crashing', () => {
    const asked = ask(keyring, service);
    expect(asked.signal, asked.stderr).toBeNull();
    expect(asked).toMatchObject({ status: 0, answer: { ok: true, status: { available: true } } });
  });

  it('says locked, not missing, when its key is read or deleted; a key never stored is still missing', () => {
    // Missing would send the user to enter the key again, and a removal would leave it behind.
    expect(ask(keyring, service, 'get', 'profile:locked-away')).toMatchObject({
      signal: null,
      answer: { ok: false, error: locked },
    });
    expect(ask(keyring, service, 'delete', 'profile:locked-away')).toMatchObject({
      signal: null,
      answer: { ok: false, error: locked },
    });
    expect(ask(keyring, service, 'get', 'profile:never-stored')).toMatchObject({
      signal: null,
      answer: { ok: true, value: null },
    });
  });

  it('refuses a list (and the recovery that lists) with the locked words instead of crashing', () => {
    const listed = ask(keyring, service, 'list');
    expect(listed.signal, listed.stderr).toBeNull();
    expect(listed).toMatchObject({ status: 0, answer: { ok: false, error: locked } });
    const recovered = ask(keyring, service, 'recover');
    expect(recovered.signal, recovered.stderr).toBeNull();
    expect(recovered).toMatchObject({
      status: 0,
      answer: { ok: true, value: { keychainProblem: locked.message } },
    });
  });

  it('reads, lists and deletes the key as before once the keyring is unlocked', async () => {
    await keyring.unlock();
    try {
      expect(ask(keyring, service, 'get', 'profile:locked-away')).toMatchObject({
        answer: { ok: true, value: 'stored-secret' },
      });
      expect(ask(keyring, service, 'list')).toMatchObject({
        answer: { ok: true, value: ['profile:locked-away'] },
      });
      expect(ask(keyring, service, 'delete', 'profile:locked-away')).toMatchObject({
        answer: { ok: true, value: true },
      });
      expect(ask(keyring, service, 'get', 'profile:locked-away')).toMatchObject({
        answer: { ok: true, value: null },
      });
    } finally {
      keyring.lock();
    }
  });
});

describe('a Secret Service with no default keyring', () => {
  let keyring: PrivateKeyring;
  const service = `Satchel-nodefault-${randomUUID()}`;
  beforeAll(async () => {
    keyring = await startPrivateKeyring();
    keyring.deleteLogin();
  });
  afterAll(() => keyring?.stop());

  it('gives the same answer from the status as from storing a key: no keyring to keep it in', () => {
    const noDefault = {
      code: 'KEYCHAIN_LOCKED',
      message: expect.stringMatching(
        /^The system keychain has no default keyring.*Create one.*then try again/s,
      ),
    };
    const status = ask(keyring, service);
    expect(status).toMatchObject({ answer: { ok: true, status: { available: false, ...noDefault } } });
    const stored = ask(keyring, service, 'store', 'profile:new');
    expect(stored).toMatchObject({ answer: { ok: false, error: noDefault } });
    // Reading needs no default keyring: a key that is not there is missing, not locked.
    expect(ask(keyring, service, 'get', 'profile:new')).toMatchObject({ answer: { ok: true, value: null } });
  });
});
