import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src-main/core';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { BUSY_MESSAGE } from '../../../src-main/sync/lease';
import { startSandbox, type Sandbox } from '../../../src-sandbox';
import { runCli } from '../../helpers/cli';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// The app and the command line on one data folder: one organisation is synced (or its edits
// pushed) by one of them at a time; the other says so and leaves everything as it is. A holder
// killed with SIGKILL does not block the next run.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const tempDir = useTempDirs();
const secrets = createKeychainSecrets();
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await deleteProfileSecrets(secrets, tempDir.list()); // only this test's entries
});

/** A synced organisation on a fresh data folder, with a core (the app) over it. */
async function connected(): Promise<{
  sandbox: Sandbox;
  env: NodeJS.ProcessEnv;
  core: Core;
  profileId: string;
}> {
  const sandbox = await startSandbox({ port: 0, seed: 31, transactions: 200, control: true });
  stops.push(() => sandbox.stop());
  const env = { SATCHEL_DATA_DIR: tempDir() };
  expect(
    (await runCli(['profile', 'add', '--name', 'Demo', '--demo', '--url', sandbox.url], { env })).code,
  ).toBe(0);
  expect((await runCli(['sync'], { env })).code).toBe(0);
  const core = createCore({ dataDir: env.SATCHEL_DATA_DIR, secrets });
  stops.push(() => core.close());
  const profileId = core.profiles.list()[0]!.id;
  return { sandbox, env, core, profileId };
}

describe('one organisation synced by two processes', () => {
  it(
    'refuses the command line while the app syncs, and the app run ends as its own',
    { timeout: 120_000 },
    async () => {
      const { sandbox, env, core, profileId } = await connected();
      core.outbox.createSupplier(profileId, { name: 'Nur Einmal AG', code: 'ONCE-1' });
      // Held long enough for both commands to start and be refused; then the app cancels.
      const held = sandbox.control!.addFault({ match: 'listSuppliers', latencyMs: 60_000, times: 1 });
      const syncing = core.sync.sync(profileId);
      await until(() => sandbox.control!.faultFired(held) === 1, 'the app sync to reach the suppliers');

      const [sync, push] = await Promise.all([runCli(['sync'], { env }), runCli(['edits', 'push'], { env })]);
      expect(sync.code).toBe(1);
      expect(sync.stderr).toContain(BUSY_MESSAGE);
      expect(push.code).toBe(1);
      expect(push.stderr).toContain(BUSY_MESSAGE);
      expect(core.sync.isRunning(profileId)).toBe(true);

      // The app's run ends as its own (not marked interrupted by the refused sync), its create
      // sent once.
      core.sync.cancel(profileId);
      expect(await syncing).toMatchObject({ outcome: 'cancelled' });
      expect(core.sync.history(profileId, 2).map((run) => run.outcome)).toEqual(['cancelled', 'succeeded']);
      expect(sandbox.state.suppliers.filter((supplier) => supplier.number === 'ONCE-1')).toHaveLength(1);
      // Once it ended, the command line syncs again.
      sandbox.control!.clearFaults();
      expect((await runCli(['sync'], { env })).code).toBe(0);
    },
  );

  it(
    'tells the window a sync runs elsewhere, and takes over from a killed command',
    { timeout: 120_000 },
    async () => {
      const { sandbox, env, core, profileId } = await connected();
      const finished: unknown[] = [];
      core.events.subscribe((event, payload) => {
        if (event === 'sync.finished') finished.push(payload);
      });
      const held = sandbox.control!.addFault({ match: 'listSuppliers', latencyMs: 60_000, times: 1 });
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(repoRoot, 'src-main/cli.ts'), 'sync'],
        {
          cwd: repoRoot,
          env: { ...process.env, ...env },
          stdio: 'ignore',
        },
      );
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
        child.on('exit', (code, signal) => resolve(signal ?? code)),
      );
      await until(
        () => sandbox.control!.faultFired(held) === 1,
        'the command line sync to reach the suppliers',
      );

      await expect(core.sync.sync(profileId)).rejects.toMatchObject({ code: 'BUSY', message: BUSY_MESSAGE });
      expect(finished).toEqual([
        expect.objectContaining({
          profileId,
          runId: null,
          outcome: 'busy',
          errors: [expect.objectContaining({ code: 'BUSY', message: BUSY_MESSAGE })],
        }),
      ]);
      expect(await core.outbox.push(profileId)).toMatchObject({ stoppedBy: { code: 'BUSY' } });

      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      // The killed command's lease is left behind; its process is gone, so the next run takes it.
      expect(await core.sync.sync(profileId)).toMatchObject({ outcome: 'succeeded' });
      expect(core.sync.history(profileId, 2).map((run) => run.outcome)).toEqual(['succeeded', 'interrupted']);
    },
  );
});
