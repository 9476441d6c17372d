import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src-main/outbox';
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
});
