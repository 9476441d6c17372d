import fs, { existsSync, readdirSync, readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyReview,
  exportReviewInSlices,
  readReviewFile,
  type ReviewService,
} from '../../../src-main/review';
import type { CacheDb } from '../../../src-main/store';
import { demoState, recordsOf, useCaches } from '../search/fixtures';
import { upsertTransactions } from '../search/load';
import { holdThreadPool } from '../../helpers/thread-pool';
import { until } from '../../helpers/until';

/**
 * The review export writes its marks a slice at a time (src-main/review/exchange.ts) instead
 * of building the whole text in one string, and the file is the same to the byte: what
 * `JSON.stringify(content, null, 1)` of the whole content gives, with a line end.
 */

const caches = useCaches();
const records = recordsOf(demoState(2500, 11));
const ids = records.map((r) => r.id);
const now = { now: () => new Date('2026-05-02T09:00:00.000Z') };

type Target = Parameters<ReviewService['apply']>[0];
const byIds = (list: string[]): Target => ({ by: 'ids', kind: 'transaction', ids: list });

/** 2,500 transactions, marks on all of them, every facet on some (a note with a line end, quotes, ümlauts). */
function marked(): CacheDb {
  const cache = caches.open(caches.file());
  upsertTransactions(cache, records);
  const at = (iso: string) => ({ now: () => new Date(iso) });
  applyReview(cache, byIds(ids), { action: 'setReviewed' }, at('2026-05-01T10:00:00.000Z'));
  applyReview(
    cache,
    byIds(ids.slice(0, 900)),
    { action: 'flag', reason: 'Private use?' },
    at('2026-05-01T10:01:00.000Z'),
  );
  applyReview(
    cache,
    byIds(ids.slice(400, 1300)),
    { action: 'setNote', note: 'Hotel bill\nwith "quotes", a tab\t and ümlauts — ask Anna' },
    at('2026-05-01T10:02:00.000Z'),
  );
  applyReview(
    cache,
    byIds(ids.filter((_, i) => i % 3 === 0)),
    { action: 'addTags', tags: ['travel', 'Q3 audit', 'a-first'] },
    at('2026-05-01T10:03:00.000Z'),
  );
  applyReview(cache, byIds(ids.slice(0, 300)), { action: 'unflag' }, at('2026-05-01T10:04:00.000Z'));
  applyReview(cache, byIds(ids.slice(2000)), { action: 'clearReviewed' }, at('2026-05-01T10:05:00.000Z'));
  return cache;
}

/**
 * Counts the fsyncs asked of node:fs, on this thread (fsyncSync) and on the pool (fsync),
 * until `stop`. Watches, not replaces: each goes on to the real call.
 */
function watchFsync(): { onThread: number; onPool: number; stop(): void } {
  const real = { fsync: fs.fsync, fsyncSync: fs.fsyncSync };
  const seen = {
    onThread: 0,
    onPool: 0,
    stop() {
      Object.assign(fs, real);
      syncBuiltinESMExports();
    },
  };
  fs.fsyncSync = (fd) => {
    seen.onThread += 1;
    real.fsyncSync(fd);
  };
  fs.fsync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    seen.onPool += 1;
    real.fsync(fd, callback);
  }) as typeof fs.fsync;
  // The named imports of node:fs (temporary-file.ts's) follow the module's object.
  syncBuiltinESMExports();
  return seen;
}

/** The file as JSON.stringify(content, null, 1) writes its content, with a line end. */
const inOnePiece = (text: string) => `${JSON.stringify(JSON.parse(text), null, 1)}\n`;

describe('the review export, written a slice at a time', () => {
  it('writes the text JSON.stringify(content, null, 1) gives, to the byte, across slices', async () => {
    const cache = marked();
    const whole = path.join(caches.tempDir(), 'whole.json');
    const sliced = path.join(caches.tempDir(), 'sliced.json');
    expect(await exportReviewInSlices(cache, whole, now)).toEqual({ marks: 2500 });
    const progress: Array<[number, number]> = [];
    expect(
      await exportReviewInSlices(cache, sliced, {
        ...now,
        sliceSize: 700,
        onProgress: (done, total) => progress.push([done, total]),
      }),
    ).toEqual({ marks: 2500 });
    expect(progress).toEqual([
      [700, 2500],
      [1400, 2500],
      [2100, 2500],
      [2500, 2500],
    ]);

    const text = readFileSync(sliced, 'utf8');
    expect(text).toBe(inOnePiece(text));
    expect(readFileSync(whole, 'utf8')).toBe(text);
    // The same content: every mark once, in key order, its tags in their order.
    const file = readReviewFile(sliced);
    expect(file.marks.map((m) => m.id)).toEqual([...ids].sort());
    expect(file.marks.find((m) => m.id === ids[0])).toMatchObject({
      flag: { flagged: false, reason: null },
      tags: { values: ['a-first', 'Q3 audit', 'travel'] },
    });
    expect(text).toContain('"text": "Hotel bill\\nwith \\"quotes\\", a tab\\t and ümlauts — ask Anna"');
  });

  it('writes an export without marks as before, and one of a single mark', async () => {
    const cache = caches.open(caches.file());
    upsertTransactions(cache, records.slice(0, 3));
    const empty = path.join(caches.tempDir(), 'empty.json');
    const progress: number[] = [];
    expect(
      await exportReviewInSlices(cache, empty, { ...now, onProgress: (done) => progress.push(done) }),
    ).toEqual({
      marks: 0,
    });
    expect(progress).toEqual([]);
    expect(readFileSync(empty, 'utf8')).toBe(
      `${JSON.stringify(
        {
          format: 'satchel-review',
          version: 1,
          exportedAt: '2026-05-02T09:00:00.000Z',
          organisationId: records[0]!.organisationId,
          marks: [],
        },
        null,
        1,
      )}\n`,
    );

    applyReview(cache, byIds([ids[1]!]), { action: 'setNote', note: 'one' }, now);
    const one = path.join(caches.tempDir(), 'one.json');
    await exportReviewInSlices(cache, one, { ...now, organisationId: null });
    const text = readFileSync(one, 'utf8');
    expect(text).toBe(inOnePiece(text));
    expect(JSON.parse(text)).toMatchObject({
      organisationId: null,
      marks: [{ id: ids[1], note: { text: 'one' } }],
    });
  });

  it('lets the event loop run between slices', async () => {
    const cache = marked();
    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: number[] = [];
    await exportReviewInSlices(cache, path.join(caches.tempDir(), 'review.json'), {
      sliceSize: 500,
      onProgress: () => seen.push(ticks),
    });
    ticking = false;
    expect(seen).toHaveLength(5);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
  });

  it('syncs the file to the disk and renames it on the thread pool, the event loop free meanwhile', async () => {
    const cache = marked();
    const whole = path.join(caches.tempDir(), 'whole.json');
    await exportReviewInSlices(cache, whole, now);
    const folder = caches.tempDir();
    const file = path.join(folder, 'review.json');
    // Every pool thread held: a sync or rename asked of the pool waits; one made on this
    // thread (fsyncSync, renameSync, as before) does not, and the export would end meanwhile.
    const pool = holdThreadPool(caches.tempDir());
    const fsyncs = watchFsync();
    try {
      let ended = false;
      const exported = exportReviewInSlices(cache, file, { ...now, sliceSize: 700 }).finally(() => {
        ended = true;
      });
      // The whole text is written to the temporary beside the file, and waits there for the pool.
      const temporary = () => readdirSync(folder).find((name) => name.endsWith('.partial'));
      const written = () => {
        const name = temporary();
        return name !== undefined && readFileSync(path.join(folder, name), 'utf8').endsWith('\n ]\n}\n');
      };
      await until(() => ended || written(), 'the export to write its whole temporary file', 10_000);
      expect(ended, 'the export ended without waiting for the thread pool').toBe(false);
      // Timers still run, and the export still waits: the file is not in place yet.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ended).toBe(false);
      expect(existsSync(file)).toBe(false);
      // Its fsync is the one waiting: asked of the pool, none made on this thread.
      expect(fsyncs).toMatchObject({ onThread: 0, onPool: 1 });

      pool.release();
      expect(await exported).toEqual({ marks: 2500 });
      expect(readFileSync(file, 'utf8')).toBe(readFileSync(whole, 'utf8'));
      expect(temporary()).toBeUndefined();
    } finally {
      fsyncs.stop();
      pool.release();
    }
  });
});
