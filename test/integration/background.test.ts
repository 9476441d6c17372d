import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackground, type Timers } from '../../src-main/background';
import { createCore, type Core } from '../../src-main/core';
import type { EventName, EventPayload, OnlineState } from '../../src-shared/ipc';
import { connectedCore } from '../helpers/sync-fixture';
import { useTempDirs } from '../helpers/temp-dir';
import { until } from '../helpers/until';

// Background work against a real core and the real sandbox, with a fake clock for the
// schedule: sync on start, on the interval while online, the outbox pushed on reconnect,
// offline from the system's signal and from requests that get no answer, one run per
// organisation at a time, and a clean stop.

const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const INTERVAL = 15 * 60_000;
const RETRY = 60_000;

/** A clock the test moves by hand: only the schedule is fake, the work is real. */
function fakeTimers() {
  let now = 0;
  let nextId = 1;
  const pending = new Map<number, { at: number; run: () => void }>();
  const timers: Timers = {
    setTimeout(run, ms) {
      const id = nextId++;
      pending.set(id, { at: now + ms, run });
      return id;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    timers,
    /** Delays of the timers set now, from the current fake time. */
    pending: () => [...pending.values()].map((timer) => timer.at - now),
    advance(ms: number) {
      now += ms;
      const due = [...pending.entries()].filter(([, timer]) => timer.at <= now);
      due.sort((a, b) => a[1].at - b[1].at);
      for (const [id, timer] of due) {
        pending.delete(id);
        timer.run();
      }
    },
  };
}

async function setup(sandboxOptions: Parameters<typeof connectedCore>[1] = {}) {
  const fixture = await connectedCore(tempDir(), {
    transactions: 300,
    readLimit: 100_000,
    ...sandboxOptions,
  });
  const clock = fakeTimers();
  const background = createBackground({
    core: fixture.core,
    timers: clock.timers,
    intervalMs: INTERVAL,
    retryMs: RETRY,
  });
  cleanups.push(async () => {
    await background.stop();
    await fixture.close();
  });
  const seen: Array<{ name: EventName; payload: unknown }> = [];
  fixture.core.events.subscribe((name, payload) => seen.push({ name, payload }));
  const of = <E extends EventName>(name: E) =>
    seen.filter((event) => event.name === name).map((event) => event.payload as EventPayload<E>);
  return { ...fixture, clock, background, seen, of };
}

const runs = (core: Core, profileId: string) => core.sync.history(profileId, 100);

describe('background sync and online state', () => {
  it('syncs on start and on the interval while online, and not while the system is offline', async () => {
    const { core, profile, clock, background, of } = await setup();
    background.start();
    await background.idle();
    expect(runs(core, profile.id).map((run) => run.outcome)).toEqual(['succeeded']);
    expect(clock.pending()).toEqual([INTERVAL]);

    clock.advance(INTERVAL);
    await background.idle();
    expect(runs(core, profile.id)).toHaveLength(2);

    core.connectivity.setNetwork(false);
    expect(of('app.online')).toMatchObject([{ online: false, reason: 'network' }]);
    expect(clock.pending()).toEqual([]); // offline by the system: nothing scheduled, no probe
    clock.advance(INTERVAL * 3);
    background.wake();
    await background.idle();
    expect(runs(core, profile.id)).toHaveLength(2);
  });

  it('pushes the offline edits first when the network comes back, then syncs', async () => {
    const { core, profile, sandbox, background, of, clock } = await setup();
    core.connectivity.setNetwork(false);
    background.start();
    await background.idle();
    expect(runs(core, profile.id)).toEqual([]); // started offline: nothing to do yet

    // The cache needs the supplier before it can be edited: one sync by hand, as if earlier.
    core.connectivity.setNetwork(true);
    await background.idle();
    const supplier = sandbox.state.suppliers[12]!;
    core.connectivity.setNetwork(false);
    core.outbox.updateSupplier(profile.id, supplier.id, { name: 'Back Online GmbH' });
    expect(core.outbox.list(profile.id)).toHaveLength(1);

    const before = runs(core, profile.id).length;
    core.connectivity.setNetwork(true);
    await background.idle();
    expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Back Online GmbH');
    expect(core.outbox.list(profile.id)).toEqual([]);
    expect(runs(core, profile.id)).toHaveLength(before + 1);
    expect(of('app.online').map((state) => [state.online, state.reason])).toEqual([
      [false, 'network'],
      [true, null],
      [false, 'network'],
      [true, null],
    ]);
    expect(clock.pending()).toEqual([INTERVAL]);
  });

  it('goes offline when the API does not answer although the network is up, checks back, and resumes', async () => {
    const { core, profile, sandbox, clock, background, of } = await setup();
    background.start();
    await background.idle();

    await sandbox.setReachable(false); // every connection refused
    clock.advance(INTERVAL);
    await until(() => !core.connectivity.state().online, 'the failed requests to take the app offline');
    expect(core.connectivity.state()).toMatchObject({ online: false, reason: 'unreachable' });
    await background.idle(); // the sync gives up after its retries
    expect(runs(core, profile.id)[0]?.outcome).toBe('failed');
    expect(clock.pending()).toEqual([RETRY]); // a check now and then, not a full sync

    await sandbox.setReachable(true);
    clock.advance(RETRY);
    await until(() => core.connectivity.state().online, 'the check to find the API again');
    await background.idle();
    expect(runs(core, profile.id)[0]?.outcome).toBe('succeeded'); // the reconnect sync
    const states: OnlineState[] = of('app.online');
    expect(states.map((state) => state.reason)).toEqual(['unreachable', null]);
  }, 60_000);

  it('stays online when the API resets every connection: a failed sync, and the interval as before', async () => {
    const { core, profile, sandbox, clock, background, of } = await setup();
    background.start();
    await background.idle();

    sandbox.control!.addFault({ match: '*', drop: true }); // connected, then cut before an answer
    clock.advance(INTERVAL);
    await background.idle(); // the sync gives up after its retries
    expect(runs(core, profile.id)[0]?.outcome).toBe('failed');
    const host = new URL(sandbox.url).host;
    expect(of('sync.finished').at(-1)).toMatchObject({
      outcome: 'failed',
      errors: [
        {
          code: 'CONNECTION_RESET',
          message: `The connection to ${host} was reset before the server answered. Try again later.`,
        },
      ],
    });
    expect(core.connectivity.state()).toMatchObject({ online: true, reason: null });
    expect(of('app.online')).toEqual([]);
    expect(clock.pending()).toEqual([INTERVAL]); // the next sync as ever, no checks for a way back

    sandbox.control!.clearFaults();
    clock.advance(INTERVAL);
    await background.idle();
    expect(runs(core, profile.id)[0]?.outcome).toBe('succeeded');
  }, 60_000);

  it('never runs two syncs of one organisation at once, whoever asks', async () => {
    const { core, profile, sandbox, clock, background } = await setup();
    sandbox.control!.addFault({ match: '*', latencyMs: 15 });
    const active = new Set<number>();
    let most = 0;
    core.events.subscribe((name, payload) => {
      if (name === 'sync.progress') {
        active.add((payload as EventPayload<'sync.progress'>).runId);
        most = Math.max(most, active.size);
      }
      // A run that failed before its first page has no id, and never counted as active.
      const ended = name === 'sync.finished' ? (payload as EventPayload<'sync.finished'>).runId : null;
      if (ended !== null) active.delete(ended);
    });

    background.start();
    const byHand = core.sync.sync(profile.id); // the user presses "Sync now" at the same moment
    background.wake();
    clock.advance(INTERVAL);
    core.connectivity.setNetwork(false);
    core.connectivity.setNetwork(true); // a reconnect while the round runs: one more round after it
    background.wake();
    await byHand;
    await background.idle();
    expect(most).toBe(1);
    // The user's run, joined by the start round; then one round for the reconnect. The wake-ups
    // and the interval during the first round were covered by it.
    expect(runs(core, profile.id).map((run) => run.outcome)).toEqual(['succeeded', 'succeeded']);
  });

  it('goes on after a sync the cache refused to record, which still ends with a finished event', async () => {
    const { core, profile, clock, background, of } = await setup();
    // The cache file refuses the run's last write, as a full disk would.
    const sqlite = core.cacheOf(profile.id).sqlite;
    sqlite.exec(
      `CREATE TRIGGER refuse_history BEFORE UPDATE OF finished_at ON sync_runs
       WHEN NEW.finished_at IS NOT NULL BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
    );
    background.start();
    await background.idle();
    expect(of('sync.finished')).toMatchObject([{ profileId: profile.id, outcome: 'failed' }]);
    expect(core.sync.isRunning(profile.id)).toBe(false);
    expect(clock.pending()).toEqual([INTERVAL]);

    sqlite.exec('DROP TRIGGER refuse_history');
    clock.advance(INTERVAL);
    await background.idle();
    expect(of('sync.finished').map((run) => run.outcome)).toEqual(['failed', 'succeeded']);
    expect(runs(core, profile.id)[0]?.outcome).toBe('succeeded');
  });

  it('stops cleanly: the running sync ends at a page boundary and nothing runs afterwards', async () => {
    const { core, profile, sandbox, clock, background, of } = await setup({ transactions: 3000 });
    sandbox.control!.addFault({ match: '*', latencyMs: 40 });
    background.start();
    await until(() => of('sync.progress').some((progress) => progress.records > 0), 'the first page');
    await background.stop();
    expect(runs(core, profile.id)[0]?.outcome).toBe('cancelled');
    expect(clock.pending()).toEqual([]);
    clock.advance(INTERVAL * 10);
    core.connectivity.setNetwork(false);
    core.connectivity.setNetwork(true);
    background.wake();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(core.sync.isRunning(profile.id)).toBe(false);
    expect(runs(core, profile.id)).toHaveLength(1);
  });

  it('starts again on start the bulk downloads a quit interrupted, and leaves paused ones paused', async () => {
    const { core, profile, sandbox, background } = await setup({ transactions: 600 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 20 });
    const destination = path.join(tempDir(), 'receipts');
    const { job } = await core.files.start(profile.id, { scope: { by: 'all' }, destination });
    const paused = await core.files.start(profile.id, {
      scope: { by: 'all' },
      destination: path.join(tempDir(), 'later'),
    });
    core.files.pause(profile.id, paused.job.id);
    await until(() => core.files.status(profile.id, job.id).files.done >= 20, 'the first files');
    await core.files.stopAll(); // what quitting does: interrupted, not cancelled
    const before = core.files.status(profile.id, job.id);
    expect(before).toMatchObject({ status: 'pending', active: false });
    expect(before.files.done).toBeLessThan(before.files.total);

    // Requests sent just before the stop reach the in-process sandbox a moment later; let them
    // land before the count starts.
    await new Promise((resolve) => setTimeout(resolve, 200));
    sandbox.control?.clearRequests();
    background.start();
    await background.idle();
    await until(() => core.files.status(profile.id, job.id).status === 'completed', 'the download', 60_000);
    const after = core.files.status(profile.id, job.id);
    expect(after.files).toMatchObject({ done: after.files.total, failed: 0 });
    // Only what was missing was asked for again.
    expect(sandbox.control?.requests('getFileContent').length ?? 0).toBeLessThanOrEqual(
      before.files.total - before.files.done,
    );
    expect(core.files.status(profile.id, paused.job.id)).toMatchObject({ status: 'paused', active: false });
  });

  it('lets a download cut off by the network wait, and finishes it when the API answers again', async () => {
    const { core, profile, sandbox, clock, background } = await setup({ transactions: 600 });
    background.start();
    await background.idle();
    sandbox.control!.addFault({ match: 'getFileContent', latencyMs: 10 });
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'all' },
      destination: path.join(tempDir(), 'receipts'),
    });
    await until(() => core.files.status(profile.id, job.id).files.done >= 20, 'the first files');
    await sandbox.setReachable(false); // the API stops answering
    const stopped = await core.files.wait(profile.id, job.id);
    expect(stopped).toMatchObject({ status: 'pending', error: { code: 'OFFLINE' } });
    expect(core.files.status(profile.id, job.id)).toMatchObject({ status: 'pending', active: false });
    await until(() => !core.connectivity.state().online, 'the app to see it is offline');

    sandbox.control!.clearFaults();
    await sandbox.setReachable(true);
    clock.advance(RETRY); // the check finds the API; the reconnect round resumes the download
    await until(() => core.connectivity.state().online, 'the check to find the API again');
    await until(() => core.files.status(profile.id, job.id).status === 'completed', 'the download', 60_000);
    expect(core.files.status(profile.id, job.id).files).toMatchObject({ failed: 0 });
  }, 90_000);

  it('starts an interrupted download again at the next interval round while online', async () => {
    const { core, profile, sandbox, clock, background } = await setup({ transactions: 300 });
    background.start();
    await background.idle();
    sandbox.control!.addFault({ match: 'getFileContent', latencyMs: 50 }); // still running at the stop
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'all' },
      destination: path.join(tempDir(), 'receipts'),
    });
    await core.files.stopAll(); // interrupted while the app stays online
    sandbox.control!.clearFaults();
    expect(core.files.status(profile.id, job.id)).toMatchObject({ status: 'pending', active: false });
    clock.advance(INTERVAL);
    await background.idle();
    await until(() => core.files.status(profile.id, job.id).status === 'completed', 'the download', 60_000);
    expect(core.files.status(profile.id, job.id).files).toMatchObject({ failed: 0 });
  }, 90_000);

  it('says nothing of a round that meets another process syncing, and syncs at the next one', async () => {
    const { core, profile, sandbox, clock, background, of, secrets } = await setup();
    background.start();
    await background.idle();
    expect(runs(core, profile.id)).toHaveLength(1);

    // Another process on the same data folder (a scheduled `satchel sync`) holds the lease: its
    // sync waits on a suppliers page meanwhile.
    const dataDir = path.dirname(path.dirname(core.profiles.cacheFile(profile.id)));
    const other = createCore({ dataDir, secrets });
    cleanups.push(() => other.close());
    const held = sandbox.control!.addFault({ match: 'listSuppliers', latencyMs: 60_000, times: 1 });
    const elsewhere = other.sync.sync(profile.id);
    await until(() => sandbox.control!.faultFired(held) === 1, 'the other sync to reach the suppliers');

    clock.advance(INTERVAL);
    await background.idle();
    // Refused, and told apart from a failure: no failed run for the window to show, no row.
    expect(of('sync.finished')).toMatchObject([
      { outcome: 'succeeded' },
      { runId: null, outcome: 'busy', errors: [{ code: 'BUSY' }] },
    ]);
    expect(of('sync.finished').filter((end) => end.outcome === 'failed')).toEqual([]);
    expect(of('app.notice')).toEqual([]);
    expect(clock.pending()).toEqual([INTERVAL]);

    other.sync.cancel(profile.id);
    expect(await elsewhere).toMatchObject({ outcome: 'cancelled' });
    sandbox.control!.clearFaults();
    clock.advance(INTERVAL); // the next round tries again, and syncs
    await background.idle();
    expect(of('sync.finished').at(-1)).toMatchObject({ outcome: 'succeeded' });
  }, 120_000);

  it("tells a Sync now from the menu that another process syncs, in the Sync screen's words", async () => {
    const { core, profile, sandbox, background, of, secrets } = await setup();
    background.start();
    await background.idle();

    const dataDir = path.dirname(path.dirname(core.profiles.cacheFile(profile.id)));
    const other = createCore({ dataDir, secrets });
    cleanups.push(() => other.close());
    const held = sandbox.control!.addFault({ match: 'listSuppliers', latencyMs: 60_000, times: 1 });
    const elsewhere = other.sync.sync(profile.id);
    await until(() => sandbox.control!.faultFired(held) === 1, 'the other sync to reach the suppliers');

    // What the Sync screen's own button shows: the command's error.
    const fromScreen = await core.sync.sync(profile.id).catch((error: unknown) => error);
    expect(fromScreen).toMatchObject({ code: 'BUSY' });
    const screenWords = (fromScreen as Error).message;

    background.syncNow();
    await background.idle();
    expect(of('app.notice')).toMatchObject([{ level: 'info', message: screenWords }]);
    expect(of('sync.finished').at(-1)).toMatchObject({ outcome: 'busy' });

    // Asked while a round runs: that round is the one asked for, and its refusal is told once.
    background.wake(); // a wake-up of the system: silent
    background.syncNow();
    background.syncNow();
    await background.idle();
    expect(of('app.notice')).toHaveLength(2);
    expect(of('app.notice')[1]).toMatchObject({ message: screenWords });

    other.sync.cancel(profile.id);
    await elsewhere.catch(() => undefined);
    sandbox.control!.clearFaults();
    background.syncNow(); // free again: it syncs, and says nothing
    await background.idle();
    expect(of('sync.finished').at(-1)).toMatchObject({ outcome: 'succeeded' });
    expect(of('app.notice')).toHaveLength(2);

    core.connectivity.setNetwork(false);
    background.syncNow();
    expect(of('app.notice').at(-1)).toMatchObject({
      level: 'info',
      message: 'Offline: Satchel syncs as soon as the network is back.',
    });
  }, 120_000);
});
