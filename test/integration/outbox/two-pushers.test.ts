import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src-main/outbox';
import { pushOutbox } from '../../../src-main/outbox/push';
import { defaultMigrationsDir, openCache } from '../../../src-main/store';
import { BUSY_MESSAGE } from '../../../src-main/sync/lease';
import { useTempDirs } from '../../helpers/temp-dir';
import { syncedOutbox, type OutboxSetup } from './fixture';

// Two processes on one data folder (the app and `satchel edits push`, or a `satchel sync`)
// each push the organisation's outbox: two connections to one cache file, two pushers. A
// create may go to the server once only, however their pushes overlap.
const tempDir = useTempDirs();
const setups: OutboxSetup[] = [];
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  for (const setup of setups.splice(0)) await setup.close();
});

describe('two pushers of one organisation', () => {
  it('sends a queued create once when a second push starts while the first is on its way', async () => {
    const dir = tempDir();
    const setup = await syncedOutbox(dir, setups);
    const { profileId } = setup;
    const control = setup.sandbox.control!;
    // The other process: its own connection to the same cache file, its own pusher.
    const otherCache = openCache(path.join(dir, 'cache.sqlite'), { migrationsDir: defaultMigrationsDir() });
    closers.push(() => otherCache.close());
    const other = createOutbox({ cacheOf: () => otherCache, clientOf: () => setup.client });

    // The sandbox refuses a second supplier of the same code, so a second POST shows as that
    // refusal left on an edit that was sent (a server that numbers suppliers itself would
    // have made a second supplier).
    setup.outbox.createSupplier(profileId, { name: 'Zweimal Nie GmbH', code: 'TWICE-1' });
    // The first POST is held by the server, then stored: the second push starts meanwhile.
    const held = control.addFault({ match: 'createSupplier', latencyMs: 2_000, times: 1 });
    const first = setup.outbox.push(profileId);
    await expect.poll(() => control.faultFired(held), { timeout: 10_000 }).toBe(1);
    const second = await other.push(profileId);
    const firstSummary = await first;

    const created = setup.sandbox.state.suppliers.filter((supplier) => supplier.number === 'TWICE-1');
    expect(created).toHaveLength(1);
    expect(firstSummary).toMatchObject({ sent: 1, failed: 0, remaining: 0 });
    // The second push sent nothing: it was told another one is under way.
    expect(second).toMatchObject({
      sent: 0,
      failed: 0,
      stoppedBy: { code: 'BUSY', message: BUSY_MESSAGE },
    });
    expect(setup.outbox.list(profileId)).toEqual([]);
  });

  // The lease aside: pushOutbox is the pusher under the lease, so two of them on two
  // connections to one file are two processes' pushers with the lease held by neither. Each
  // edit must still leave once: its claim decides, not the lease.
  function twoPushers(dir: string, setup: OutboxSetup) {
    const otherCache = openCache(path.join(dir, 'cache.sqlite'), { migrationsDir: defaultMigrationsDir() });
    closers.push(() => otherCache.close());
    return {
      first: () => pushOutbox({ cache: setup.cache, client: setup.client }),
      second: () => pushOutbox({ cache: otherCache, client: setup.client }),
    };
  }

  it('sends a queued create once without the lease: the second pusher leaves the one on its way', async () => {
    const dir = tempDir();
    const setup = await syncedOutbox(dir, setups);
    const { profileId } = setup;
    const control = setup.sandbox.control!;
    const pushers = twoPushers(dir, setup);
    setup.outbox.createSupplier(profileId, { name: 'Ohne Lease GmbH', code: 'NOLEASE-1' });
    const later = setup.outbox.createSupplier(profileId, { name: 'Danach GmbH', code: 'NOLEASE-2' });
    const held = control.addFault({ match: 'createSupplier', latencyMs: 2_000, times: 1 });
    const first = pushers.first();
    await expect.poll(() => control.faultFired(held), { timeout: 10_000 }).toBe(1);
    // The first create is on its way with the first pusher: the second leaves it, and may
    // send the other one (a record of its own).
    const second = await pushers.second();
    const firstSummary = await first;
    // Which of the two sends the second create is theirs to settle; each create went once.
    expect(firstSummary.sent + second.sent).toBe(2);
    expect([firstSummary.failed, second.failed]).toEqual([0, 0]);

    expect(setup.sandbox.state.suppliers.filter((s) => s.number === 'NOLEASE-1')).toHaveLength(1);
    expect(setup.sandbox.state.suppliers.filter((s) => s.number === 'NOLEASE-2')).toHaveLength(1);
    expect(control.requests('createSupplier')).toHaveLength(2);
    expect(setup.outbox.list(profileId)).toEqual([]);
    expect(later.recordId).toMatch(/^local-/);
  });

  it('sends a queued update once without the lease, and a claim of a process gone is free', async () => {
    const dir = tempDir();
    const setup = await syncedOutbox(dir, setups);
    const { profileId, sandbox } = setup;
    const control = sandbox.control!;
    const pushers = twoPushers(dir, setup);
    const supplier = sandbox.state.suppliers[7]!;
    setup.outbox.updateSupplier(profileId, supplier.id, { name: 'Einmal Geändert' });
    const held = control.addFault({ match: 'updateSupplier', latencyMs: 2_000, times: 1 });
    const first = pushers.first();
    await expect.poll(() => control.faultFired(held), { timeout: 10_000 }).toBe(1);
    expect(await pushers.second()).toMatchObject({ sent: 0, failed: 0, remaining: 1 });
    expect(await first).toMatchObject({ sent: 1, remaining: 0 });
    expect(control.requests('updateSupplier')).toHaveLength(1);

    // A create left on its way by a process that is gone (its claim names a process id that
    // is no more): maybe sent, looked up and sent by the next push as ever.
    const created = setup.outbox.createSupplier(profileId, { name: 'Verwaist GmbH', code: 'ORPHAN-1' });
    const gone = { id: 'gone', pid: 2 ** 22 + 17, host: hostname() };
    setup.cache.sqlite
      .prepare(
        `UPDATE outbox SET status = 'sending', attempts = 1, sent_at = ?, claimed_by = ? WHERE operation_id = ?`,
      )
      .run(new Date().toISOString(), JSON.stringify(gone), created.operationId);
    expect(await pushers.second()).toMatchObject({ sent: 1, remaining: 0 });
    expect(sandbox.state.suppliers.filter((s) => s.number === 'ORPHAN-1')).toHaveLength(1);
  });
});
