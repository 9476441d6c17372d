import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { LEASE_LOST_MESSAGE } from '../../../src-main/sync/lease';
import type { EventName, EventPayload } from '../../../src-shared/ipc';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// A run whose lease another process took over (it had gone silent past the expiry: a suspended
// laptop, a stalled disk) stops at its next page instead of writing on beside the new owner.
// The intervals are made short through the lease options; nothing here sleeps for minutes.

const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a sync lease taken over', () => {
  it('stops the run that held it at its next page, saying why', async () => {
    const dir = tempDir();
    // This process renews often, so it soon finds out its lease is gone.
    const fixture = await connectedCore(
      dir,
      { transactions: 3000, readLimit: 100_000 },
      { lease: { heartbeatMs: 20 } },
    );
    cleanups.push(fixture.close);
    const { core, profile, sandbox } = fixture;
    const seen: Array<{ name: EventName; payload: unknown }> = [];
    core.events.subscribe((name, payload) => seen.push({ name, payload }));
    const of = <E extends EventName>(name: E) =>
      seen.filter((event) => event.name === name).map((event) => event.payload as EventPayload<E>);
    sandbox.control!.addFault({ match: '*', latencyMs: 40 });
    const running = core.sync.sync(profile.id);
    await until(() => of('sync.progress').some((progress) => progress.records > 0), 'the first page');

    // The other process sees every lease as expired, so it takes this one over at once.
    const other = createCore({
      dataDir: path.join(dir, 'data'),
      secrets: fixture.secrets,
      lease: { expiryMs: 0 },
    });
    cleanups.push(() => other.close());
    const pushed = await other.outbox.push(profile.id);
    expect(pushed.stoppedBy).toBeUndefined();

    const summary = await running;
    expect(summary).toMatchObject({
      outcome: 'failed',
      errors: [{ resource: '', code: 'BUSY', message: LEASE_LOST_MESSAGE }],
    });
    expect(of('sync.finished')).toMatchObject([{ outcome: 'failed' }]);
    // It stopped part-way: the 3,000 transactions were not all read.
    expect(summary.counts['bankTransactions'] ?? 0).toBeLessThan(3000);
    // The lease is free again for whoever asks next, this process included.
    sandbox.control!.clearFaults();
    expect(await core.sync.sync(profile.id)).toMatchObject({ outcome: 'succeeded' });
  }, 120_000);
});
