import { closeSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readReviewFile, readReviewFileInSlices, ReviewImportError } from '../../../src-main/review';
import { CHECK_CANCELLED } from '../../../src-main/review/sliced-check';
import { writeColleagueReview } from '../../helpers/review-file';
import { useCaches } from '../search/fixtures';

/**
 * The import's reading, decoding, JSON.parse and check run in a thread of their own
 * (src-main/review/sliced-check.ts): the app's thread, which answers the window's IPC, keeps
 * turning while a large file is parsed, and the verdict is the one the caller's thread gives.
 */

const caches = useCaches();

const at = (i: number) => new Date(Date.UTC(2026, 3, 1) + i * 60_000).toISOString();

/** A mark with every facet, or some of them, times in UTC or with an offset. */
function mark(i: number) {
  const changedAt = i % 7 === 0 ? '2026-05-01T10:00:00+02:00' : at(i);
  return {
    kind: i % 3 === 0 ? 'expense' : 'transaction',
    id: `record-${String(i).padStart(7, '0')}`,
    reviewed: { at: i % 5 === 0 ? null : changedAt, changedAt },
    ...(i % 4 === 0
      ? {}
      : { flag: { flagged: true, reason: 'Private use? Ask the card holder', changedAt } }),
    note: { text: `Hotel bill ${i}, ask Anna about the minibar and the “second” night`, changedAt },
    ...(i % 2 === 0 ? { tags: { values: ['Q3 audit', 'travel'], changedAt } } : {}),
  };
}

/** A colleague's file of `count` marks, written a thousand marks at a time. */
function writeLargeFile(count: number): string {
  const file = path.join(caches.tempDir(), 'colleague.json');
  const fd = openSync(file, 'w');
  try {
    writeSync(
      fd,
      '{\n "format": "satchel-review",\n "version": 1,\n "exportedAt": "2026-05-02T09:00:00.000Z",\n "organisationId": "org-1",\n "marks": [\n',
    );
    for (let from = 0; from < count; from += 1000) {
      const marks = Array.from({ length: Math.min(1000, count - from) }, (_, k) =>
        JSON.stringify(mark(from + k), null, 1),
      );
      writeSync(fd, `${from === 0 ? '' : ',\n'}${marks.join(',\n')}`);
    }
    writeSync(fd, '\n ]\n}\n');
  } finally {
    closeSync(fd);
  }
  return file;
}

/** The longest time the app's thread went without turning while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  let running = true;
  const probe = () => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
    if (running) setTimeout(probe, 1);
  };
  setTimeout(probe, 1);
  try {
    return { value: await work(), stallMs };
  } finally {
    running = false;
  }
}

describe('reading a review file in a thread of its own', () => {
  it('keeps the app’s thread turning while a 54 MB file is parsed, and reads what it read before', async () => {
    const file = writeLargeFile(125_000);
    expect(statSync(file).size).toBeGreaterThan(50_000_000);

    // What held the app's thread in one piece before: decoding and parsing the whole file.
    const bytes = readFileSync(file);
    const started = performance.now();
    JSON.parse(bytes.toString('utf8'));
    const onePieceMs = performance.now() - started;

    const progress: number[] = [];
    const { value: read, stallMs } = await longestStall(() =>
      readReviewFileInSlices(file, { onProgress: (done) => progress.push(done) }),
    );
    // A responsiveness check, not a speed target: on a busy machine both figures grow.
    expect(stallMs).toBeLessThan(onePieceMs / 2);
    expect(progress).toHaveLength(125);
    expect(progress.at(-1)).toBe(125_000);

    const here = readReviewFile(file);
    expect(read.marks).toHaveLength(125_000);
    expect(read).toEqual(here);
    // Times normalised to UTC, as the check in this thread gives them.
    expect(read.marks[7]!.reviewed).toEqual({
      at: '2026-05-01T08:00:00.000Z',
      changedAt: '2026-05-01T08:00:00.000Z',
    });
  }, 180_000);

  it('gives the same verdict when its thread cannot start, checking in the app’s thread', async () => {
    const missing = path.join(caches.tempDir(), 'no-such-thread.js');
    const good = path.join(caches.tempDir(), 'good.json');
    writeFileSync(
      good,
      JSON.stringify({
        format: 'satchel-review',
        version: 1,
        exportedAt: '2026-05-02T09:00:00Z',
        organisationId: null,
        marks: Array.from({ length: 30 }, (_, i) => mark(i)),
      }),
    );
    const progress: number[] = [];
    expect(
      await readReviewFileInSlices(good, {
        script: missing,
        sliceSize: 7,
        onProgress: (d) => progress.push(d),
      }),
    ).toEqual(readReviewFile(good));
    expect(progress).toEqual([7, 14, 21, 28, 30]);

    const broken = path.join(caches.tempDir(), 'broken.json');
    writeFileSync(broken, '{ "format": "satchel-review", "version": 1, "marks": [');
    const verdicts = await Promise.all(
      [{}, { script: missing }].map((options) =>
        readReviewFileInSlices(broken, options).then(
          () => null,
          (error: ReviewImportError) => ({
            code: error.code,
            message: error.message,
            cause: (error.cause as Error).name,
          }),
        ),
      ),
    );
    expect(verdicts[0]).toEqual({
      code: 'NOT_JSON',
      message: `${broken} is not a whole review export: it breaks off or is damaged part-way (a copy cut short?). Nothing was imported; copy it again, or ask for the export again.`,
      cause: 'SyntaxError',
    });
    expect(verdicts[1]).toEqual(verdicts[0]);
  });

  it('says a file it cannot read cannot be read, with the system’s reason', async () => {
    const gone = path.join(caches.tempDir(), 'gone.json');
    const error = await readReviewFileInSlices(gone).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReviewImportError);
    expect((error as ReviewImportError).message).toBe(
      `Satchel could not read ${gone}. Check the file exists and you may open it.`,
    );
    expect(((error as ReviewImportError).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('stops at once when its signal is aborted mid-check, and ends its thread', async () => {
    // Large enough that the thread is still starting, reading or parsing when the stop comes.
    const file = writeColleagueReview(path.join(caches.tempDir(), 'colleague.json'), 100_000, {
      note: true,
      tags: true,
    });
    await readFile(file); // libuv's pool, threads of its own, started before threads are counted
    const before = threadsOfThisProcess();
    const stop = new AbortController();
    const seen: string[] = [];
    const reading = readReviewFileInSlices(file, {
      signal: stop.signal,
      onProgress: (done) => seen.push(`checked ${done}`),
    });
    expect(threadsOfThisProcess()).toBe(before + 1); // the check thread, at work
    stop.abort();
    seen.push('stopped');
    const error = await reading.catch((e: unknown) => e);
    seen.push('answered');
    expect(error).toMatchObject({ code: 'CANCELLED', message: CHECK_CANCELLED });
    // The thread is ended, not left to run its check to the end: once it is gone it can say
    // nothing more, so the order below is final. Before, the stop was taken at the thread's
    // next message (after the parse of the whole file), the count it carried shown first.
    while (threadsOfThisProcess() !== before) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen).toEqual(['stopped', 'answered']);

    // A signal aborted before it starts starts no thread.
    const error2 = await readReviewFileInSlices(file, { signal: AbortSignal.abort() }).catch(
      (e: unknown) => e,
    );
    expect(error2).toMatchObject({ code: 'CANCELLED', message: CHECK_CANCELLED });
    expect(threadsOfThisProcess()).toBe(before);
  }, 60_000);
});

/** The threads of this process as the system counts them: a worker thread is one of them. */
function threadsOfThisProcess(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  return Number(/^Threads:\s+(\d+)$/m.exec(status)![1]);
}
