import { describe, expect, it } from 'vitest';
import { budgetShare, isRunning, lastFinishedRun } from '../../../src-renderer/features/sync/sync-state';

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

  it('knows a run is going on from its own request or from progress not yet finished', () => {
    expect(isRunning(true, null, null)).toBe(true);
    expect(isRunning(false, null, null)).toBe(false);
    expect(isRunning(false, { runId: 4 }, null)).toBe(true);
    expect(isRunning(false, { runId: 4 }, { runId: 4 })).toBe(false);
    expect(isRunning(false, { runId: 5 }, { runId: 4 })).toBe(true);
  });

  it('shows the share of the rate-limit budget left', () => {
    expect(budgetShare({ limit: 100, remaining: 25 })).toBe(0.25);
    expect(budgetShare({ limit: 0, remaining: 0 })).toBe(1);
    expect(budgetShare({ limit: 10, remaining: 20 })).toBe(1);
  });
});
