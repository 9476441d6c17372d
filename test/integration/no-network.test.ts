import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackground } from '../../src-main/background';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import { scopedFiles } from '../../src-main/files/scope';
import { syncedCore } from '../helpers/sync-fixture';
import { until } from '../helpers/until';
import { useTempDirs } from '../helpers/temp-dir';

// While the system says there is no network, what needs the API says so at once: the user
// who presses Sync now or Send now on a plane is not left watching retries that cannot work.
const tempDir = useTempDirs();

type Synced = Awaited<ReturnType<typeof syncedCore>>;

/**
 * A job whose run has ended with no network: it waits (pending, not running, saying why) and
 * asks nothing of the API; once the network is back, the background's reconnect round runs it
 * to the end, every file in place.
 */
async function waitsForTheNetwork(
  { core, sandbox, background }: Pick<Synced, 'core' | 'sandbox'> & { background: { idle(): Promise<void> } },
  profileId: string,
  jobId: string,
  total: number,
  waiting: Record<string, unknown> = {},
) {
  sandbox.control?.clearRequests();
  expect(core.files.status(profileId, jobId)).toMatchObject({
    status: 'pending',
    active: false,
    problem: expect.stringMatching(/no network.*waits/),
    ...waiting,
  });
  expect(await core.files.wait(profileId, jobId)).toEqual({ status: 'pending' });
  expect(sandbox.control?.requests()).toEqual([]);

  sandbox.control?.clearFaults();
  core.connectivity.setNetwork(true);
  await background.idle();
  expect((await core.files.wait(profileId, jobId)).status).toBe('completed');
  expect(core.files.status(profileId, jobId)).toMatchObject({
    status: 'completed',
    problem: null,
    files: { done: total, pending: 0, failed: 0 },
  });
}
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('no network', () => {
  it('refuses a sync and a push of edits at once, and both go ahead when the network is back', async () => {
    const { core, profile, sandbox } = await syncedCore(tempDir(), closers);
    const handlers = createHandlers(core);
    const profileId = profile.id;
    const supplier = sandbox.state.suppliers[3];
    if (!supplier) throw new Error('the demo data has too few suppliers');
    core.outbox.updateSupplier(profileId, supplier.id, { name: 'Bahn Reisen GmbH' });
    const runsBefore = core.sync.history(profileId).length;

    core.connectivity.setNetwork(false);
    const sync = await dispatch(handlers, 'sync.start', { profileId });
    expect(sync).toMatchObject({
      ok: false,
      error: {
        code: 'OFFLINE',
        message: expect.stringMatching(/no network.*by itself when the network is back/),
      },
    });
    const push = await dispatch(handlers, 'edits.push', { profileId });
    expect(push).toMatchObject({
      ok: true,
      value: { sent: 0, failed: 0, conflicts: 0, remaining: 1, stoppedBy: { code: 'OFFLINE' } },
    });
    // Nothing was tried: no request, no run in the history, the edit still waiting as it was.
    expect(sandbox.control?.requests()).toEqual([]);
    expect(core.sync.history(profileId)).toHaveLength(runsBefore);
    expect(core.outbox.list(profileId)).toMatchObject([{ status: 'pending', attempts: 0, error: null }]);

    core.connectivity.setNetwork(true);
    expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({
      ok: true,
      value: { outcome: 'succeeded' },
    });
    expect(core.outbox.list(profileId)).toEqual([]);
    expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Bahn Reisen GmbH');
  });

  it('makes a bulk download asked for with no network wait for it, and starts it when the network is back', async () => {
    const { core, profile, sandbox, dir } = await syncedCore(tempDir(), closers);
    const profileId = profile.id;
    const ids = sandbox.state.files.slice(0, 30).map((file) => file.id);
    const destination = path.join(dir, 'receipts');
    const background = createBackground({ core });
    closers.unshift(() => background.stop());
    background.start();
    await background.idle();
    sandbox.control?.clearRequests();

    core.connectivity.setNetwork(false);
    const started = await core.files.start(profileId, {
      scope: { by: 'ids', kind: 'file', ids },
      destination,
    });
    // Made at once (its files, names and folder), not run: it waits, interrupted, for the network.
    expect(started).toMatchObject({
      resumed: false,
      waitingForNetwork: true,
      job: {
        status: 'pending',
        active: false,
        files: { total: ids.length, done: 0 },
        problem: expect.stringMatching(/no network.*waits/),
      },
    });
    expect(await core.files.wait(profileId, started.job.id)).toEqual({ status: 'pending' });
    expect(sandbox.control?.requests()).toEqual([]);
    // Resume or Retry meanwhile does not try it either.
    expect(core.files.resume(profileId, started.job.id)).toMatchObject({
      active: false,
      problem: expect.any(String),
    });
    expect(sandbox.control?.requests()).toEqual([]);

    // The network is back: the background's reconnect round starts it, and it completes.
    core.connectivity.setNetwork(true);
    await background.idle();
    expect((await core.files.wait(profileId, started.job.id)).status).toBe('completed');
    expect(core.files.status(profileId, started.job.id)).toMatchObject({
      status: 'completed',
      problem: null,
      files: { done: ids.length },
    });
  });

  it('makes the files a retry put back during a run wait for the network when the run ends without one', async () => {
    const { core, profile, sandbox, dir } = await syncedCore(tempDir(), closers);
    const profileId = profile.id;
    const ids = sandbox.state.files.slice(0, 80).map((file) => file.id);
    const failing = scopedFiles(core.cacheOf(profileId), { by: 'ids', kind: 'file', ids })[0]!.fileId;
    // The job's first file arrives damaged at all its attempts and fails; the others are slow.
    sandbox.control?.addFault({ match: `/v1/files/${failing}/content`, corruptBody: true, times: 3 });
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 400 });
    const background = createBackground({ core });
    closers.unshift(() => background.stop());
    background.start();
    await background.idle();
    const { job } = await core.files.start(profileId, {
      scope: { by: 'ids', kind: 'file', ids },
      destination: path.join(dir, 'receipts'),
    });
    await until(() => core.files.status(profileId, job.id).errors.length === 1);
    expect(core.files.status(profileId, job.id)).toMatchObject({ status: 'running', active: true });

    // Put back while the run goes on, which then ends with the network gone: the file put back
    // waits for it instead of being tried (and failing after the client's retries).
    core.files.retry(profileId, job.id, [failing]);
    core.connectivity.setNetwork(false);
    expect((await core.files.wait(profileId, job.id)).status).toBe('completed');
    await waitsForTheNetwork({ core, sandbox, background }, profileId, job.id, ids.length, {
      files: { done: ids.length - 1, pending: 1, failed: 0 },
    });
  });

  it('makes a download resumed while its pause winds down wait for the network when it has none by then', async () => {
    const { core, profile, sandbox, dir } = await syncedCore(tempDir(), closers);
    const profileId = profile.id;
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 400 });
    const background = createBackground({ core });
    closers.unshift(() => background.stop());
    background.start();
    await background.idle();
    const ids = sandbox.state.files.slice(0, 40).map((file) => file.id);
    const { job } = await core.files.start(profileId, {
      scope: { by: 'ids', kind: 'file', ids },
      destination: path.join(dir, 'receipts'),
    });
    expect(core.files.status(profileId, job.id)).toMatchObject({ active: true });

    // Paused and resumed at once: the run is still stopping; by the time it has, no network.
    core.files.pause(profileId, job.id);
    core.files.resume(profileId, job.id);
    core.connectivity.setNetwork(false);
    expect((await core.files.wait(profileId, job.id)).status).toBe('paused');
    await waitsForTheNetwork({ core, sandbox, background }, profileId, job.id, ids.length);
  });

  it('still syncs the demo organisation, whose API runs inside the app, and downloads its files', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-no-network-${randomUUID()}` });
    const dir = tempDir();
    const core = createCore({ dataDir: dir, secrets, demoSandbox: { transactions: 200 } });
    closers.push(async () => {
      await core.close();
      for (const account of await secrets.list()) await secrets.delete(account);
    });
    const handlers = createHandlers(core);
    const demo = await core.demo.open();
    core.connectivity.setNetwork(false);
    expect(await dispatch(handlers, 'sync.start', { profileId: demo.id })).toMatchObject({
      ok: true,
      value: { outcome: 'succeeded' },
    });
    const download = await core.files.start(demo.id, {
      scope: { by: 'all' },
      destination: path.join(dir, 'demo-receipts'),
    });
    expect(download).toMatchObject({ waitingForNetwork: false, job: { active: true } });
    expect((await core.files.wait(demo.id, download.job.id)).status).toBe('completed');
  });

  it("opens the demo organisation's receipts, which come from inside the app", async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-no-network-${randomUUID()}` });
    const core = createCore({ dataDir: tempDir(), secrets, demoSandbox: { transactions: 200 } });
    closers.push(async () => {
      await core.close();
      for (const account of await secrets.list()) await secrets.delete(account);
    });
    const demo = await core.demo.open();
    expect((await core.sync.sync(demo.id)).outcome).toBe('succeeded');
    const fileId = core
      .cacheOf(demo.id)
      .sqlite.prepare('SELECT id FROM expense_files WHERE deleted_at IS NULL ORDER BY id LIMIT 1')
      .pluck()
      .get() as string;
    core.connectivity.setNetwork(false);
    await expect(core.files.fetch(demo.id, fileId)).resolves.toMatchObject({ fileId });
  });
});
