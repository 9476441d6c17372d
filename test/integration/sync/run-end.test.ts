import { afterEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-shared/ipc';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';
import { until } from '../../helpers/until';

// How a run ends, whatever ends it: every run that started ends with a `sync.finished` whose
// outcome is the truth (a cancel is "cancelled" and no problem; a cache that refuses to write is
// "failed" and says why), and the next run is accepted.

const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(sandboxOptions: Parameters<typeof connectedCore>[1] = {}) {
  const fixture = await connectedCore(tempDir(), {
    transactions: 300,
    readLimit: 100_000,
    ...sandboxOptions,
  });
  cleanups.push(fixture.close);
  const seen: Array<{ name: EventName; payload: unknown }> = [];
  fixture.core.events.subscribe((name, payload) => seen.push({ name, payload }));
  const of = <E extends EventName>(name: E) =>
    seen.filter((event) => event.name === name).map((event) => event.payload as EventPayload<E>);
  return { ...fixture, of };
}

describe('the end of a sync run', () => {
  it('ends a cancelled run as cancelled, with no problem recorded for the cancel', async () => {
    const { core, profile, sandbox, of } = await setup({ transactions: 3000 });
    sandbox.control!.addFault({ match: '*', latencyMs: 40 });
    const running = core.sync.sync(profile.id);
    await until(() => of('sync.progress').some((progress) => progress.records > 0), 'the first page');
    expect(core.sync.cancel(profile.id)).toBe(true);
    const summary = await running;
    expect(summary).toMatchObject({ outcome: 'cancelled', errors: [] });
    expect(of('sync.finished')).toMatchObject([{ outcome: 'cancelled', errors: [] }]);
    expect(core.sync.history(profile.id)).toMatchObject([{ outcome: 'cancelled', errors: '[]' }]);
  }, 60_000);
});
