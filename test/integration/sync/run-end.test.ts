import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { runEndsFile } from '../../../src-main/sync/service';
import type { Core } from '../../../src-main/core';
import type { EventName, EventPayload } from '../../../src-shared/ipc';
import { runCli } from '../../helpers/cli';
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

/** Makes the organisation's real cache file refuse a write to the history, as a full disk would. */
function refuseHistory(core: Core, profileId: string, when: 'insert' | 'end'): () => void {
  const sqlite = core.cacheOf(profileId).sqlite;
  const on =
    when === 'insert'
      ? 'BEFORE INSERT ON sync_runs'
      : 'BEFORE UPDATE OF finished_at ON sync_runs WHEN NEW.finished_at IS NOT NULL';
  sqlite.exec(
    `CREATE TRIGGER refuse_history ${on} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
  );
  return () => sqlite.exec('DROP TRIGGER refuse_history');
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

  it('ends a run whose history write is refused after its pages as failed, says why, and takes the next', async () => {
    const { core, profile, of } = await setup();
    const allow = refuseHistory(core, profile.id, 'end');
    const summary = await core.sync.sync(profile.id);
    const message = expect.stringMatching(
      /could not write to this organisation's cache \(database or disk is full\).*sync again/,
    );
    expect(summary).toMatchObject({
      outcome: 'failed',
      errors: [{ resource: '', code: 'INTERNAL', message }],
    });
    const progress = of('sync.progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(of('sync.finished')).toMatchObject([
      { profileId: profile.id, runId: progress.at(-1)?.runId, outcome: 'failed', errors: [{ message }] },
    ]);
    expect(core.sync.isRunning(profile.id)).toBe(false);

    allow();
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    // The refused row could not say "failed" either; the next run wrote it before anything else.
    expect(core.sync.history(profile.id).map((run) => run.outcome)).toEqual(['succeeded', 'failed']);
  });

  it('writes the true end of a run the history refused twice once the cache takes writes again', async () => {
    const { core, profile } = await setup();
    const allow = refuseHistory(core, profile.id, 'end');
    const refused = await core.sync.sync(profile.id);
    // The row itself still says "running" (the history tells the end kept beside it).
    const row = core.cacheOf(profile.id).sqlite.prepare('SELECT outcome FROM sync_runs WHERE id = ?');
    expect(row.pluck().get(refused.runId)).toBe('running');

    allow();
    const next = await core.sync.sync(profile.id);
    expect(next.outcome).toBe('succeeded');
    const [latest, earlier] = core.sync.history(profile.id);
    expect(latest).toMatchObject({ id: next.runId, outcome: 'succeeded' });
    expect(earlier).toMatchObject({
      id: refused.runId,
      outcome: 'failed',
      finishedAt: refused.finishedAt,
      counts: JSON.stringify(refused.counts),
      errors: JSON.stringify(refused.errors),
    });
  });

  it('keeps the end of a run the history refused across a quit, and tells it to satchel status meanwhile', async () => {
    const { core, profile, secrets } = await setup();
    refuseHistory(core, profile.id, 'end');
    const refused = await core.sync.sync(profile.id);
    expect(refused.outcome).toBe('failed');
    const told = {
      id: refused.runId,
      outcome: 'failed',
      finishedAt: refused.finishedAt,
      errors: JSON.stringify(refused.errors),
    };
    // The row still says "running", but the run is over: the history tells how it ended.
    expect(core.sync.history(profile.id)[0]).toMatchObject(told);
    const file = runEndsFile(core.cacheOf(profile.id).file);
    expect(existsSync(file)).toBe(true);

    // Another process (the CLI) reads the same: no "running since" for a run that ended.
    const { dataDir } = core.info();
    const status = await runCli(['--data-dir', dataDir, 'status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).profiles[0].lastSync).toEqual({
      outcome: 'failed',
      startedAt: refused.startedAt,
      finishedAt: refused.finishedAt,
    });
    const text = await runCli(['--data-dir', dataDir, 'status']);
    expect(text.stdout).not.toContain('running since');

    // Satchel quits before the next run; the one after the restart writes the true end first.
    await core.close();
    const again = createCore({ dataDir, secrets });
    try {
      again.cacheOf(profile.id).sqlite.exec('DROP TRIGGER refuse_history');
      expect((await again.sync.sync(profile.id)).outcome).toBe('succeeded');
      expect(again.sync.history(profile.id)[1]).toMatchObject(told);
      expect(existsSync(file)).toBe(false);
    } finally {
      await again.close();
    }
  }, 60_000);

  it('ends a run that cannot even be recorded with a finished event, and says why to the caller', async () => {
    const { core, profile, of } = await setup();
    const allow = refuseHistory(core, profile.id, 'insert');
    const message = expect.stringMatching(
      /could not write to this organisation's cache \(database or disk is full\)/,
    );
    await expect(core.sync.sync(profile.id)).rejects.toMatchObject({ code: 'INTERNAL', message });
    expect(of('sync.finished')).toMatchObject([
      { outcome: 'failed', errors: [{ code: 'INTERNAL', message }] },
    ]);
    expect(core.sync.isRunning(profile.id)).toBe(false);

    allow();
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
  });

  it("gives a run that fails before its first page no run id, not the previous run's", async () => {
    const { core, profile, of } = await setup();
    const earlier = await core.sync.sync(profile.id);
    const allow = refuseHistory(core, profile.id, 'insert');
    await expect(core.sync.sync(profile.id)).rejects.toMatchObject({ code: 'INTERNAL' });
    allow();
    const [first, failed] = of('sync.finished');
    expect(first).toMatchObject({ runId: earlier.runId, outcome: 'succeeded' });
    // The failed run has no row in the history: its event says so rather than naming the
    // earlier run, whose row still says "succeeded".
    expect(failed).toMatchObject({ runId: null, outcome: 'failed' });
    expect(core.sync.history(profile.id).map((run) => [run.id, run.outcome])).toEqual([
      [earlier.runId, 'succeeded'],
    ]);
  });

  it('lists a run whose push before the pull broke in the history, failed and saying why', async () => {
    const { core, profile, of } = await setup();
    const earlier = await core.sync.sync(profile.id);
    const [supplier] = core
      .cacheOf(profile.id)
      .sqlite.prepare('SELECT id, name FROM suppliers LIMIT 1')
      .all() as Array<{
      id: string;
      name: string;
    }>;
    core.outbox.updateSupplier(profile.id, supplier!.id, { name: `${supplier!.name} (renamed)` });
    // The cache refuses the push's write to the outbox, as a full disk would; the history still
    // takes a row.
    const sqlite = core.cacheOf(profile.id).sqlite;
    sqlite.exec(
      `CREATE TRIGGER refuse_outbox BEFORE UPDATE ON outbox BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
    );
    const message = expect.stringMatching(
      /could not write to this organisation's cache \(database or disk is full\)/,
    );
    await expect(core.sync.sync(profile.id)).rejects.toMatchObject({ code: 'INTERNAL', message });
    sqlite.exec('DROP TRIGGER refuse_outbox');

    const [failed, before] = core.sync.history(profile.id);
    expect(before).toMatchObject({ id: earlier.runId, outcome: 'succeeded' });
    const ended = of('sync.finished').at(-1)!;
    expect(failed).toMatchObject({
      id: ended.runId,
      outcome: 'failed',
      startedAt: ended.startedAt,
      finishedAt: ended.finishedAt,
      counts: '{}',
    });
    expect(JSON.parse(failed!.errors)).toEqual([{ resource: '', code: 'INTERNAL', message }]);
    expect(ended).toMatchObject({ outcome: 'failed', errors: [{ message }] });
    expect(ended.runId).toBeGreaterThan(earlier.runId);
    expect(core.sync.lastSucceededAt(profile.id)).toBe(earlier.finishedAt);
  });

  it('names the cache as the reason when it refuses a page', async () => {
    const { core, profile } = await setup();
    core
      .cacheOf(profile.id)
      .sqlite.exec(
        `CREATE TRIGGER refuse_suppliers BEFORE INSERT ON suppliers BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
      );
    const summary = await core.sync.sync(profile.id);
    expect(summary.outcome).toBe('partial');
    expect(summary.errors).toEqual([
      {
        resource: 'suppliers',
        code: 'INTERNAL',
        message: expect.stringMatching(
          /could not write to this organisation's cache \(database or disk is full\)/,
        ),
      },
    ]);
  });
});
