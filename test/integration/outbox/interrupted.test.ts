import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src-main/outbox';
import { useTempDirs } from '../../helpers/temp-dir';
import { syncedOutbox, type OutboxSetup } from './fixture';

// An edit left `sending` by a push that is no more (its process killed or crashed): nobody is
// sending it, and it may or may not have reached the server. It is listed as interrupted, not
// as being sent; an update may be changed (the new value supersedes the one that may have
// been sent), a create may not until a sync has found out whether it made the record.
const tempDir = useTempDirs();
const setups: OutboxSetup[] = [];
afterEach(async () => {
  for (const setup of setups.splice(0)) await setup.close();
});

/** Leaves the edit as a push whose process is `pid` leaves it when it sends the request. */
function claimFor(setup: OutboxSetup, operationId: string, pid: number, sentAt = new Date()) {
  const claim = { id: `claim-of-${pid}`, pid, host: hostname() };
  setup.cache.sqlite
    .prepare(
      `UPDATE outbox SET status = 'sending', attempts = attempts + 1, sent_at = ?, claimed_by = ? WHERE operation_id = ?`,
    )
    .run(sentAt.toISOString(), JSON.stringify(claim), operationId);
}

/** A process id that no process has (above Linux's largest): a push killed mid-request. */
const GONE = 2 ** 22 + 17;

describe('an edit interrupted on its way', () => {
  it('lists an update left by a process that is gone as interrupted, and Edit… sends the new value once', async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { outbox, profileId, sandbox } = setup;
    const control = sandbox.control!;
    const supplier = sandbox.state.suppliers[5]!;
    const edit = outbox.updateSupplier(profileId, supplier.id, { name: 'Halb Gesendet GmbH' });
    claimFor(setup, edit.operationId, GONE);
    expect(outbox.list(profileId)).toMatchObject([{ operationId: edit.operationId, status: 'interrupted' }]);

    const changed = outbox.edit(profileId, edit.operationId, { name: 'Neu Gesendet GmbH' });
    expect(changed).toMatchObject({ status: 'pending', payload: { name: 'Neu Gesendet GmbH' } });
    // The claim is cleared with it: nothing names the gone process any more.
    expect(
      setup.cache.sqlite
        .prepare('SELECT claimed_by FROM outbox WHERE operation_id = ?')
        .pluck()
        .get(edit.operationId),
    ).toBe(null);
    expect(
      setup.cache.sqlite.prepare('SELECT name FROM suppliers WHERE id = ?').pluck().get(supplier.id),
    ).toBe('Neu Gesendet GmbH');

    control.clearRequests();
    expect(await outbox.push(profileId)).toMatchObject({ sent: 1, failed: 0, conflicts: 0, remaining: 0 });
    expect(control.requests('updateSupplier')).toHaveLength(1);
    expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Neu Gesendet GmbH');
    expect(outbox.list(profileId)).toEqual([]);
  });

  it("sends the new value on top of the earlier request that did land, and meets a colleague's change as a conflict", async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { outbox, profileId, sandbox } = setup;
    const control = sandbox.control!;
    const [landed, renamed] = [sandbox.state.suppliers[9]!, sandbox.state.suppliers[10]!];
    const first = outbox.updateSupplier(profileId, landed.id, { name: 'Angekommen GmbH' });
    // A later edit of another field of the record, made before the push.
    outbox.updateSupplier(profileId, landed.id, { vatIdNo: 'DE999999999' });
    const second = outbox.updateSupplier(profileId, renamed.id, { name: 'Auch Angekommen GmbH' });
    // Each PATCH reached the server before the process died; a colleague then renamed the second.
    for (const [id, name] of [
      [landed.id, 'Angekommen GmbH'],
      [renamed.id, 'Auch Angekommen GmbH'],
    ] as const)
      expect((await setup.api('PATCH', `/v1/suppliers/${id}`, { name })).status).toBe(200);
    control.updateSupplier(renamed.id, { name: 'Kollegin GmbH' });
    claimFor(setup, first.operationId, GONE);
    claimFor(setup, second.operationId, GONE);
    outbox.edit(profileId, first.operationId, { name: 'Endgültig GmbH' });
    outbox.edit(profileId, second.operationId, { name: 'Auch Endgültig GmbH' });

    control.clearRequests();
    expect(await outbox.push(profileId)).toMatchObject({ sent: 2, conflicts: 1, remaining: 0 });
    // Its own earlier request is no colleague's change: the new name goes on top, and the later
    // edit after it.
    expect(control.requests('updateSupplier')).toHaveLength(2);
    expect(sandbox.state.suppliers.find((s) => s.id === landed.id)).toMatchObject({
      name: 'Endgültig GmbH',
      vatIdNo: 'DE999999999',
    });
    // A colleague's rename since is met as a conflict, as any.
    expect(outbox.list(profileId)).toMatchObject([
      { operationId: second.operationId, status: 'conflict', server: { name: 'Kollegin GmbH' } },
    ]);
  });

  it('refuses Edit… of an interrupted create, saying why, and the next push settles it once', async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { profileId, sandbox } = setup;
    const outbox = createOutbox({
      cacheOf: () => setup.cache,
      clientOf: () => setup.client,
      organisationName: () => 'Nordwind Demo',
    });
    const created = outbox.createSupplier(profileId, { name: 'Vielleicht GmbH', code: 'MAYBE-1' });
    claimFor(setup, created.operationId, GONE);
    expect(outbox.list(profileId)).toMatchObject([{ status: 'interrupted', operation: 'create' }]);

    expect(() =>
      outbox.edit(profileId, created.operationId, { name: 'Anders GmbH', code: 'MAYBE-1' }),
    ).toThrow(
      'Satchel does not know yet whether this new supplier reached Nordwind Demo: sending it was interrupted. Sync to find out, then edit it.',
    );
    expect(outbox.list(profileId)).toMatchObject([
      { status: 'interrupted', payload: { name: 'Vielleicht GmbH', code: 'MAYBE-1' } },
    ]);

    expect(await outbox.push(profileId)).toMatchObject({ sent: 1, remaining: 0 });
    expect(sandbox.state.suppliers.filter((s) => s.number === 'MAYBE-1').map((s) => s.name)).toEqual([
      'Vielleicht GmbH',
    ]);
  });

  it('keeps an edit a live process has on its way as sending, and Edit… refused', async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { outbox, profileId, sandbox } = setup;
    const supplier = sandbox.state.suppliers[6]!;
    const edit = outbox.updateSupplier(profileId, supplier.id, { name: 'Unterwegs KG' });
    // Another process of this machine that is alive (the one that started the tests).
    claimFor(setup, edit.operationId, process.ppid);
    expect(outbox.list(profileId)).toMatchObject([{ status: 'sending' }]);
    expect(() => outbox.edit(profileId, edit.operationId, { name: 'Anders KG' })).toThrow(
      'This edit is being sent; wait for the push to finish.',
    );
    // The same claim made longer ago than any request lasts (a process id since reused): free.
    claimFor(setup, edit.operationId, process.ppid, new Date(Date.now() - 11 * 60_000));
    expect(outbox.list(profileId)).toMatchObject([{ status: 'interrupted' }]);
  });

  it('keeps an edit a running push of this process has on its way as sending', async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { outbox, profileId, sandbox } = setup;
    const control = sandbox.control!;
    const supplier = sandbox.state.suppliers[8]!;
    const edit = outbox.updateSupplier(profileId, supplier.id, { name: 'Gerade Jetzt AG' });
    const held = control.addFault({ match: 'updateSupplier', latencyMs: 1_500, times: 1 });
    const pushing = outbox.push(profileId);
    await expect.poll(() => control.faultFired(held), { timeout: 10_000 }).toBe(1);
    expect(outbox.list(profileId)).toMatchObject([{ status: 'sending' }]);
    expect(() => outbox.edit(profileId, edit.operationId, { name: 'Zu Spät AG' })).toThrow(
      'This edit is being sent; wait for the push to finish.',
    );
    expect(await pushing).toMatchObject({ sent: 1, remaining: 0 });
    expect(control.requests('updateSupplier')).toHaveLength(1);
    expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Gerade Jetzt AG');
  });
});
