import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src-main/outbox';
import { defaultMigrationsDir, openCache } from '../../../src-main/store';
import { createLeases, LEASE_LOST_MESSAGE } from '../../../src-main/sync/lease';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';
import { syncedOutbox, type OutboxSetup } from './fixture';

// A push whose process went silent for two minutes (a suspended laptop) while an edit's request
// was on its way, and whose lease another process took over meanwhile to push the same outbox.
// When it wakes, its wall clock has moved on but its timers have not: its next heartbeat is up
// to 15 s away. It must send no request of an edit from then on, nor write the answer it gets:
// the other process is the pusher now. Two outboxes on two connections to one cache file stand
// for the two processes; the old one's heartbeat is made too slow to fire during the test, and
// its lease clock is moved on by three minutes at the takeover, as a suspend moves it.
const tempDir = useTempDirs();
const setups: OutboxSetup[] = [];
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  for (const setup of setups.splice(0)) await setup.close();
});

describe('a push whose lease was taken over while its process was silent', () => {
  it('sends no later edit; the new holder sends it once', async () => {
    const dir = tempDir();
    const setup = await syncedOutbox(dir, setups);
    const { profileId, sandbox, client } = setup;
    const control = sandbox.control!;
    let skew = 0;
    const old = createOutbox({
      cacheOf: () => setup.cache,
      clientOf: () => client,
      leases: createLeases({ heartbeatMs: 600_000, now: () => Date.now() + skew }),
    });
    const otherCache = openCache(path.join(dir, 'cache.sqlite'), { migrationsDir: defaultMigrationsDir() });
    closers.push(() => otherCache.close());
    // The other process sees every lease as expired: it takes the old one's over at once.
    const other = createOutbox({
      cacheOf: () => otherCache,
      clientOf: () => client,
      leases: createLeases({ expiryMs: 0 }),
    });

    const [first, second] = [sandbox.state.suppliers[4]!, sandbox.state.suppliers[6]!];
    old.updateSupplier(profileId, first.id, { name: 'Vor Dem Schlaf GmbH' });
    old.updateSupplier(profileId, second.id, { name: 'Nach Dem Aufwachen GmbH' });
    const patches = (id: string) =>
      control.requests('updateSupplier').filter((entry) => entry.path === `/v1/suppliers/${id}`).length;

    // The first edit's PATCH is held by the server: the process falls silent with it on its way.
    const held = control.addFault({ match: 'updateSupplier', latencyMs: 2_000, times: 1 });
    const pushing = old.push(profileId);
    await until(() => control.faultFired(held) === 1, 'the first PATCH to be on its way');
    skew = 3 * 60_000;
    // The other process takes the lease over and pushes: it leaves the first edit (on its way
    // with the old pusher) and reads the second's record, slowly, until after the old push woke.
    const slowRead = control.addFault({
      match: `/v1/suppliers/${second.id}`,
      method: 'GET',
      latencyMs: 5_000,
      times: 1,
    });
    let otherDone = false;
    const otherPushing = other.push(profileId).finally(() => (otherDone = true));
    await until(() => control.faultFired(slowRead) === 1, 'the other push to read the second record');

    // The first PATCH's answer arrives: the old pusher records nothing of it and sends nothing more.
    const stopped = await pushing;
    expect(otherDone).toBe(false);
    expect(patches(second.id)).toBe(0);
    expect(stopped).toMatchObject({ sent: 0, stoppedBy: { code: 'BUSY', message: LEASE_LOST_MESSAGE } });

    // The new holder sends the second edit, once.
    expect(await otherPushing).toMatchObject({ sent: 1, failed: 0, conflicts: 0 });
    expect(patches(second.id)).toBe(1);
    expect(sandbox.state.suppliers.find((s) => s.id === second.id)?.name).toBe('Nach Dem Aufwachen GmbH');
    // The first edit's answer was not written: it is left `sending`, maybe sent, and the next push
    // finds it on the server rather than send it again. (One process stands for both here, so its
    // claim is free once the old push ended; another process waits for the old one to end, or
    // for the claim to expire.)
    expect(await other.push(profileId)).toMatchObject({ sent: 1, remaining: 0 });
    expect(patches(first.id)).toBe(1);
    expect(sandbox.state.suppliers.find((s) => s.id === first.id)?.name).toBe('Vor Dem Schlaf GmbH');
    expect(other.list(profileId)).toEqual([]);
  });
});
