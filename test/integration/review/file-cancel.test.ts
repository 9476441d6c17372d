import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, ReviewFileStep } from '../../../src-shared/ipc';
import { dispatch, type HandlerTable } from '../../../src-main/handlers';
import { syncedCoreWithFileDialog } from '../../helpers/sync-fixture';
import { COLLEAGUE_AT, writeColleagueReview } from '../../helpers/review-file';
import { useTempDirs } from '../../helpers/temp-dir';

// `review.cancel` through the real handler table over a synced sandbox, sent when the window
// sees the first count of a step (`review.fileProgress`), as Stop export / Stop import do: the
// export writes nothing and leaves the file it would have replaced as it was; the import, stopped
// while it merges, answers with how far it came, the marks it merged stay (and can be undone);
// stopped during its check, it changes nothing.
const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Enough marks that a stop sent at the first count lands while the work goes on. */
const MARKS = 40_000;
const at = COLLEAGUE_AT;

async function setUp() {
  const { core, profileId, handlers, pickFile } = await syncedCoreWithFileDialog(tempDir(), closers, {
    transactions: 100,
  });
  const cache = core.cacheOf(profileId);
  const marksInCopy = () => cache.sqlite.prepare('SELECT count(*) FROM review_marks').pluck().get() as number;
  /** Sends `review.cancel` for `workId` at the first count of `step`; what it answered. */
  const cancelAt = (step: ReviewFileStep, workId: string) => {
    const answered: Array<Promise<unknown>> = [];
    const stop = core.events.subscribe((event, payload) => {
      const progress = payload as EventPayload<'review.fileProgress'>;
      if (event !== 'review.fileProgress' || progress.step !== step || answered.length > 0) return;
      // Another organisation's id stops nothing.
      answered.push(dispatch(handlers, 'review.cancel', { profileId: randomUUID(), workId }));
      answered.push(dispatch(handlers, 'review.cancel', { profileId, workId }));
    });
    return {
      answers: async () => {
        stop();
        return Promise.all(answered);
      },
    };
  };
  // `pick(purpose, file)`: picks `file` in the core's dialog, as the user would before the command.
  return { core, handlers, profileId, marksInCopy, pick: pickFile, cancelAt };
}

const cancelledOnce = [
  { ok: true, value: { cancelled: false } },
  { ok: true, value: { cancelled: true } },
];

/** A colleague's file of `count` marks on records this copy does not hold. */
function colleagueFile(count: number): string {
  return writeColleagueReview(path.join(tempDir(), 'colleague.json'), count, { note: true, tags: true });
}

const noRunning = async (handlers: HandlerTable, profileId: string, workId: string) =>
  expect(await dispatch(handlers, 'review.cancel', { profileId, workId })).toEqual({
    ok: true,
    value: { cancelled: false },
  });

describe('review.cancel', () => {
  it('stops an export: nothing written, no temporary left, the old file as it was', async () => {
    const { core, handlers, profileId, marksInCopy, pick, cancelAt } = await setUp();
    core
      .cacheOf(profileId)
      .sqlite.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @marks)
         INSERT INTO review_marks (kind, record_id, reviewed_at, reviewed_changed_at, note, note_changed_at, updated_at)
         SELECT 'transaction', printf('tx-%06d', i), @at, @at, 'checked against the statement ' || i, @at, @at FROM n`,
      )
      .run({ marks: MARKS, at });
    expect(marksInCopy()).toBe(MARKS);
    const folder = tempDir();
    const file = path.join(folder, 'review.json');
    writeFileSync(file, 'the review file of last week\n');

    const workId = randomUUID();
    const cancel = cancelAt('export', workId);
    await pick('reviewExport', file);
    const stopped = await dispatch(handlers, 'review.export', { profileId, file, workId });
    expect(await cancel.answers()).toEqual(cancelledOnce);
    expect(stopped).toEqual({
      ok: false,
      error: { code: 'CANCELLED', message: 'The export was cancelled; no file was written.' },
    });
    expect(readFileSync(file, 'utf8')).toBe('the review file of last week\n');
    expect(readdirSync(folder)).toEqual(['review.json']);
    await noRunning(handlers, profileId, workId);

    // The same file exported again, to its end: the stop was of that export only.
    await pick('reviewExport', file);
    expect(await dispatch(handlers, 'review.export', { profileId, file, workId })).toEqual({
      ok: true,
      value: { file, marks: MARKS },
    });
    expect((JSON.parse(readFileSync(file, 'utf8')) as { marks: unknown[] }).marks).toHaveLength(MARKS);
  }, 120_000);

  it('stops an import while it merges: the marks merged stay, as many as it says, and can be undone', async () => {
    const { handlers, profileId, marksInCopy, pick, cancelAt } = await setUp();
    const file = colleagueFile(MARKS);
    expect(marksInCopy()).toBe(0);

    const workId = randomUUID();
    const cancel = cancelAt('merge', workId);
    await pick('reviewImport', file);
    const stopped = await dispatch(handlers, 'review.import', { profileId, file, workId });
    expect(await cancel.answers()).toEqual(cancelledOnce);
    expect(stopped).toMatchObject({ ok: true });
    const value = (stopped as { value: Record<string, unknown> }).value as {
      marks: number;
      updated: number;
      importId: string | null;
      interrupted: { merged: number; total: number; message: string } | null;
    };
    const merged = value.interrupted?.merged ?? -1;
    expect(merged).toBeGreaterThan(0);
    expect(merged).toBeLessThan(MARKS);
    expect(value).toMatchObject({
      marks: MARKS,
      updated: merged,
      importId: workId,
      interrupted: {
        merged,
        total: MARKS,
        message: `The import was interrupted after ${merged.toLocaleString('en-US')} of 40,000 marks; the marks merged so far stay. Import the same file again to finish.`,
      },
    });
    // Each mark of the file is a record of its own with no mark before: the copy holds exactly
    // the marks merged.
    expect(marksInCopy()).toBe(merged);
    await noRunning(handlers, profileId, workId);

    // Undone, the marks merged are gone again; nothing else was changed.
    expect(await dispatch(handlers, 'review.undoImport', { profileId, importId: workId })).toEqual({
      ok: true,
      value: { restored: merged, changedSince: 0 },
    });
    expect(marksInCopy()).toBe(0);
  }, 120_000);

  it('stops an import during its check: nothing changed, said so', async () => {
    const { handlers, profileId, marksInCopy, pick, cancelAt } = await setUp();
    const file = colleagueFile(MARKS);

    const workId = randomUUID();
    const cancel = cancelAt('check', workId);
    await pick('reviewImport', file);
    const stopped = await dispatch(handlers, 'review.import', { profileId, file, workId });
    expect(await cancel.answers()).toEqual(cancelledOnce);
    expect(stopped).toEqual({
      ok: false,
      error: {
        code: 'CANCELLED',
        message: 'The import was interrupted while the file was checked; nothing was changed.',
      },
    });
    expect(marksInCopy()).toBe(0);
    await noRunning(handlers, profileId, workId);
  }, 120_000);

  it('answers a stop during the check at once, before the check counts again', async () => {
    const { core, handlers, profileId, marksInCopy, pick } = await setUp();
    // Large enough that the check thread is still starting, reading or parsing at the stop.
    const file = colleagueFile(100_000);
    const events: string[] = [];
    const unsubscribe = core.events.subscribe((event, payload) => {
      if (event === 'review.fileProgress') {
        const { step, done, ended } = payload as EventPayload<'review.fileProgress'>;
        events.push(`${step} ${done}${ended ? ' ended' : ''}`);
      }
    });

    const workId = randomUUID();
    await pick('reviewImport', file);
    const importing = dispatch(handlers, 'review.import', { profileId, file, workId });
    // Stop is pressed as soon as the import runs: before, the stop waited for the check
    // thread's next message (after it parsed the whole file), whose count was shown first.
    const cancel = () => dispatch(handlers, 'review.cancel', { profileId, workId });
    while (((await cancel()) as { value?: { cancelled: boolean } }).value?.cancelled !== true)
      await new Promise((resolve) => setImmediate(resolve));
    events.push('stopped');
    const stopped = await importing;
    unsubscribe();
    expect(stopped).toEqual({
      ok: false,
      error: {
        code: 'CANCELLED',
        message: 'The import was interrupted while the file was checked; nothing was changed.',
      },
    });
    // Nothing counted after the stop; nothing in the copy changed.
    expect(events.slice(events.indexOf('stopped'))).toEqual(['stopped']);
    expect(marksInCopy()).toBe(0);
    await noRunning(handlers, profileId, workId);
  }, 120_000);
});
