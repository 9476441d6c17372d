import path from 'node:path';
import { afterEach } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox, type SandboxOptions } from '../../src-sandbox';
import { deleteProfileSecrets } from './keychain';
import type { useTempDirs } from './temp-dir';

/**
 * Organisations connected for tests that then drive the CLI in a child process: a sandbox (seed
 * 7, its control surface on, the read limit out of the way unless given), a data folder and a
 * profile whose secret is in the default keychain service, the one the CLI reads. After each
 * test the sandboxes stop and only these profiles' secrets are deleted (tests of the CLI share
 * that service and run in parallel). Call it after `useTempDirs`, whose folders it still reads
 * when the test ends.
 */
export function useCliProfiles(tempDir: ReturnType<typeof useTempDirs>) {
  const secrets = createKeychainSecrets();
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await deleteProfileSecrets(secrets, tempDir.list());
  });
  return async function connect(name: string, sandboxOptions: SandboxOptions = {}) {
    const sandbox = await startSandbox({
      port: 0,
      seed: 7,
      control: true,
      readLimit: 100_000,
      ...sandboxOptions,
    });
    stops.push(() => sandbox.stop());
    const dataDir = path.join(tempDir(), 'data');
    const core = createCore({ dataDir, secrets });
    const profile = await core.profiles.add({
      name,
      baseUrl: sandbox.url,
      auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    });
    return { sandbox, dataDir, core, profile, cacheFile: core.profiles.cacheFile(profile.id) };
  };
}
