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
 * Whether a `sync.finished` tells a run's end. A `busy` one does not: the sync was refused as
 * another Satchel process syncs the organisation, which is no failure. A background round's
 * refusal says nothing (the next round tries again); the user's Sync now says why through the
 * command's own error (the screen's button) or a notice (File → Sync Now, background.ts).
 */
export function endsARun(event: Pick<EventPayload<'sync.finished'>, 'outcome'>): boolean {
  return event.outcome !== 'busy';
}

/** How a run ended, as the history or a `sync.finished` event tells it. */
export interface RunEnd {
  outcome: string;
  finishedAt: string | null;
}

/**
 * The newest run that ended: the history's, or a newer `sync.finished` seen since (a run whose
 * end the cache refused to record is in no history, but it did end, and how is what is true).
 */
export function latestEnd(runs: readonly Run[], finished: RunEnd | null): RunEnd | null {
  const last = lastFinishedRun(runs);
  if (finished?.finishedAt && (!last?.finishedAt || last.finishedAt < finished.finishedAt)) return finished;
  return last;
}

/**
 * The status bar's word on syncing. A run that read something says when ("Last synced 14:05",
 * "(partly done)"); one that failed or was cancelled says that, and since when the cache is
 * complete, so it never reads as if a sync had happened.
 */
export function syncStatusText(
  end: RunEnd | null,
  lastSucceededAt: string | null,
  formatTime: (iso: string | null) => string,
): string {
  if (!end?.finishedAt) return 'Not synced yet';
  if (end.outcome === 'succeeded') return `Last synced ${formatTime(end.finishedAt)}`;
  if (end.outcome === 'partial') return `Last synced ${formatTime(end.finishedAt)} (partly done)`;
  const complete = lastSucceededAt ? formatTime(lastSucceededAt) : 'never';
  return `Sync ${outcomeLabel(end.outcome).toLowerCase()} at ${formatTime(end.finishedAt)} · last complete ${complete}`;
}

/**
 * Whether a sync of the organisation is running, from what the screen has seen: its own
 * request still pending, or progress of a run (background or from the menu) that no
 * `sync.finished` has ended since. Runs of one organisation go one at a time, so a finished
 * event ends whatever progress came before it; its `runId` cannot tell, as a run that failed
 * before its first page has none.
 */
export function isRunning(
  pending: boolean,
  progressSinceLastEnd: Pick<EventPayload<'sync.progress'>, 'runId'> | null,
): boolean {
  return pending || progressSinceLastEnd !== null;
}

/** The share of a rate-limit bucket left, 0…1 (a bucket with no limit counts as full). */
export function budgetShare(bucket: { limit: number; remaining: number }): number {
  if (bucket.limit <= 0) return 1;
  return Math.max(0, Math.min(1, bucket.remaining / bucket.limit));
}
