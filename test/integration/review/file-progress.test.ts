import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../src-shared/ipc';
import { dispatch } from '../../../src-main/handlers';
import { exportReviewInSlices } from '../../../src-main/review';
import { PROGRESS_INTERVAL_MS } from '../../../src-main/review-progress';
import { syncedCoreWithFileDialog } from '../../helpers/sync-fixture';
import { writeColleagueReview } from '../../helpers/review-file';
import { useTempDirs } from '../../helpers/temp-dir';

// `review.import` and `review.export` through the real handler table over a synced sandbox,
// with the `review.fileProgress` events the window shows: counts that only grow, reach the
// total, come at most about ten a second, and end once.
const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type FileProgress = EventPayload<'review.fileProgress'> & { at: number };

/** How late this test's stamp of an event may be against the moment it was sent. */
const STAMP_SLACK_MS = 8;

/** The events of one step: counts that never go back, none over the total, sent apart. */
function expectThrottledCounts(events: readonly FileProgress[], total: number) {
  expect(events.length).toBeGreaterThan(0);
  expect(events.every((event) => event.total === total && event.done <= total)).toBe(true);
  for (let i = 1; i < events.length; i += 1) {
    expect(events[i]!.done).toBeGreaterThanOrEqual(events[i - 1]!.done);
    // Apart by the interval, but for the count that reaches the total, and the end. Stamped
    // here, after the bus has checked each event, not when the throttle sent it: a stamp can be
    // late by a clock tick or a pause of the collector, so a few milliseconds are allowed (sent
    // unthrottled, slices come 10–20 ms apart).
    const last = events[i]!.done === total || events[i]!.ended;
    if (!last)
      expect(events[i]!.at - events[i - 1]!.at).toBeGreaterThanOrEqual(PROGRESS_INTERVAL_MS - STAMP_SLACK_MS);
  }
}

describe('review.fileProgress', () => {
  it('counts an import’s check and merge, then an export, to their totals, about ten a second', async () => {
    const { core, profileId, handlers, pickFile } = await syncedCoreWithFileDialog(tempDir(), closers, {
      transactions: 100,
    });
    const marks = 12_000;
    const colleague = path.join(tempDir(), 'colleague.json');
    writeColleagueReview(colleague, marks, { note: true, tags: true });
    const seen: FileProgress[] = [];
    const stop = core.events.subscribe((event, payload) => {
      if (event === 'review.fileProgress')
        seen.push({ ...(payload as EventPayload<'review.fileProgress'>), at: Date.now() });
    });

    // Every event names the run it counts, by the workId the window sent: a window follows its
    // own run only, so a late event of a stopped run cannot redraw the next run's bar.
    const workId = randomUUID();
    await pickFile('reviewImport', colleague);
    const imported = await dispatch(handlers, 'review.import', { profileId, file: colleague, workId });
    expect(imported).toMatchObject({ ok: true, value: { marks, updated: marks } });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((event) => event.workId !== workId)).toEqual([]);
    const check = seen.filter((event) => event.step === 'check');
    const merge = seen.filter((event) => event.step === 'merge');
    // All of the check, then all of the merge; the merge's end is the import's only end.
    expect(seen).toEqual([...check, ...merge]);
    expectThrottledCounts(check, marks);
    expectThrottledCounts(merge, marks);
    expect(check.at(-1)).toMatchObject({ done: marks, ended: false });
    expect(seen.filter((event) => event.ended)).toEqual([merge.at(-1)]);
    expect(merge.at(-1)).toMatchObject({ profileId, done: marks, total: marks, ended: true });
    // Throttled by time (expectThrottledCounts), not by slices: how many events 48 slices give
    // depends on how fast the machine merges them, so their number is not checked.

    seen.length = 0;
    const file = path.join(tempDir(), 'review.json');
    await pickFile('reviewExport', file);
    const exported = await dispatch(handlers, 'review.export', { profileId, file });
    stop();
    expect(exported).toEqual({ ok: true, value: { file, marks } });
    // Sent without one, the run has the workId the core made for it: one, not the import's.
    const made = seen[0]!.workId;
    expect(made).not.toBe(workId);
    expect(seen.filter((event) => event.workId !== made)).toEqual([]);
    expect(seen.every((event) => event.step === 'export')).toBe(true);
    expectThrottledCounts(seen, marks);
    expect(seen[0]).toMatchObject({ done: 250, ended: false });
    expect(seen.slice(-2)).toEqual([
      {
        profileId,
        workId: made,
        step: 'export',
        done: marks,
        total: marks,
        ended: false,
        at: expect.any(Number),
      },
      {
        profileId,
        workId: made,
        step: 'export',
        done: marks,
        total: marks,
        ended: true,
        at: expect.any(Number),
      },
    ]);
    // The file is the one the command line's export writes (apart from when it was written).
    const whole = path.join(tempDir(), 'whole.json');
    await exportReviewInSlices(core.cacheOf(profileId), whole);
    const withoutTime = (text: string) => text.replace(/"exportedAt": "[^"]+"/, '');
    expect(withoutTime(readFileSync(file, 'utf8'))).toBe(withoutTime(readFileSync(whole, 'utf8')));
  }, 120_000);

  it('ends an export that fails, and sends nothing for one refused before its first slice', async () => {
    const { core, profileId, handlers, pickFile } = await syncedCoreWithFileDialog(tempDir(), closers, {
      transactions: 600,
    });
    const ids = core
      .cacheOf(profileId)
      .sqlite.prepare('SELECT id FROM bank_transactions ORDER BY id')
      .pluck()
      .all() as string[];
    expect(
      await dispatch(handlers, 'review.apply', {
        profileId,
        target: { by: 'ids', kind: 'transaction', ids },
        change: { action: 'setReviewed' },
      }),
    ).toMatchObject({ ok: true });
    const seen: Array<EventPayload<'review.fileProgress'>> = [];
    const stop = core.events.subscribe((event, payload) => {
      if (event === 'review.fileProgress') seen.push(payload as EventPayload<'review.fileProgress'>);
    });
    const exportTo = async (file: string) => {
      await pickFile('reviewExport', file);
      return dispatch(handlers, 'review.export', { profileId, file });
    };

    // A folder that is not there: refused before the first slice, nothing shown.
    const nowhere = await exportTo(path.join(tempDir(), 'gone', 'review.json'));
    expect(nowhere).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    expect(seen).toEqual([]);

    // A folder removed after the first slice: the export fails at its end, and its progress ends.
    const folder = path.join(tempDir(), 'going');
    mkdirSync(folder);
    const removeOnFirst = core.events.subscribe((event) => {
      if (event === 'review.fileProgress' && seen.length === 1) rmSync(folder, { recursive: true });
    });
    const failed = await exportTo(path.join(folder, 'review.json'));
    removeOnFirst();
    stop();
    expect(failed).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('Nothing was written') },
    });
    expect(seen[0]).toMatchObject({ step: 'export', done: 250, total: ids.length, ended: false });
    expect(seen.filter((event) => event.ended)).toEqual([seen.at(-1)]);
  }, 120_000);
});
