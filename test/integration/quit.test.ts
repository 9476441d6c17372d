import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { readApi, readCache, sortById } from '../helpers/api-snapshot';
import { connectedCore } from '../helpers/sync-fixture';
import { useTempDirs } from '../helpers/temp-dir';
import { until } from '../helpers/until';

// Quitting the app calls core.close() whatever is running. A sync or an edit push in flight
// stops at a page or edit boundary, the cache file is closed cleanly (its write-ahead log
// folded back in), and the next start resumes where it stopped with nothing lost or doubled.

const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function walSize(file: string): number {
  return existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0;
}

describe('closing the core while it works', () => {
  it('stops a running sync at a page boundary, closes the cache cleanly, and the next sync resumes exact', async () => {
    const dir = tempDir();
    const fixture = await connectedCore(dir, { seed: 21, transactions: 3000, readLimit: 100_000 });
    cleanups.push(fixture.close);
    const { core, profile, sandbox, secrets } = fixture;
    sandbox.control!.addFault({ match: '*', latencyMs: 40 }); // long enough to close mid-sync
    let records = 0;
    core.events.subscribe((name, payload) => {
      if (name === 'sync.progress') records = Math.max(records, (payload as { records: number }).records);
    });
    const running = core.sync.sync(profile.id);
    await until(() => records > 0, 'the first page to be stored');
    const file = core.profiles.cacheFile(profile.id);

    await core.close();
    expect((await running).outcome).toBe('cancelled');
    expect(walSize(file)).toBe(0); // closed cleanly: the log is folded back into the file
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();

    // The next start: the history says "cancelled" (a clean stop), not "interrupted".
    sandbox.control!.clearFaults();
    const again = createCore({ dataDir: `${dir}/data`, secrets });
    cleanups.unshift(() => again.close());
    expect(again.sync.history(profile.id).map((run) => run.outcome)).toEqual(['cancelled']);
    expect((await again.sync.sync(profile.id)).outcome).toBe('succeeded');
    const api = await readApi(sandbox.url, sandbox.clientId, sandbox.clientSecret);
    const cache = readCache(again.cacheOf(profile.id));
    for (const [resource, list] of Object.entries(api))
      expect(cache[resource], resource).toEqual(sortById(list));
  }, 60_000);

  it('stops an edit push started from the window; the edit stays queued and is sent once later', async () => {
    const dir = tempDir();
    const fixture = await connectedCore(dir, { seed: 22, transactions: 200, readLimit: 100_000 });
    cleanups.push(fixture.close);
    const { core, profile, sandbox, secrets } = fixture;
    await core.sync.sync(profile.id);
    const [first, second] = sandbox.state.suppliers;
    core.outbox.updateSupplier(profile.id, first!.id, { name: 'Closing Time AG' });
    core.outbox.updateSupplier(profile.id, second!.id, { name: 'Second Edit KG' });
    const fault = sandbox.control!.addFault({ match: '/v1/suppliers', latencyMs: 1500 });
    const pushing = core.outbox.push(profile.id); // as `edits.push` does: no signal of its own
    await until(() => sandbox.control!.faultFired(fault) > 0, 'the push to reach the server');

    const closed = Date.now();
    await core.close();
    expect(Date.now() - closed).toBeLessThan(5_000); // the quit did not wait for every edit
    const summary = await pushing;
    expect(summary.stoppedBy?.code).toBe('CANCELLED');

    sandbox.control!.clearFaults();
    const again = createCore({ dataDir: `${dir}/data`, secrets });
    cleanups.unshift(() => again.close());
    const open = again.outbox.list(profile.id);
    expect(open.every((item) => item.status === 'pending' || item.status === 'interrupted')).toBe(true);
    const pushed = await again.outbox.push(profile.id);
    expect(pushed).toMatchObject({ failed: 0, conflicts: 0, remaining: 0 });
    expect(again.outbox.list(profile.id)).toEqual([]);
    expect(sandbox.state.suppliers.find((s) => s.id === first!.id)?.name).toBe('Closing Time AG');
    expect(sandbox.state.suppliers.find((s) => s.id === second!.id)?.name).toBe('Second Edit KG');
  }, 60_000);
});
