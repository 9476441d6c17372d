import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../helpers/temp-dir';
import { outboxSetup, type OutboxSetup } from './fixture';

// A long queue sent at the write bucket's pace can be stopped by the user, not only by a sync's
// Cancel or the app closing: what was sent stays sent, the rest waits as it was.
const tempDir = useTempDirs();
const setups: OutboxSetup[] = [];
afterEach(async () => {
  for (const setup of setups.splice(0)) await setup.close();
});

describe('cancelling a push', () => {
  it('stops a push waiting for the write bucket; the edits not sent wait, none "maybe sent"', async () => {
    // Three writes a minute: the fourth create waits for the next window.
    const setup = await outboxSetup(tempDir(), { writeLimit: 3 });
    setups.push(setup);
    expect((await setup.sync()).outcome).toBe('succeeded');
    const { outbox, profileId, sandbox } = setup;
    expect(outbox.cancelPush(profileId)).toBe(false); // nothing to cancel
    const names = ['One', 'Two', 'Three', 'Four', 'Five'].map((n) => `Cancel ${n} GmbH`);
    for (const [index, name] of names.entries())
      outbox.createSupplier(profileId, { name, code: `CANCEL-${index + 1}` });
    const created = () => sandbox.state.suppliers.filter((s) => s.name.startsWith('Cancel ')).length;

    const push = outbox.push(profileId);
    await expect.poll(() => created(), { timeout: 20_000 }).toBe(3);
    await expect.poll(() => outbox.list(profileId).length).toBe(2);
    expect(outbox.isPushing(profileId)).toBe(true);
    expect(outbox.cancelPush(profileId)).toBe(true);
    const summary = await push;
    expect(summary).toMatchObject({
      sent: 3,
      failed: 0,
      conflicts: 0,
      remaining: 2,
      stoppedBy: { code: 'CANCELLED', message: 'Sending offline edits was cancelled.' },
    });
    expect(outbox.isPushing(profileId)).toBe(false);
    expect(created()).toBe(3);
    expect(outbox.list(profileId).map((item) => [item.name, item.status])).toEqual([
      ['Cancel Four GmbH', 'pending'],
      ['Cancel Five GmbH', 'pending'],
    ]);
    expect(outbox.cancelPush(profileId)).toBe(false);
  }, 60_000);
});
