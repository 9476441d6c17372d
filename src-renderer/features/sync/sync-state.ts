import type { CommandOutput, EventPayload } from '../../../src-shared/ipc';

type Run = CommandOutput<'sync.history'>['runs'][number];

const outcomeLabels: Record<string, string> = {
  running: 'Running',
  succeeded: 'Succeeded',
  partial: 'Partly done',
  failed: 'Failed',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted',
};

/** A run's outcome as the screens say it ("Partly done", not the stored code `partial`). */
export function outcomeLabel(outcome: string): string {
  return outcomeLabels[outcome] ?? outcome;
}

/** The last run that ended (any outcome but "running"), newest first in the history. */
export function lastFinishedRun(runs: readonly Run[]): Run | null {
  return runs.find((run) => run.outcome !== 'running' && run.finishedAt !== null) ?? null;
}

/**
 * Whether a sync of the organisation is running, from what the screen has seen: its own
 * request still pending, or progress of a run (background or from the menu) not yet finished.
 */
export function isRunning(
  pending: boolean,
  progress: Pick<EventPayload<'sync.progress'>, 'runId'> | null,
  finished: Pick<EventPayload<'sync.finished'>, 'runId'> | null,
): boolean {
  if (pending) return true;
  if (!progress) return false;
  return !finished || finished.runId < progress.runId;
}

/** The share of a rate-limit bucket left, 0…1 (a bucket with no limit counts as full). */
export function budgetShare(bucket: { limit: number; remaining: number }): number {
  if (bucket.limit <= 0) return 1;
  return Math.max(0, Math.min(1, bucket.remaining / bucket.limit));
}
