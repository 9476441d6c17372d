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

let keyring: PrivateKeyring;
beforeAll(async () => {
  keyring = await startPrivateKeyring();
});
afterAll(() => keyring?.stop());

const service = `Satchel-status-${randomUUID()}`;

function askStatus(...args: string[]) {
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

describe('the keychain status', () => {
  it('answers, without crashing, while an item of the service is in a locked keyring that is not the default', async () => {
    expect(askStatus('store', 'profile:locked-away')).toMatchObject({
      signal: null,
      answer: { ok: true, status: { available: true } },
    });
    // The item stays in the login keyring; another keyring becomes the default, and the login
    // keyring is locked: the default keyring's lock check says unlocked.
    keyring.makeSessionDefault();
    keyring.lock();
    expect(await defaultKeyringLocked(keyring.address)).toBe(false);

    const asked = askStatus();
    expect(asked.signal, asked.stderr).toBeNull();
    expect(asked).toMatchObject({ status: 0, answer: { ok: true, status: { available: true } } });
  });
});
