import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import { DEMO_CLIENT_SECRET } from '../../src-shared/demo';
import type { IpcResult } from '../../src-shared/ipc';
import { useTempDirs } from '../helpers/temp-dir';

// "Try the demo organisation": the sandbox inside the app on a free loopback port, a normal
// connection to it, and the same connection found again after a restart on another port.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-demo-${randomUUID()}` });
const closes: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closes.splice(0)) await close();
  for (const account of await secrets.list()) await secrets.delete(account);
});

function value<T>(result: IpcResult): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

function start(dataDir: string) {
  const core = createCore({ dataDir, secrets, demoSandbox: { transactions: 400 } });
  closes.push(() => core.close());
  return { core, handlers: createHandlers(core) };
}

describe('demo organisation', () => {
  it('starts the sandbox on loopback, connects, syncs, and finds the same connection after a restart', async () => {
    const dataDir = tempDir();
    const first = start(dataDir);
    const [a, b] = await Promise.all([
      dispatch(first.handlers, 'demo.open', {}),
      dispatch(first.handlers, 'demo.open', {}),
    ]);
    const profile = value<{ id: string; name: string; baseUrl: string; demo: boolean }>(a);
    expect(value<{ id: string }>(b).id).toBe(profile.id); // one connection, one sandbox
    expect(profile).toMatchObject({ name: 'Demo organisation', demo: true });
    expect(profile.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(profile.baseUrl).toBe(first.core.demo.url());
    expect(await secrets.get(`profile:${profile.id}`)).toBe(DEMO_CLIENT_SECRET);

    const synced = value<{ outcome: string }>(
      await dispatch(first.handlers, 'sync.start', { profileId: profile.id }),
    );
    expect(synced.outcome).toBe('succeeded');
    const found = value<{ rows: Array<{ id: string }>; totals: { count: number } }>(
      await dispatch(first.handlers, 'transactions.search', { profileId: profile.id, search: {} }),
    );
    expect(found.totals.count).toBe(400);
    const marked = found.rows[0]!.id;
    value(
      await dispatch(first.handlers, 'review.apply', {
        profileId: profile.id,
        target: { by: 'ids', kind: 'transaction', ids: [marked] },
        change: { action: 'flag', reason: 'Ask about this one' },
      }),
    );
    const oldUrl = profile.baseUrl;
    await first.core.close();
    closes.length = 0;
    await expect(fetch(`${oldUrl}/openapi.json`)).rejects.toThrow(); // stopped with the core

    // A restart: the old port is gone. A sync starts the sandbox again and moves the connection.
    const second = start(dataDir);
    const again = value<{ outcome: string }>(
      await dispatch(second.handlers, 'sync.start', { profileId: profile.id }),
    );
    expect(again.outcome).toBe('succeeded');
    const profiles = value<{ profiles: Array<{ id: string; baseUrl: string }> }>(
      await dispatch(second.handlers, 'profiles.list', {}),
    );
    expect(profiles.profiles).toHaveLength(1);
    expect(profiles.profiles[0]).toMatchObject({ id: profile.id, baseUrl: second.core.demo.url() });
    const flagged = value<{ rows: Array<{ id: string; review: { flagReason: string } }> }>(
      await dispatch(second.handlers, 'transactions.search', {
        profileId: profile.id,
        search: { filters: { flagged: true } },
      }),
    );
    expect(flagged.rows).toMatchObject([{ id: marked, review: { flagReason: 'Ask about this one' } }]);
  });

  it('takes another name when an organisation is already called "Demo organisation"', async () => {
    const { core, handlers } = start(tempDir());
    await core.profiles.add({
      name: 'Demo organisation',
      baseUrl: 'https://api.example.test',
      auth: { kind: 'token', accessToken: 'tok_real_org' },
    });
    const demo = value<{ name: string; demo: boolean }>(await dispatch(handlers, 'demo.open', {}));
    expect(demo).toMatchObject({ name: 'Demo organisation 2', demo: true });
  });

  it('leaves connections that are not the demo alone', async () => {
    const { core } = start(tempDir());
    const real = await core.profiles.add({
      name: 'Acme',
      baseUrl: 'https://api.example.test',
      auth: { kind: 'token', accessToken: 'tok_acme' },
    });
    await core.demo.ensureFor(real.id);
    expect(core.demo.url()).toBeNull(); // no sandbox started for a real organisation
  });
});
