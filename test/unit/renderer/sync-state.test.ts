import { describe, expect, it } from 'vitest';
import {
  budgetShare,
  isRunning,
  lastFinishedRun,
  latestEnd,
  syncStatusText,
} from '../../../src-renderer/features/sync/sync-state';

describe('the sync screen', () => {
  const run = (id: number, outcome: string, finishedAt: string | null) => ({
    id,
    startedAt: '2026-03-01T10:00:00.000Z',
    finishedAt,
    outcome: outcome as 'succeeded',
    counts: {},
    errors: [],
  });

  it('takes the newest run that ended as the last sync', () => {
    expect(
      lastFinishedRun([
        run(3, 'running', null),
        run(2, 'failed', '2026-03-01T10:05:00.000Z'),
        run(1, 'succeeded', 'x'),
      ])?.id,
    ).toBe(2);
    expect(lastFinishedRun([run(1, 'running', null)])).toBeNull();
  });

  it('takes a finished event newer than the history as the last run (one the cache could not record)', () => {
    const runs = [run(2, 'running', null), run(1, 'succeeded', '2026-03-01T09:00:00.000Z')];
    const failed = { outcome: 'failed', finishedAt: '2026-03-01T10:05:00.000Z' };
    expect(latestEnd(runs, failed)).toBe(failed);
    expect(latestEnd(runs, null)?.outcome).toBe('succeeded');
    // The event of the run the history already holds, or an older one: the history's.
    expect(latestEnd([run(3, 'succeeded', '2026-03-01T10:05:00.000Z')], failed)?.outcome).toBe('succeeded');
    expect(latestEnd([], failed)).toBe(failed);
  });

  it('says in the status bar when a sync failed and since when the cache is complete', () => {
    const at = (iso: string | null) => (iso ? iso.slice(11, 16) : '—');
    const end = (outcome: string) => ({ outcome, finishedAt: '2026-03-01T10:05:00.000Z' });
    expect(syncStatusText(null, null, at)).toBe('Not synced yet');
    expect(syncStatusText(end('succeeded'), '2026-03-01T10:05:00.000Z', at)).toBe('Last synced 10:05');
    expect(syncStatusText(end('partial'), null, at)).toBe('Last synced 10:05 (partly done)');
    expect(syncStatusText(end('failed'), '2026-03-01T08:30:00.000Z', at)).toBe(
      'Sync failed at 10:05 · last complete 08:30',
    );
    expect(syncStatusText(end('failed'), null, at)).toBe('Sync failed at 10:05 · last complete never');
    expect(syncStatusText(end('cancelled'), null, at)).toBe('Sync cancelled at 10:05 · last complete never');
  });

  it('knows a run is going on from its own request or from progress not yet finished', () => {
    expect(isRunning(true, null)).toBe(true);
    expect(isRunning(false, null)).toBe(false);
    expect(isRunning(false, { runId: 4 })).toBe(true);
  });

  it('shows the share of the rate-limit budget left', () => {
    expect(budgetShare({ limit: 100, remaining: 25 })).toBe(0.25);
    expect(budgetShare({ limit: 0, remaining: 0 })).toBe(1);
    expect(budgetShare({ limit: 10, remaining: 20 })).toBe(1);
  });
});
