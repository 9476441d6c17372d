import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';

// The app started where no keychain answers (no Secret Service in the session): the offline
// copy opens for reading and reviewing, and sync says what is missing and what to do. The core
// runs in a process of its own whose D-Bus address leads nowhere; this process keeps the real
// keychain to set the connection up.

const service = `Satchel-keyless-${randomUUID()}`;
const secrets = createKeychainSecrets({ service });
const tempDir = useTempDirs();
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

describe('start-up without a keychain', () => {
  it('reads and reviews the offline copy, and fails the sync with the keychain’s reason', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 4, transactions: 40 });
    const dataDir = tempDir();
    try {
      const core = createCore({ dataDir, secrets });
      const profile = await core.addProfile({
        name: 'Keyless KG',
        baseUrl: sandbox.url,
        auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
      });
      expect((await core.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
      await core.close();

      const result = spawnSync(
        process.execPath,
        ['--import', 'tsx', path.resolve('test/fixtures/keyless-core.ts'), dataDir, service],
        {
          encoding: 'utf8',
          env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/satchel-bus' },
          timeout: 60_000,
        },
      );
      expect(result.status, result.stderr).toBe(0);
      const answers = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}');
      expect(answers.list).toMatchObject({ ok: true, value: { profiles: [{ name: 'Keyless KG' }] } });
      expect(answers.rows).toBeGreaterThan(0);
      expect(answers.review).toMatchObject({ ok: true, value: { changed: 1 } });
      expect(answers.keychain).toMatchObject({
        ok: true,
        value: { available: false, code: 'KEYCHAIN_UNAVAILABLE' },
      });
      expect(answers.sync).toMatchObject({ ok: true, value: { outcome: 'failed' } });
      expect(answers.sync.value.errors).toEqual([
        expect.objectContaining({
          code: 'KEYCHAIN_UNAVAILABLE',
          message: expect.stringMatching(/GNOME Keyring or KWallet/),
        }),
      ]);
      // The keychain entry is still there for when it answers again.
      expect(await secrets.list()).toEqual([`profile:${profile.id}`]);
    } finally {
      await sandbox.stop();
    }
  });
});
