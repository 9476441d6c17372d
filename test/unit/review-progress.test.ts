import { describe, expect, it } from 'vitest';
import { events } from '../../src-shared/ipc';
import { createEventBus } from '../../src-main/events';
import {
  PROGRESS_INTERVAL_MS,
  withReviewExportProgress,
  withReviewProgress,
  withThrottledProgress,
  type StepCount,
} from '../../src-main/review-progress';

// The counts of a review change, export or import turned into events for the window, on a clock
// the test moves: at most one every PROGRESS_INTERVAL_MS, the first of a step and its total at
// once, and always one last event that says it ended.

const profileId = '6f1c2a6e-3f7b-4c55-9d2e-0c1b5a7e9d10';
const workId = '0b6f3c1e-8d2a-4e7f-b5c9-3a1d2e4f6a80';

/** The counts of slices of `slice` marks of `total`. */
function slices(total: number, slice: number) {
  const counts: number[] = [];
  for (let done = slice; done < total + slice; done += slice) counts.push(Math.min(done, total));
  return counts;
}

async function throttled(
  counts: ReadonlyArray<StepCount<string>>,
  msPerCount: number,
  isLast?: (count: StepCount<string>) => boolean,
) {
  let clock = 1_000_000;
  const sent: Array<StepCount<string> & { ended: boolean; at: number }> = [];
  await withThrottledProgress<string, void>(
    {
      send: (count, ended) => sent.push({ ...count, ended, at: clock }),
      now: () => clock,
      ...(isLast ? { isLast } : {}),
    },
    async (report) => {
      for (const count of counts) {
        clock += msPerCount;
        report(count);
        await Promise.resolve();
      }
    },
  );
  return sent;
}

describe('progress of long review work, throttled', () => {
  it('sends the first count, then at most one a PROGRESS_INTERVAL_MS, the total, and one end', async () => {
    // 54,000 marks in slices of 250, 10 ms each: 216 counts over 2.16 s.
    const counts = slices(54_000, 250).map((done) => ({ done, total: 54_000, step: 'export' }));
    const sent = await throttled(counts, 10);
    expect(sent[0]).toMatchObject({ done: 250, ended: false });
    // About ten a second: 2.16 s, so 22 or 23 with the total and the end, never 216.
    expect(sent.length).toBeLessThanOrEqual(Math.ceil(2160 / PROGRESS_INTERVAL_MS) + 2);
    expect(sent.length).toBeGreaterThanOrEqual(20);
    const running = sent.filter((event) => !event.ended);
    for (let i = 1; i < running.length - 1; i += 1) {
      expect(running[i]!.at - running[i - 1]!.at).toBeGreaterThanOrEqual(PROGRESS_INTERVAL_MS);
      expect(running[i]!.done).toBeGreaterThan(running[i - 1]!.done);
    }
    // The total is said at once, not left to the next interval; then the end, once.
    expect(running.at(-1)).toMatchObject({ done: 54_000, total: 54_000 });
    expect(sent.filter((event) => event.ended)).toEqual([
      { done: 54_000, total: 54_000, step: 'export', ended: true, at: expect.any(Number) },
    ]);
  });

  it('says a new step at once, and ends with the last count when the work fails part-way', async () => {
    let clock = 0;
    const sent: Array<[string, number, boolean]> = [];
    const failed = withThrottledProgress<string, void>(
      { send: ({ step, done }, ended) => sent.push([step, done, ended]), now: () => clock },
      async (report) => {
        for (const done of [1000, 2000, 3000]) {
          clock += 5;
          report({ done, total: 3000, step: 'check' });
        }
        clock += 5;
        report({ done: 250, total: 3000, step: 'merge' });
        clock += 5;
        report({ done: 500, total: 3000, step: 'merge' });
        await Promise.resolve();
        throw new Error('the copy was busy');
      },
    );
    await expect(failed).rejects.toThrow('the copy was busy');
    expect(sent).toEqual([
      ['check', 1000, false],
      ['check', 3000, false],
      ['merge', 250, false],
      ['merge', 500, true],
    ]);
  });

  it('sends nothing for work that failed before its first count', async () => {
    const sent: unknown[] = [];
    await expect(
      withThrottledProgress({ send: (count) => sent.push(count) }, () =>
        Promise.reject(new Error('unreadable')),
      ),
    ).rejects.toThrow('unreadable');
    expect(sent).toEqual([]);
  });

  it('ends a change at its last count, as the status bar has it', async () => {
    const counts = slices(1000, 250).map((done) => ({ done, total: 1000, step: 'change' }));
    const sent = await throttled(counts, 1, (count) => count.step === 'change' && count.done >= count.total);
    expect(sent.map(({ done, ended }) => [done, ended])).toEqual([
      [250, false],
      [1000, true],
    ]);
  });
});

describe('review.fileProgress on the event bus', () => {
  it('goes with review.progress for an import, checked against the contract', async () => {
    const bus = createEventBus();
    const seen: Array<[string, unknown]> = [];
    bus.subscribe((event, payload) => seen.push([event, payload]));
    await withReviewProgress(
      bus,
      profileId,
      async (onProgress) => {
        onProgress(1000, 1000, 'check');
        onProgress(1000, 1000, 'change');
      },
      { file: { workId } },
    );
    expect(seen).toEqual([
      ['review.progress', { profileId, done: 1000, total: 1000, ended: false, phase: 'check' }],
      ['review.fileProgress', { profileId, workId, step: 'check', done: 1000, total: 1000, ended: false }],
      ['review.progress', { profileId, done: 1000, total: 1000, ended: true, phase: 'change' }],
      ['review.fileProgress', { profileId, workId, step: 'merge', done: 1000, total: 1000, ended: true }],
    ]);
    for (const [event, payload] of seen)
      expect(events[event as keyof typeof events].parse(payload)).toEqual(payload);

    // A bulk change is no file's: review.progress only.
    seen.length = 0;
    await withReviewProgress(bus, profileId, async (onProgress) => onProgress(5, 5));
    expect(seen.map(([event]) => event)).toEqual(['review.progress']);
  });

  it('ends an export once its file is in place, not when its count reaches the total', async () => {
    const bus = createEventBus();
    const seen: unknown[] = [];
    bus.subscribe((_event, payload) => seen.push(payload));
    await withReviewExportProgress(bus, profileId, workId, async (onProgress) => {
      onProgress(250, 300);
      onProgress(300, 300);
      expect(seen.at(-1)).toMatchObject({ done: 300, ended: false });
      await Promise.resolve(); // the file synced to the disk and renamed into place
    });
    expect(seen).toEqual([
      { profileId, workId, step: 'export', done: 250, total: 300, ended: false },
      { profileId, workId, step: 'export', done: 300, total: 300, ended: false },
      { profileId, workId, step: 'export', done: 300, total: 300, ended: true },
    ]);
  });
});
