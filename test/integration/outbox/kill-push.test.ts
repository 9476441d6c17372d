import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { startSandbox } from '../../../src-sandbox';
import { runCli } from '../../helpers/cli';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// A push killed with SIGKILL while the create is on its way: the server stores the supplier
// after the process is gone. The next push must find it, not create it a second time.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const tempDir = useTempDirs();
const secrets = createKeychainSecrets();
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await deleteProfileSecrets(secrets, tempDir.list()); // only this test's entries
});

describe('an edit push killed mid-request', () => {
  it(
    'creates the supplier exactly once after a SIGKILL and a second push',
    { timeout: 120_000 },
    async () => {
      const sandbox = await startSandbox({ port: 0, seed: 24, transactions: 200, control: true });
      stops.push(() => sandbox.stop());
      const env = { SATCHEL_DATA_DIR: tempDir() };
      expect(
        (await runCli(['profile', 'add', '--name', 'Demo', '--demo', '--url', sandbox.url], { env })).code,
      ).toBe(0);
      expect((await runCli(['sync'], { env })).code).toBe(0);
      expect(
        (await runCli(['supplier', 'create', '--name', 'Killed Once GmbH', '--code', 'KILL-1'], { env }))
          .code,
      ).toBe(0);
      const cacheDir = path.join(env.SATCHEL_DATA_DIR, 'caches');
      const cacheFile = path.join(
        cacheDir,
        readdirSync(cacheDir).find((name) => name.endsWith('.sqlite'))!,
      );
      const reader = new Database(cacheFile, { readonly: true });
      const status = () =>
        (reader.prepare("SELECT status FROM outbox WHERE status <> 'done'").pluck().all() as string[]).join(
          ',',
        );
      expect(status()).toBe('pending');

      // The create is held 3 s by the server, then stored; the pusher dies in between.
      const held = sandbox.control!.addFault({ match: 'createSupplier', latencyMs: 3000, times: 1 });
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(repoRoot, 'src-main/cli.ts'), 'edits', 'push'],
        {
          cwd: repoRoot,
          env: { ...process.env, ...env },
          stdio: 'ignore',
        },
      );
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
        child.on('exit', (code, signal) => resolve(signal ?? code)),
      );
      await until(() => sandbox.control!.faultFired(held) === 1, 'the create to reach the server');
      expect(status()).toBe('sending');
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const created = () => sandbox.state.suppliers.filter((supplier) => supplier.number === 'KILL-1');
      await until(() => created().length === 1, 'the server to store the supplier');
      expect(status()).toBe('sending'); // "maybe sent", kept across the kill
      // Nobody is sending it now: the list says it was interrupted, not that it is being sent.
      const listed = await runCli(['edits', 'list'], { env });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        /create supplier "Killed Once GmbH" \(local-[^)]+\)\s+interrupted \(maybe sent; looked up before sending again; sync to find out\)/,
      );

      // A second POST would now fail the push: the pusher has to look the supplier up.
      sandbox.control!.clearFaults();
      sandbox.control!.addFault({ match: 'createSupplier', status: 500 });
      const push = await runCli(['edits', 'push'], { env });
      expect(push.stderr).toBe('');
      expect(push.stdout).toBe('1 sent, 0 failed, 0 conflicts, 0 waiting\n');
      expect(created()).toHaveLength(1);
      expect(status()).toBe('');
      const row = reader
        .prepare('SELECT name, local_edit_pending FROM suppliers WHERE id = ?')
        .get(created()[0]!.id);
      expect(row).toEqual({ name: 'Killed Once GmbH', local_edit_pending: 0 });
      reader.close();
    },
  );
});
