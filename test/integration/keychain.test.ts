import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeychainSecrets } from '../../src-main/secrets';

// These tests run inside the private D-Bus session and unlocked GNOME Keyring that
// scripts/with-keyring.sh provides (`npm test` and `npm run test:integration` use it).

const service = `Satchel-test-${randomUUID()}`;
const secrets = createKeychainSecrets({ service });

afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

function lookupWithSecretTool(account: string): string {
  return execFileSync('secret-tool', ['lookup', 'service', service, 'account', account], {
    encoding: 'utf8',
  });
}

describe('keychain through keytar and the Secret Service', () => {
  it('stores, reads, lists and deletes a secret in the real keyring', async () => {
    expect(await secrets.status()).toEqual({ available: true });
    await secrets.set('org-acme/client-secret', 'sk_live_first');
    await secrets.set('org-beta/client-secret', 'sk_live_second');

    expect(await secrets.get('org-acme/client-secret')).toBe('sk_live_first');
    expect(await secrets.list()).toEqual(['org-acme/client-secret', 'org-beta/client-secret']);
    // Another Secret Service client sees the same item: it really lives in gnome-keyring.
    expect(lookupWithSecretTool('org-acme/client-secret')).toBe('sk_live_first');

    await secrets.set('org-acme/client-secret', 'sk_live_rotated');
    expect(await secrets.get('org-acme/client-secret')).toBe('sk_live_rotated');

    expect(await secrets.delete('org-acme/client-secret')).toBe(true);
    expect(await secrets.get('org-acme/client-secret')).toBeNull();
    expect(await secrets.delete('org-acme/client-secret')).toBe(false);
    expect(await secrets.list()).toEqual(['org-beta/client-secret']);
  });

  it('refuses empty account names and empty secrets before touching the keychain', async () => {
    await expect(secrets.set('', 'x')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'account' });
    await expect(secrets.set('a', '')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'secret' });
  });

  it('says there is no default keyring, from a store and the status alike, when the Secret Service has none', () => {
    // A private bus whose gnome-keyring was started but never unlocked, and has no login keyring:
    // so no default keyring to store a key in.
    const probe = path.resolve('test/fixtures/keychain-probe.ts');
    const empty = mkdtempSync(path.join(tmpdir(), 'satchel-locked-'));
    try {
      const result = spawnSync(
        'dbus-run-session',
        [
          '--',
          'bash',
          '-c',
          'gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1; exec "$@"',
          'probe',
          process.execPath,
          '--import',
          'tsx',
          probe,
          service,
        ],
        { encoding: 'utf8', env: { ...process.env, XDG_DATA_HOME: empty, DISPLAY: '' }, timeout: 30_000 },
      );
      const outcome = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}');
      expect(outcome.ok, result.stderr).toBe(false);
      expect(outcome.error.code).toBe('KEYCHAIN_LOCKED');
      expect(outcome.error.message).toMatch(/has no default keyring.*Create one/s);
      expect(outcome.status).toEqual({ available: false, ...outcome.error });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('gives a clear, specific error when no Secret Service answers', () => {
    const probe = path.resolve('test/fixtures/keychain-probe.ts');
    const result = spawnSync(process.execPath, ['--import', 'tsx', probe, service], {
      encoding: 'utf8',
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/satchel-bus' },
    });
    expect(result.status, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(outcome.ok).toBe(false);
    expect(outcome.error.code).toBe('KEYCHAIN_UNAVAILABLE');
    expect(outcome.error.message).toMatch(/GNOME Keyring or KWallet/);
    expect(outcome.status).toMatchObject({ available: false, code: 'KEYCHAIN_UNAVAILABLE' });
  });
});
