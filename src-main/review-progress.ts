import type { ReviewFileStep, ReviewPhase } from '../src-shared/ipc';
import type { EventBus } from './events';

/** Between two progress events of one long review change or file at most. */
export const PROGRESS_INTERVAL_MS = 100;

/** A count of work in slices: done of total, in a step of the work. */
export interface StepCount<S extends string> {
  done: number;
  total: number;
  step: S;
}

export interface ThrottleOptions<S extends string> {
  /** Sends one event; `ended` on the last. */
  send: (count: StepCount<S>, ended: boolean) => void;
  /** A count that is the work's last (sent at once, ended); by default none: the end says so. */
  isLast?: (count: StepCount<S>) => boolean;
  now?: () => number;
}

/**
 * Runs `run` with a count reporter that turns its counts into events for the window: the first
 * count of each step and the one that reaches its total at once, between them at most one every
 * PROGRESS_INTERVAL_MS (ten a second: slices of 250 marks come every 10–20 ms), and always a last
 * event with `ended`, however the work ends (all done, or failed part-way: it carries the
 * latest count), so that nothing shown keeps counting work that is over. Work that failed
 * before its first count sends nothing: it showed nothing.
 */
export async function withThrottledProgress<S extends string, T>(
  { send, isLast = () => false, now = Date.now }: ThrottleOptions<S>,
  run: (report: (count: StepCount<S>) => void) => Promise<T>,
): Promise<T> {
  // The last event sent, and the latest count (the one a failure's last event says).
  const shown: { at: number; ended: boolean; step?: S } = { at: 0, ended: false };
  let latest: StepCount<S> | undefined;
  const emit = (count: StepCount<S>, ended: boolean) => {
    Object.assign(shown, { at: now(), ended, step: count.step });
    send(count, ended);
  };
  try {
    return await run((count) => {
      latest = count;
      if (isLast(count)) emit(count, true);
      else if (
        count.step !== shown.step ||
        count.done >= count.total ||
        now() - shown.at >= PROGRESS_INTERVAL_MS
      )
        emit(count, false);
    });
  } finally {
    if (latest && !shown.ended) emit(latest, true);
  }
}

/**
 * Runs a review change in slices (a bulk change, an import, its undo) with its progress as
 * `review.progress`, as the status bar shows it; a change's last slice ends it, and so does a
 * failure part-way (a slice refused, the copy busy or damaged, a problem found in the file being
 * checked), so the status bar never keeps "Changing review marks: X of Y". An import checks
 * its file first (`phase: 'check'`), then changes (`'change'`); only the end of the change, or a
 * failure, ends it. An import (`file`, with the `workId` it runs under) also reports as
 * `review.fileProgress`, with the same counts at the same moments, for the window that asked.
 */
export function withReviewProgress<T>(
  events: EventBus,
  profileId: string,
  run: (onProgress: (done: number, total: number, phase?: ReviewPhase) => void) => Promise<T>,
  { file }: { file?: { workId: string } } = {},
): Promise<T> {
  return withThrottledProgress<ReviewPhase, T>(
    {
      send: ({ done, total, step: phase }, ended) => {
        events.emit('review.progress', { profileId, done, total, ended, phase });
        if (file) {
          const step: ReviewFileStep = phase === 'check' ? 'check' : 'merge';
          events.emit('review.fileProgress', { profileId, workId: file.workId, step, done, total, ended });
        }
      },
      isLast: ({ done, total, step }) => step === 'change' && done >= total,
    },
    (report) => run((done, total, phase = 'change') => report({ done, total, step: phase })),
  );
}

/**
 * Runs a review export (under `workId`) with its progress as `review.fileProgress` (`step:
 * 'export'`): marks written of those there were at its start. Its end is sent once the file is
 * in place (or the export failed), not when the count reaches the total: the file's sync to the
 * disk comes after.
 */
export function withReviewExportProgress<T>(
  events: EventBus,
  profileId: string,
  workId: string,
  run: (onProgress: (done: number, total: number) => void) => Promise<T>,
): Promise<T> {
  return withThrottledProgress<'export', T>(
    {
      send: ({ done, total }, ended) =>
        events.emit('review.fileProgress', { profileId, workId, step: 'export', done, total, ended }),
    },
    (report) => run((done, total) => report({ done, total, step: 'export' })),
  );
}
