import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import keytar from 'keytar';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startBusProxy, type BusProxy } from '../helpers/bus-proxy';
import { startPrivateKeyring, type PrivateKeyring } from '../helpers/keyring';

// `Secrets.list` names a service's accounts on Linux by asking the Secret Service itself
// (`SearchItems`, then each item's `Attributes` and `Locked`), never with libsecret's search
// (keytar's `findCredentials`), which crashes the process on a locked item and reads every
// secret on the way. Against a real GNOME Keyring: the keyring of scripts/with-keyring.sh for
// what it names; one on a bus of its own (test/helpers/keyring.ts) for what it refuses, with a
// pass-through to that bus (test/helpers/bus-proxy.ts) that sees every message the listing
// process sends, libsecret's included, and can lock a keyring between two of them.

describe('the accounts a list names', () => {
  const service = `Satchel-list-${randomUUID()}`;
  const other = `Satchel-list-other-${randomUUID()}`;
  const secrets = createKeychainSecrets({ service });
  const others = createKeychainSecrets({ service: other });
  afterEach(async () => {
    for (const account of ['profile:a', 'profile:b']) await secrets.delete(account);
    await others.delete('profile:z');
    execFileSync('secret-tool', ['clear', 'service', service, 'account', 'another-program']);
  });

  it('are exactly those stored for its service, the same as keytar’s search finds', async () => {
    expect(await secrets.list()).toEqual([]);
    await secrets.set('profile:b', 'sk_live_b');
    await secrets.set('profile:a', 'sk_live_a');
    await others.set('profile:z', 'sk_live_z');
    // An item of the service stored by another program under its own schema: keytar neither
    // finds it nor reads its secret (`get` says missing), so a list does not name it either.
    // (An item stored with no schema at all is no test of this: GNOME Keyring answers it without
    // `xdg:schema` until it reads its keyring file again, and from then on with the generic
    // schema, which is keytar's, so keytar finds it too, and so does a list.)
    execFileSync('bash', [
      '-c',
      'printf other | secret-tool store --label=x xdg:schema org.example.Other service "$1" account another-program',
      'store',
      service,
    ]);
    expect(await secrets.get('another-program')).toBeNull();

    const listed = await secrets.list();
    expect(listed).toEqual(['profile:a', 'profile:b']);
    const found = await keytar.findCredentials(service);
    expect(found.map((entry) => entry.account).sort()).toEqual(listed);
    expect(await others.list()).toEqual(['profile:z']);

    await secrets.delete('profile:b');
    expect(await secrets.list()).toEqual(['profile:a']);
  });
});

describe('a list, on a keyring that locks', () => {
  let keyring: PrivateKeyring;
  let proxy: BusProxy | null = null;
  const service = `Satchel-list-locked-${randomUUID()}`;

  /** Lists in a child process whose bus is `address`; its answer, or the signal it died of. */
  function list(address: string) {
    return new Promise<{ signal: NodeJS.Signals | null; stderr: string; answer: unknown }>(
      (resolve, reject) => {
        // Asynchronous: the proxy answers in this process meanwhile.
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', path.resolve('test/fixtures/keychain-list.ts'), service],
          // No display: an unlock prompt cannot be shown, as on a locked screen nobody answers it.
          { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, DISPLAY: '' } },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.on('error', reject);
        child.on('close', (_code, signal) => {
          clearTimeout(timer);
          const last = stdout.trim().split('\n').at(-1) ?? '';
          resolve({ signal, stderr, answer: last ? JSON.parse(last) : null });
        });
      },
    );
  }
  const lockedInLogin = {
    ok: false,
    error: {
      code: 'KEYCHAIN_LOCKED',
      message: expect.stringMatching(
        /^The system keychain is locked.*the "Login" keyring.*Nothing needs to be entered again/s,
      ),
    },
  };

  beforeAll(async () => {
    keyring = await startPrivateKeyring();
    const store = (account: string) =>
      execFileSync(
        process.execPath,
        ['--import', 'tsx', path.resolve('test/fixtures/keychain-status.ts'), service, 'store', account],
        { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: keyring.address, DISPLAY: '' }, encoding: 'utf8' },
      );
    store('profile:b');
    store('profile:a');
    // The items stay in the login keyring; the default becomes another one, which stays
    // unlocked when the login keyring locks.
    keyring.makeSessionDefault();
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = null;
    if (keyring.locked()) await keyring.unlock();
  });
  afterAll(() => keyring?.stop());

  it('names the accounts without libsecret’s search and without reading a secret', async () => {
    proxy = await startBusProxy(keyring.address);
    const listed = await list(proxy.address);
    expect(listed.signal, listed.stderr).toBeNull();
    expect(listed.answer).toEqual({ ok: true, value: ['profile:a', 'profile:b'] });
    // What the process sent: its own search of the service's items and their attributes; no
    // search with libsecret's schema attribute (keytar's findCredentials), no secret asked for.
    const sent = proxy.calls;
    expect(sent.filter((call) => call.includes('SearchItems'))).toHaveLength(1);
    expect(
      sent.filter((call) => call.includes('org.freedesktop.Secret.Item') && call.includes('Attributes')),
    ).toHaveLength(2);
    expect(sent.filter((call) => call.includes('xdg:schema'))).toEqual([]);
    expect(sent.filter((call) => /GetSecrets|GetSecret\b|OpenSession/.test(call))).toEqual([]);
  });

  it('refuses with the locked words, without crashing, when the keyring locks right after the search', async () => {
    // Before: the list asked whether an item was locked (no), and then searched with libsecret,
    // which crashed the process (SIGSEGV) on the item locked in between.
    let searched: number | null = null;
    let locked = false;
    proxy = await startBusProxy(keyring.address, (message, connection) => {
      if (!locked && searched === connection) {
        // The next question on the connection that searched: the search has been answered,
        // saying every item is unlocked. Lock the keyring before this question reaches it.
        keyring.lock();
        locked = true;
      }
      if (searched === null && message.includes('SearchItems')) searched = connection;
    });
    const listed = await list(proxy.address);
    expect(locked).toBe(true);
    expect(listed.signal, listed.stderr).toBeNull();
    expect(listed.answer).toEqual(lockedInLogin);
  });

  it('refuses with the locked words when an item of the service is in a locked keyring', async () => {
    keyring.lock();
    const listed = await list(keyring.address);
    expect(listed.signal, listed.stderr).toBeNull();
    expect(listed.answer).toEqual(lockedInLogin);
    await keyring.unlock();
    expect((await list(keyring.address)).answer).toEqual({ ok: true, value: ['profile:a', 'profile:b'] });
  });
});
