import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ReviewChange, ReviewTarget } from '../../src-shared/search';
import { applyReview } from '../../src-main/review';
import { applyReviewInSlices } from '../../src-main/review/slices';
import { createBackgroundTotals, type BackgroundTotals } from '../../src-main/search/background-totals';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../src-main/store';
import { loadTransactions } from './search.bench';

type SearchTarget = Exclude<ReviewTarget, { by: 'ids' }>;

/**
 * Bulk review of a whole search result on 1,000,000 cached transactions: the unmatched ones
 * (about 280,000) marked reviewed, flagged and tagged, and each undone. Every change runs as
 * one statement (what the app did before: the app held for all of it) and in slices (what it
 * does: the result fixed first, then ~20 ms transactions with the event loop free between
 * them). Reported per change: the one statement's time; the sliced total, its first pause
 * (fixing the result, until the first progress), the longest gap between two slices, and the
 * event loop's longest delay meanwhile. The rows are listed in the totals thread, as the app
 * does; `rowsHere.*` lists them in this thread (the app before). Then (`scattered.*`) marking
 * reviewed and undoing it again in slices, over marks first made in a random order
 * (scatterMarks).
 *
 * `SEARCH_BENCH_CACHE=/path/to/cache.sqlite` starts from a copy of a cache the search bench
 * built (the copy is changed, the file named is not); otherwise a cache is built (90–170 s).
 */

const ROWS = Number(process.env['SEARCH_BENCH_ROWS'] ?? 1_000_000);
const TARGET: ReviewTarget = { by: 'transactionSearch', filters: { matched: false } };
const TAGS = ['bench-a', 'bench-b'];

/** Each change and the one that undoes it, so the cache ends as it began. */
const PAIRS: Array<[string, ReviewChange, ReviewChange]> = [
  ['reviewed', { action: 'setReviewed' }, { action: 'clearReviewed' }],
  ['flag', { action: 'flag', reason: 'Receipt missing' }, { action: 'unflag' }],
  ['tags', { action: 'addTags', tags: TAGS }, { action: 'removeTags', tags: TAGS }],
];

function openBenchCache(dir: string): CacheDb {
  const reuse = process.env['SEARCH_BENCH_CACHE'];
  const file = path.join(dir, 'review-bench.sqlite');
  if (reuse) {
    copyFileSync(reuse, file);
    if (existsSync(`${reuse}-wal`)) copyFileSync(`${reuse}-wal`, `${file}-wal`);
    // On the disk and in the page cache before any run, as the file of an app in use would
    // be: a fresh copy is still being written back and is not in the page cache (the kernel
    // copies it without it), and the sliced runs measured 3 times slower on it.
    for (const name of [file, `${file}-wal`].filter((name) => existsSync(name))) {
      const fd = openSync(name, 'r+');
      fsyncSync(fd);
      const buffer = Buffer.allocUnsafe(8 << 20);
      for (let position = 0; readSync(fd, buffer, 0, buffer.length, position) > 0; position += buffer.length);
      closeSync(fd);
    }
    return openCache(file, { migrationsDir: defaultMigrationsDir() });
  }
  const cache = openCache(file, { migrationsDir: defaultMigrationsDir() });
  loadTransactions(cache, ROWS);
  return cache;
}

/**
 * Untimed, before every run: the last run's WAL checkpointed and emptied, so no run pays for
 * the one before it (a one-statement change leaves a WAL of hundreds of megabytes behind).
 */
function settle(cache: CacheDb): void {
  cache.sqlite.pragma('wal_checkpoint(TRUNCATE)');
}

function oneStatement(cache: CacheDb, change: ReviewChange): { ms: number; changed: number } {
  settle(cache);
  const started = performance.now();
  const { changed } = applyReview(cache, TARGET, change);
  return { ms: performance.now() - started, changed };
}

/**
 * A change in slices as the app makes it: the result listed in the organisation's totals
 * thread (`thread`), or in this thread when none is given (what the app did before).
 */
async function sliced(cache: CacheDb, change: ReviewChange, thread?: BackgroundTotals) {
  settle(cache);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  // The monitor records a delay from its second tick on: started a few ticks early, it sees
  // a wait at the very start of the change (the list of rows, when it is made in this thread).
  loop.enable();
  await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  let first = 0;
  let last = 0;
  let longestGap = 0;
  let slices = 0;
  const { changed } = await applyReviewInSlices(cache, TARGET, change, {
    ...(thread ? { rowsOf: (target: SearchTarget) => thread.reviewRows(target) } : {}),
    onProgress: () => {
      const now = performance.now();
      if (slices === 0) first = now - started;
      else longestGap = Math.max(longestGap, now - last);
      last = now;
      slices++;
    },
  });
  const ms = performance.now() - started;
  loop.disable();
  return { ms, first, longestGap, slices, changed, loopMax: loop.max / 1e6 };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Untimed: the target's marks made again in a random order and left unreviewed, as weeks of
 * marks made one at a time leave them (or a selection, an import, a change made in one
 * statement). Before migration 0013 the marks were stored in the order they were made, and
 * the slices that followed, working in the ids' order, took two to three times as long.
 */
function scatterMarks(cache: CacheDb): number {
  const ids = cache.sqlite
    .prepare(`SELECT id FROM bank_transactions WHERE matched = 0`)
    .pluck()
    .all() as string[];
  // A fixed shuffle (Park–Miller), so that every run scatters them alike.
  let seed = 7;
  for (let i = ids.length - 1; i > 0; i -= 1) {
    seed = (seed * 48271) % 2147483647;
    const j = seed % (i + 1);
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  const now = new Date().toISOString();
  const insert = cache.sqlite.prepare(
    `INSERT INTO review_marks (kind, record_id, reviewed_changed_at, updated_at) VALUES ('transaction', ?, ?, ?)`,
  );
  cache.sqlite.transaction(() => {
    cache.sqlite.prepare(`DELETE FROM review_marks WHERE kind = 'transaction'`).run();
    for (const id of ids) insert.run(id, now, now);
  })();
  return ids.length;
}

export default async function run(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-review-bench-'));
  try {
    const cache = openBenchCache(dir);
    // Untimed: the target's rows read once, so the first run does not pay for a cold index.
    cache.sqlite.prepare('SELECT count(*) FROM bank_transactions WHERE matched = 0').pluck().get();
    const figures: Record<string, number | string> = { rows: ROWS };
    // The app lists a change's rows in the organisation's totals thread, started (and its
    // script loaded) before timing, as it is once the app has counted anything.
    const thread = createBackgroundTotals({
      file: cache.file,
      fallback: () => {
        throw new Error('the totals thread did not start');
      },
    });
    await thread.totals({ ids: ['none'] });
    for (const [name, forward, back] of PAIRS) {
      // Each change, then its undo, in slices (the app's way); then the same two as one
      // statement. The cache is as it began after each pair of runs.
      const cut = [await sliced(cache, forward, thread), await sliced(cache, back, thread)];
      const one = [oneStatement(cache, forward), oneStatement(cache, back)];
      [name, `${name}.undo`].forEach((step, i) => {
        figures[`${step}.changed`] = cut[i]!.changed;
        figures[`${step}.oneStatementMs`] = round(one[i]!.ms);
        figures[`${step}.slicedMs`] = round(cut[i]!.ms);
        figures[`${step}.firstPauseMs`] = round(cut[i]!.first);
        figures[`${step}.longestGapMs`] = round(cut[i]!.longestGap);
        figures[`${step}.loopDelayMaxMs`] = round(cut[i]!.loopMax);
        figures[`${step}.slices`] = cut[i]!.slices;
      });
    }
    // Marking reviewed and undoing it with the rows listed in this thread, as before the
    // totals thread listed them: the event loop waited for the whole list.
    const here = [await sliced(cache, PAIRS[0]![1]), await sliced(cache, PAIRS[0]![2])];
    ['rowsHere.reviewed', 'rowsHere.reviewed.undo'].forEach((step, i) => {
      figures[`${step}.slicedMs`] = round(here[i]!.ms);
      figures[`${step}.firstPauseMs`] = round(here[i]!.first);
      figures[`${step}.loopDelayMaxMs`] = round(here[i]!.loopMax);
    });
    // The same bulk change again, over marks made in a random order first.
    figures['scattered.marks'] = scatterMarks(cache);
    const scattered = [
      await sliced(cache, { action: 'setReviewed' }, thread),
      await sliced(cache, { action: 'clearReviewed' }, thread),
    ];
    ['scattered.reviewed', 'scattered.reviewed.undo'].forEach((step, i) => {
      figures[`${step}.slicedMs`] = round(scattered[i]!.ms);
      figures[`${step}.firstPauseMs`] = round(scattered[i]!.first);
      figures[`${step}.longestGapMs`] = round(scattered[i]!.longestGap);
      figures[`${step}.slices`] = scattered[i]!.slices;
    });
    await thread.close();
    cache.close();
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
