import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../helpers/temp-dir';
import { syncedOutbox, type OutboxSetup } from './fixture';

// Discard of an edit a live push has on its way: the request has left (a create reaches the
// server whatever the outbox then says), so it is refused as Edit… is. An edit left `sending`
// by a process that is gone has nobody sending it, and can still be discarded.
const tempDir = useTempDirs();
const setups: OutboxSetup[] = [];
afterEach(async () => {
  for (const setup of setups.splice(0)) await setup.close();
});

describe('discarding an edit that is being sent', () => {
  it('refuses while a live push has it on its way, and the create is sent whole', async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { outbox, profileId, sandbox } = setup;
    const created = outbox.createSupplier(profileId, { name: 'Unterwegs GmbH', code: 'WAY-1' });
    const held = sandbox.control!.addFault({ match: 'createSupplier', latencyMs: 1_500, times: 1 });
    const pushing = outbox.push(profileId);
    await expect.poll(() => sandbox.control!.faultFired(held), { timeout: 10_000 }).toBe(1);
    expect(outbox.list(profileId).map((item) => item.status)).toEqual(['sending']);

    expect(() => outbox.discard(profileId, created.operationId)).toThrow(/^This edit is being sent; /);
    expect(await pushing).toMatchObject({ sent: 1, failed: 0, remaining: 0 });
    expect(outbox.list(profileId)).toEqual([]);
    expect(sandbox.state.suppliers.filter((s) => s.number === 'WAY-1').map((s) => s.name)).toEqual([
      'Unterwegs GmbH',
    ]);
  });

  it('discards an edit left sending by a process that is gone', async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { outbox, profileId, sandbox } = setup;
    const created = outbox.createSupplier(profileId, { name: 'Verlassen GmbH', code: 'LEFT-1' });
    // Claimed by a process id that no process has (above Linux's largest): killed mid-push.
    const gone = { id: 'gone', pid: 2 ** 22 + 17, host: hostname() };
    setup.cache.sqlite
      .prepare(
        `UPDATE outbox SET status = 'sending', attempts = 1, sent_at = ?, claimed_by = ? WHERE operation_id = ?`,
      )
      .run(new Date().toISOString(), JSON.stringify(gone), created.operationId);
    outbox.discard(profileId, created.operationId);
    expect(outbox.list(profileId)).toEqual([]);
    expect(
      setup.cache.sqlite.prepare('SELECT count(*) FROM suppliers WHERE id = ?').pluck().get(created.recordId),
    ).toBe(0);
    expect(sandbox.state.suppliers.filter((s) => s.number === 'LEFT-1')).toEqual([]);
  });
});
