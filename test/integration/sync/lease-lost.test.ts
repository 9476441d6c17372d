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

// A run whose process went silent for two minutes (a suspended laptop) with a page on its way,
// and whose lease another process took over meanwhile and synced newer data with. When it
// wakes, its wall clock has moved on but its timers have not: its next heartbeat is up to 15 s
// away. The page it fetched before the suspend is older than what the other process stored,
// and the cache's upserts do not compare `updateTime`: written, it would put the older records
// back, revive a row the other run marked deleted, move the checkpoint and rewrite the history.
// Two cores on one data folder stand for the two processes; the old one's heartbeat is made too
// slow to fire during the test, and its lease clock is moved on by three minutes at the takeover.
describe('a sync lease taken over while its process was silent', () => {
  it('writes nothing of the page it fetched before, stops, and leaves the cache to the new holder', async () => {
    const dir = tempDir();
    let skew = 0;
    const fixture = await connectedCore(
      dir,
      { transactions: 300, readLimit: 100_000 },
      { lease: { heartbeatMs: 600_000, now: () => Date.now() + skew } },
    );
    cleanups.push(fixture.close);
    const { core, profile, sandbox } = fixture;
    const control = sandbox.control!;
    expect(await core.sync.sync(profile.id)).toMatchObject({ outcome: 'succeeded' });
    const cache = core.cacheOf(profile.id);

    // Two transactions of the trailing window the next sync reads again, on its first page: one
    // the server will mark matched, one it will delete, after that page was answered.
    const today = new Date().toISOString().slice(0, 10);
    const recent = cache.sqlite
      .prepare(
        `SELECT id FROM bank_transactions WHERE booking_date >= date(?, '-50 days') AND matched = 0
         AND deleted_at IS NULL ORDER BY booking_date, id LIMIT 2`,
      )
      .pluck()
      .all(today) as string[];
    expect(recent).toHaveLength(2);
    const [matched, deleted] = recent as [string, string];

    // The window's page comes slowly: its records are read at once, its body arrives over 8 s.
    const slow = control.addFault({ match: 'searchBankTransactionsV1', slowBodyMs: 8_000, times: 1 });
    const seen: Array<EventPayload<'sync.finished'>> = [];
    core.events.subscribe((name, payload) => {
      if (name === 'sync.finished') seen.push(payload as EventPayload<'sync.finished'>);
    });
    const running = core.sync.sync(profile.id);
    // The sandbox reads the page in the same turn as it logs the request: it is answered now.
    await until(() => control.faultFired(slow) === 1, 'the window page to be asked for', 60_000);

    // Meanwhile, on the server and in the other process, as the suspend goes on.
    control.setMatched(matched, true);
    control.deleteTransaction(deleted);
    skew = 3 * 60_000;
    const other = createCore({
      dataDir: path.join(dir, 'data'),
      secrets: fixture.secrets,
      lease: { expiryMs: 0 },
    });
    cleanups.push(() => other.close());
    expect(await other.sync.sync(profile.id)).toMatchObject({ outcome: 'succeeded' });
    // The old page is still on its way: the new holder's sync ended before it.
    expect(core.sync.isRunning(profile.id)).toBe(true);

    const snapshot = () => ({
      transactions: cache.sqlite
        .prepare(
          'SELECT id, matched, update_time, deleted_at, synced_at, raw FROM bank_transactions ORDER BY id',
        )
        .all(),
      checkpoints: cache.sqlite.prepare('SELECT * FROM sync_checkpoints ORDER BY resource').all(),
      runs: cache.sqlite.prepare('SELECT * FROM sync_runs ORDER BY id').all(),
    });
    const row = (id: string) =>
      cache.sqlite
        .prepare('SELECT matched, deleted_at AS deletedAt FROM bank_transactions WHERE id = ?')
        .get(id);
    const before = snapshot();
    expect(row(matched)).toMatchObject({ matched: 1, deletedAt: null });
    expect(row(deleted)).toMatchObject({ deletedAt: expect.any(String) });

    // The page arrives: the old run stops at its write, with nothing written, as a run taken
    // over by its heartbeat ends.
    const summary = await running;
    expect(row(matched)).toMatchObject({ matched: 1, deletedAt: null });
    expect(row(deleted)).toMatchObject({ deletedAt: expect.any(String) });
    expect(snapshot()).toEqual(before);
    expect(summary).toMatchObject({
      outcome: 'failed',
      errors: [{ resource: '', code: 'BUSY', message: LEASE_LOST_MESSAGE }],
    });
    expect(seen).toMatchObject([{ outcome: 'failed', errors: [{ message: LEASE_LOST_MESSAGE }] }]);
    // Its row in the history is the one the new holder's run marked: it ended unrecorded here.
    expect(before.runs.find((run) => (run as { id: number }).id === summary.runId)).toMatchObject({
      outcome: 'interrupted',
    });

    // Awake again, each process syncs as usual.
    skew = 0;
    expect(await other.sync.sync(profile.id)).toMatchObject({ outcome: 'succeeded' });
    expect(await core.sync.sync(profile.id)).toMatchObject({ outcome: 'succeeded' });
    expect(row(matched)).toMatchObject({ matched: 1 });
    expect(row(deleted)).toMatchObject({ deletedAt: expect.any(String) });
  }, 120_000);
});
