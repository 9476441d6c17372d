import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createCore, type Core, type CoreOptions } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets, type Secrets } from '../../src-main/secrets';
import type { FilePurpose } from '../../src-shared/export';
import { startSandbox, type SandboxOptions } from '../../src-sandbox';
import { queuedFileDialog } from './dialogs';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/**
 * A real sandbox on a random loopback port and a real core connected to it; `coreOptions` are
 * given to the core (its dialogs, for a test that picks files or folders).
 */
export async function connectedCore(
  dataDir: string,
  sandboxOptions: Partial<SandboxOptions> = {},
  coreOptions: Pick<
    CoreOptions,
    'pickFile' | 'pickFolder' | 'lease' | 'apiTimeoutMs' | 'previewFirstByteMs'
  > = {},
) {
  const sandbox = await startSandbox({
    port: 0,
    seed: 7,
    transactions: 600,
    control: true,
    ...sandboxOptions,
  });
  const secrets: Secrets = createKeychainSecrets({ service: `Satchel-sync-${randomUUID()}` });
  const core: Core = createCore({ dataDir: path.join(dataDir, 'data'), secrets, ...coreOptions });
  const profile = await core.profiles.add({
    name: 'Sandbox',
    baseUrl: sandbox.url,
    auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
  });
  return {
    sandbox,
    core,
    profile,
    secrets,
    async close() {
      await core.close();
      for (const account of await secrets.list()) await secrets.delete(account);
      await sandbox.stop();
    },
  };
}

/**
 * `connectedCore` (rate limit out of the way) after a first sync that succeeded, its sandbox's
 * request log cleared, so a test counts only its own requests. `closers` gets its close.
 */
export async function syncedCore(
  dir: string,
  closers: Array<() => Promise<void>>,
  sandboxOptions: Partial<SandboxOptions> = {},
  coreOptions: Pick<
    CoreOptions,
    'pickFile' | 'pickFolder' | 'lease' | 'apiTimeoutMs' | 'previewFirstByteMs'
  > = {},
) {
  const fixture = await connectedCore(dir, { readLimit: 100_000, ...sandboxOptions }, coreOptions);
  closers.push(() => fixture.close());
  const summary = await fixture.core.sync.sync(fixture.profile.id);
  if (summary.outcome !== 'succeeded')
    throw new Error(`the first sync ended ${summary.outcome}: ${JSON.stringify(summary.errors)}`);
  fixture.sandbox.control?.clearRequests();
  return { ...fixture, dir };
}

/**
 * `syncedCore` whose save and open dialogs the test answers (`queuedFileDialog`), with the
 * handler table the window's commands go through. `pickFile(purpose, file)` queues `file` and
 * sends `dialog.pickFile` as the window does before an export or import, giving its answer.
 */
export async function syncedCoreWithFileDialog(
  dir: string,
  closers: Array<() => Promise<void>>,
  sandboxOptions: Partial<SandboxOptions> = {},
) {
  const fileDialog = queuedFileDialog();
  const fixture = await syncedCore(dir, closers, sandboxOptions, { pickFile: fileDialog.pick });
  const handlers = createHandlers(fixture.core);
  const pickFile = (purpose: FilePurpose, file: string) => {
    fileDialog.answers.push(file);
    return dispatch(handlers, 'dialog.pickFile', { purpose });
  };
  return { ...fixture, fileDialog, handlers, profileId: fixture.profile.id, pickFile };
}
