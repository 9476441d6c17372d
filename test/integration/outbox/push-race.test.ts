import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src-main/api/client';
import { createOutbox } from '../../../src-main/outbox';
import { useTempDirs } from '../../helpers/temp-dir';
import { row, syncedOutbox, type OutboxSetup } from './fixture';

// An edit changed or discarded by the user while the pusher is already on its way with it (the
// app's Edit… and Discard stay open until the edit is marked as being sent). The pusher must
// send what the outbox holds when the request leaves, not what it read before.
const tempDir = useTempDirs();
const setups: OutboxSetup[] = [];
afterEach(async () => {
  for (const setup of setups.splice(0)) await setup.close();
});

const synced = () => syncedOutbox(tempDir(), setups);

/** Waits until the sandbox has met the fault's request (it is held there for its latency). */
async function reached(setup: OutboxSetup, faultId: string): Promise<void> {
  await expect.poll(() => setup.sandbox.control!.faultFired(faultId), { timeout: 10_000 }).toBe(1);
}

describe('an edit changed while it is being pushed', () => {
  it('sends the update as changed while the pusher read the server record', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const supplier = setup.sandbox.state.suppliers[12]!;
    const edit = outbox.updateSupplier(profileId, supplier.id, { name: 'First Thought' });
    const slow = setup.sandbox.control!.addFault({ match: 'getSupplier', latencyMs: 1_500, times: 1 });
    const pushing = outbox.push(profileId);
    await reached(setup, slow);
    outbox.edit(profileId, edit.operationId, { name: 'Second Thought' });

    expect(await pushing).toMatchObject({ sent: 1, failed: 0, conflicts: 0, remaining: 0 });
    const server = setup.sandbox.state.suppliers.find((s) => s.id === supplier.id)!;
    expect(server.name).toBe('Second Thought');
    expect(row(setup.cache, 'suppliers', supplier.id)).toMatchObject({
      name: 'Second Thought',
      local_edit_pending: 0,
    });
    expect(outbox.list(profileId)).toEqual([]);
  });

  it('does not send an update discarded while the pusher read the server record', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const supplier = setup.sandbox.state.suppliers[13]!;
    const original = supplier.name;
    const edit = outbox.updateSupplier(profileId, supplier.id, { name: 'Never Meant' });
    const slow = setup.sandbox.control!.addFault({ match: 'getSupplier', latencyMs: 1_500, times: 1 });
    const pushing = outbox.push(profileId);
    await reached(setup, slow);
    outbox.discard(profileId, edit.operationId);

    expect(await pushing).toMatchObject({ sent: 0, remaining: 0 });
    expect(setup.sandbox.state.suppliers.find((s) => s.id === supplier.id)!.name).toBe(original);
    expect(row(setup.cache, 'suppliers', supplier.id)).toMatchObject({
      name: original,
      local_edit_pending: 0,
    });
  });

  it('sends a create as changed while the pusher waited for its token', async () => {
    const setup = await synced();
    const { profileId } = setup;
    const control = setup.sandbox.control!;
    // A client that has no token yet (the app just started): the create waits for one.
    const client = createApiClient({
      baseUrl: setup.sandbox.url,
      credentials: async () => ({
        kind: 'client' as const,
        clientId: setup.sandbox.clientId,
        clientSecret: setup.sandbox.clientSecret,
      }),
      random: () => 0,
      timeoutMs: 5_000,
    });
    const outbox = createOutbox({ cacheOf: () => setup.cache, clientOf: () => client });
    const created = outbox.createSupplier(profileId, { name: 'Papier Erst', code: 'RACE-1' });
    const slow = control.addFault({ match: '/oauth2/token', latencyMs: 1_500, times: 1 });
    const pushing = outbox.push(profileId);
    await reached(setup, slow);
    outbox.edit(profileId, created.operationId, { name: 'Papier Zweit', code: 'RACE-2' });

    expect(await pushing).toMatchObject({ sent: 1, remaining: 0 });
    const made = setup.sandbox.state.suppliers.filter((s) => s.number.startsWith('RACE-'));
    expect(made.map((s) => [s.name, s.number])).toEqual([['Papier Zweit', 'RACE-2']]);
    expect(outbox.list(profileId)).toEqual([]);
  });
});
