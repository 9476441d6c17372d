import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyReview,
  exportReviewInSlices,
  importReview,
  mergeReviewFile,
  mergeReviewFileInSlices,
  readReviewFile,
  readReviewFileInSlices,
  ReviewFile,
  ReviewImportError,
  reviewStates,
  undoImport,
  undoImportInSlices,
} from '../../../src-main/review';
import { exportReviewFileInSlices } from '../../../src-main/export';
import { invalid } from '../../../src-main/review/check';
import type { CacheDb } from '../../../src-main/store';
import { demoState, recordsOf, useCaches } from '../search/fixtures';
import { upsertTransactions } from '../search/load';

const caches = useCaches();
const records = recordsOf(demoState(300, 5));
const ids = records.map((r) => r.id);
const organisationId = records[0]!.organisationId;

function loaded(): CacheDb {
  const cache = caches.open(caches.file());
  upsertTransactions(cache, records);
  return cache;
}

function clock(iso: string) {
  return { now: () => new Date(iso) };
}

const byIds = (list: string[]) => ({ by: 'ids' as const, kind: 'transaction' as const, ids: list });
const snapshot = (cache: CacheDb) => ({
  marks: cache.sqlite.prepare('SELECT * FROM review_marks ORDER BY kind, record_id').all(),
  tags: cache.sqlite.prepare('SELECT * FROM review_tags ORDER BY kind, record_id, tag').all(),
});

function marked(): CacheDb {
  const cache = loaded();
  const at = clock('2026-05-01T10:00:00.000Z');
  applyReview(cache, byIds(ids.slice(0, 10)), { action: 'setReviewed' }, at);
  applyReview(cache, byIds(ids.slice(5, 8)), { action: 'flag', reason: 'Private use?' }, at);
  applyReview(
    cache,
    byIds([ids[0]!]),
    { action: 'setNote', note: 'Hotel bill\nwith "quotes" and ümlauts' },
    at,
  );
  applyReview(cache, byIds(ids.slice(0, 3)), { action: 'addTags', tags: ['Q3 audit', 'travel'] }, at);
  applyReview(cache, byIds([ids[9]!]), { action: 'clearReviewed' }, clock('2026-05-01T11:00:00.000Z'));
  return cache;
}

describe('export and import of review state', () => {
  it('round-trips every mark into a colleague’s cache of the same organisation', async () => {
    const mine = marked();
    const file = path.join(caches.tempDir(), 'review.json');
    expect((await exportReviewInSlices(mine, file)).marks).toBe(10);
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    // The organisation the records belong to, as the API names it.
    expect(exported).toMatchObject({ format: 'satchel-review', version: 1, organisationId });
    const theirs = loaded();
    expect(importReview(theirs, file)).toEqual({
      marks: 10,
      updated: 10,
      keptLocal: 0,
      notCached: 0,
      organisationId,
    });
    expect(reviewStates(theirs, 'transaction', ids.slice(0, 12))).toEqual(
      reviewStates(mine, 'transaction', ids.slice(0, 12)),
    );
    // The cleared mark travels as a cleared mark, and importing again changes nothing.
    expect(reviewStates(theirs, 'transaction', [ids[9]!]).get(ids[9]!)?.reviewedAt).toBeNull();
    expect(importReview(theirs, file).updated).toBe(0);
  });

  it('reads a copy saved on Windows: a byte-order mark and CRLF line ends', async () => {
    const file = path.join(caches.tempDir(), 'review.json');
    await exportReviewInSlices(marked(), file);
    writeFileSync(file, `\uFEFF${readFileSync(file, 'utf8').replace(/\n/g, '\r\n')}`);
    expect(importReview(loaded(), file)).toMatchObject({ marks: 10, updated: 10 });
  });

  it('writes to the longest name the file system takes, and leaves nothing else beside it', async () => {
    const mine = marked();
    const dir = caches.tempDir();
    const longest = path.join(dir, `${'r'.repeat(250)}.json`);
    expect((await exportReviewInSlices(mine, longest)).marks).toBe(10);
    expect(JSON.parse(readFileSync(longest, 'utf8')).marks).toHaveLength(10);
    expect((await exportReviewInSlices(mine, longest)).marks).toBe(10); // replaces it
    expect(readdirSync(dir)).toEqual([path.basename(longest)]);
  });

  it('says nothing was written when the folder chosen is gone, as a CSV export does', async () => {
    const gone = path.join(caches.tempDir(), 'Stick');
    await expect(
      exportReviewFileInSlices(marked(), { file: path.join(gone, 'review.json') }),
    ).rejects.toThrow(`The folder ${gone} does not exist. Nothing was written; choose another place.`);
  });

  it('merges facet by facet: the newer change wins, an older one is ignored', async () => {
    const mine = marked();
    const file = path.join(caches.tempDir(), 'review.json');
    await exportReviewInSlices(mine, file);
    const theirs = loaded();
    // Newer local changes (12:00) on records the file also carries (10:00).
    applyReview(
      theirs,
      byIds([ids[0]!]),
      { action: 'setNote', note: 'My newer note' },
      clock('2026-05-01T12:00:00.000Z'),
    );
    applyReview(
      theirs,
      byIds([ids[5]!]),
      { action: 'flag', reason: 'Mine' },
      clock('2026-05-01T11:00:00.000Z'),
    );
    applyReview(theirs, byIds([ids[5]!]), { action: 'unflag' }, clock('2026-05-01T12:00:00.000Z'));
    // An older local change (09:00) the file overrides.
    applyReview(
      theirs,
      byIds([ids[1]!]),
      { action: 'addTags', tags: ['local'] },
      clock('2026-05-01T09:00:00.000Z'),
    );
    // A newer local change that agrees with the file is no conflict: nothing to keep.
    applyReview(theirs, byIds([ids[2]!]), { action: 'setReviewed' }, clock('2026-05-01T12:00:00.000Z'));
    // Every mark of the file brought something newer; two records kept a newer mark of their
    // own that says otherwise (the note of the first, the flag taken off the sixth).
    expect(importReview(theirs, file)).toMatchObject({ marks: 10, updated: 10, keptLocal: 2 });
    expect(importReview(theirs, file)).toMatchObject({ marks: 10, updated: 0, keptLocal: 2 });
    const states = reviewStates(theirs, 'transaction', [ids[0]!, ids[1]!, ids[5]!]);
    expect(states.get(ids[0]!)).toMatchObject({ note: 'My newer note', tags: ['Q3 audit', 'travel'] });
    expect(states.get(ids[0]!)?.reviewedAt).toBe('2026-05-01T10:00:00.000Z');
    expect(states.get(ids[5]!)).toMatchObject({ flagged: false, flagReason: null });
    expect(states.get(ids[5]!)?.reviewedAt).toBe('2026-05-01T10:00:00.000Z');
    expect(states.get(ids[1]!)?.tags).toEqual(['Q3 audit', 'travel']);
  });

  it('keeps marks for records this cache does not hold yet', async () => {
    const file = path.join(caches.tempDir(), 'review.json');
    await exportReviewInSlices(marked(), file);
    const empty = caches.open(caches.file());
    expect(importReview(empty, file)).toMatchObject({ updated: 10, notCached: 10 });
    upsertTransactions(empty, records);
    expect(reviewStates(empty, 'transaction', [ids[0]!]).get(ids[0]!)?.tags).toEqual(['Q3 audit', 'travel']);
  });
});

describe('the app’s import, in slices', () => {
  // A colleague's review of every record of the cache (300), each record a facet of its own.
  async function colleagueFile(): Promise<string> {
    const theirs = loaded();
    const at = clock('2026-05-01T10:00:00.000Z');
    applyReview(theirs, byIds(ids.slice(0, 150)), { action: 'setReviewed' }, at);
    applyReview(theirs, byIds(ids.slice(100, 300)), { action: 'addTags', tags: ['Q3 audit'] }, at);
    applyReview(theirs, byIds(ids.slice(250, 300)), { action: 'flag', reason: 'Ask' }, at);
    const file = path.join(caches.tempDir(), 'colleague.json');
    await exportReviewInSlices(theirs, file);
    return file;
  }

  it('merges as the one transaction does, with the event loop free between slices', async () => {
    const file = await colleagueFile();
    const whole = marked();
    const sliced = marked();
    const once = mergeReviewFile(whole, file, { undoable: true });

    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const progress: Array<[number, number, string]> = [];
    const inSlices = await mergeReviewFileInSlices(sliced, file, {
      undoable: true,
      sliceSize: 40,
      checkSliceSize: 100,
      onProgress: (done, total, phase) => progress.push([done, total, phase]),
    });
    ticking = false;

    expect(inSlices.result).toEqual(once.result);
    // The ten records marked here at the file's own time keep their marks; the rest take it.
    expect(inSlices.result).toMatchObject({ marks: 300, updated: 290, notCached: 0 });
    expect(inSlices.undo?.entries).toEqual(once.undo?.entries);
    expect(snapshot(sliced)).toEqual(snapshot(whole));
    // The file checked in three slices of 100, then merged in eight of 40 (the last of 20), and
    // the app's other work ran between them.
    expect(progress).toEqual([
      ...[100, 200, 300].map((done) => [done, 300, 'check']),
      ...[40, 80, 120, 160, 200, 240, 280, 300].map((done) => [done, 300, 'change']),
    ]);
    expect(ticks).toBeGreaterThanOrEqual(10);
    // Undone in slices as well, the event loop running between them: all as before.
    const before = snapshot(marked());
    ticks = 0;
    ticking = true;
    setImmediate(tick);
    const undoProgress: number[] = [];
    expect(
      await undoImportInSlices(sliced, inSlices.undo!, {
        sliceSize: 100,
        onProgress: (done) => undoProgress.push(done),
      }),
    ).toEqual({ restored: 290, changedSince: 0 });
    ticking = false;
    expect(undoProgress).toEqual([100, 200, 290]);
    expect(ticks).toBeGreaterThanOrEqual(2);
    const strip = (rows: ReturnType<typeof snapshot>) => JSON.stringify(rows);
    expect(strip(snapshot(sliced))).toBe(strip(before));
  });

  it('checks the whole file before the first slice: a bad last mark changes nothing', async () => {
    const file = await colleagueFile();
    const content = JSON.parse(readFileSync(file, 'utf8')) as { marks: unknown[] };
    content.marks.push({
      kind: 'transaction',
      id: ids[0],
      flag: { flagged: true, reason: null, changedAt: '2030-01-01T00:00:00Z' },
    });
    writeFileSync(file, JSON.stringify(content));
    const cache = marked();
    const before = snapshot(cache);
    await expect(
      mergeReviewFileInSlices(cache, file, { undoable: false, sliceSize: 40 }),
    ).rejects.toMatchObject({
      code: 'INVALID',
    });
    expect(snapshot(cache)).toEqual(before);
  });
});

describe('checking a file before its import', () => {
  const header = {
    format: 'satchel-review',
    version: 1,
    exportedAt: '2026-05-02T00:00:00Z',
    organisationId: null,
  };
  const at = '2026-05-01T10:00:00+02:00';
  const mark = (i: number) => ({
    kind: i % 2 ? 'transaction' : 'expense',
    id: `record-${i}`,
    reviewed: { at, changedAt: at },
    flag: { flagged: true, reason: 'Private use?', changedAt: at },
    note: { text: 'Hotel bill, ask Anna', changedAt: at },
    tags: { values: ['Q3 audit', 'travel'], changedAt: at },
  });
  const write = (content: unknown) => {
    const file = path.join(caches.tempDir(), 'colleague.json');
    writeFileSync(file, JSON.stringify(content, null, 1));
    return file;
  };

  it('checks the marks a slice at a time, the event loop running between slices', async () => {
    // A colleague's 20,000 marks with every facet (9 MB).
    const file = write({ ...header, marks: Array.from({ length: 20_000 }, (_, i) => mark(i)) });
    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const progress: Array<{ done: number; total: number; ticks: number }> = [];
    const sliced = await readReviewFileInSlices(file, {
      sliceSize: 1000,
      onProgress: (done, total) => progress.push({ done, total, ticks }),
    });
    ticking = false;

    expect(progress.map(({ done, total }) => [done, total])).toEqual(
      Array.from({ length: 20 }, (_, i) => [(i + 1) * 1000, 20_000]),
    );
    // Other work (here a setImmediate that runs again and again) ran before every slice.
    for (let i = 1; i < progress.length; i += 1)
      expect(progress[i]!.ticks).toBeGreaterThan(progress[i - 1]!.ticks);
    // What the whole file's check gives, times normalised to UTC.
    expect(sliced).toEqual(ReviewFile.parse(JSON.parse(readFileSync(file, 'utf8'))));
    expect(sliced).toEqual(readReviewFile(file));
    expect(sliced.marks[1]!.reviewed).toEqual({
      at: '2026-05-01T08:00:00.000Z',
      changedAt: '2026-05-01T08:00:00.000Z',
    });
  });

  it('names the first problem and counts the problems as the whole file’s schema does', async () => {
    const marks = Array.from({ length: 30 }, (_, i) => mark(i));
    const files: unknown[] = [
      { ...header, marks },
      { ...header, marks: [...marks, { kind: 'invoice', id: 'x' }] },
      {
        ...header,
        exportedAt: 'yesterday',
        marks: [...marks.slice(0, 5), { kind: 'expense' }, ...marks.slice(5), { ...mark(40), extra: 1 }],
      },
      {
        ...header,
        extra: true,
        marks: [
          mark(1),
          { kind: 'transaction', id: '', flag: { flagged: true, reason: ' ', changedAt: 'x' } },
        ],
      },
      { ...header, extra: true, marks },
      { ...header, marks: [...marks, mark(3), mark(7), mark(3)] },
      { ...header, organisationId: 5, marks: [...marks, mark(3)] },
      { ...header, marks: 'all of them' },
      { ...header, version: 0, marks: [] },
      { format: 'satchel-review', version: 1, marks },
    ];
    for (const content of files) {
      const file = write(content);
      const whole = ReviewFile.safeParse(content);
      const verdict = async (check: () => unknown) => {
        try {
          return { ok: true, value: await check() };
        } catch (error) {
          return { ok: false, code: (error as ReviewImportError).code, message: (error as Error).message };
        }
      };
      const expected = whole.success
        ? { ok: true, value: whole.data }
        : {
            ok: false,
            code: 'INVALID',
            message: invalid(file, whole.error.issues[0], whole.error.issues.length).message,
          };
      expect(await verdict(() => readReviewFileInSlices(file, { sliceSize: 7 }))).toEqual(expected);
      expect(await verdict(() => readReviewFile(file))).toEqual(expected);
    }
  });
});

describe('undoing an import', () => {
  it('puts every record it changed back as it was, except those changed since', async () => {
    const file = path.join(caches.tempDir(), 'review.json');
    await exportReviewInSlices(marked(), file);
    const theirs = loaded();
    // Marks of their own before the import: one the file overrides (tags, 09:00), one it does
    // not touch, one newer than the file's (note, 12:00).
    applyReview(
      theirs,
      byIds([ids[1]!]),
      { action: 'addTags', tags: ['local', 'Zeta'] },
      clock('2026-05-01T09:00:00.000Z'),
    );
    applyReview(
      theirs,
      byIds([ids[50]!]),
      { action: 'flag', reason: 'Not in the file' },
      clock('2026-05-01T09:00:00.000Z'),
    );
    applyReview(
      theirs,
      byIds([ids[0]!]),
      { action: 'setNote', note: 'Mine' },
      clock('2026-05-01T12:00:00.000Z'),
    );
    const before = snapshot(theirs);
    const { result, undo } = mergeReviewFile(theirs, file, { undoable: true });
    expect(result).toMatchObject({ updated: 10, keptLocal: 1 });
    expect(undo?.entries).toHaveLength(10);
    expect(snapshot(theirs)).not.toEqual(before);

    // Undone at once: byte for byte as before, tags' spelling and times included.
    expect(undoImport(theirs, undo!)).toEqual({ restored: 10, changedSince: 0 });
    expect(snapshot(theirs)).toEqual(before);

    // Imported again, then one record changed by hand: undoing leaves that one as it is now.
    const again = mergeReviewFile(theirs, file, { undoable: true }).undo!;
    applyReview(
      theirs,
      byIds([ids[3]!]),
      { action: 'setNote', note: 'Checked after the import' },
      clock('2026-05-02T08:00:00.000Z'),
    );
    const changed = reviewStates(theirs, 'transaction', [ids[3]!]).get(ids[3]!);
    expect(undoImport(theirs, again)).toEqual({ restored: 9, changedSince: 1 });
    expect(reviewStates(theirs, 'transaction', [ids[3]!]).get(ids[3]!)).toEqual(changed);
    const others = (rows: ReturnType<typeof snapshot>) => ({
      marks: (rows.marks as Array<{ record_id: string }>).filter((row) => row.record_id !== ids[3]),
      tags: (rows.tags as Array<{ record_id: string }>).filter((row) => row.record_id !== ids[3]),
    });
    expect(others(snapshot(theirs))).toEqual(others(before));
  });
});

describe('a file of another organisation', () => {
  // Another seed of the sandbox's generator is another organisation, with its own id.
  const others = recordsOf(demoState(300, 6));

  it('is refused whole, naming both organisations', async () => {
    expect(others[0]!.organisationId).not.toBe(organisationId);
    const theirs = caches.open(caches.file());
    upsertTransactions(theirs, others);
    applyReview(
      theirs,
      byIds(others.slice(0, 5).map((r) => r.id)),
      { action: 'flag', reason: 'Ask the client' },
      clock('2026-05-01T10:00:00.000Z'),
    );
    const file = path.join(caches.tempDir(), 'other.json');
    await exportReviewInSlices(theirs, file);
    const mine = marked();
    const before = snapshot(mine);
    let error: unknown;
    try {
      importReview(mine, file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ReviewImportError);
    expect(error).toMatchObject({ code: 'OTHER_ORGANISATION' });
    expect((error as Error).message).toContain(others[0]!.organisationId);
    expect((error as Error).message).toContain(organisationId);
    expect((error as Error).message).toMatch(/Nothing was imported/);
    expect(snapshot(mine)).toEqual(before);
  });

  it('is taken when the file does not say its organisation (an older export)', async () => {
    const file = path.join(caches.tempDir(), 'unnamed.json');
    await exportReviewInSlices(marked(), file, { organisationId: null });
    expect(JSON.parse(readFileSync(file, 'utf8')).organisationId).toBeNull();
    expect(importReview(loaded(), file)).toMatchObject({ marks: 10, updated: 10, organisationId: null });
  });
});

describe('a bad file changes nothing', () => {
  function attempt(content: string | null, code: string, message: RegExp) {
    const cache = marked();
    const before = snapshot(cache);
    const file = path.join(caches.tempDir(), 'bad.json');
    if (content !== null) writeFileSync(file, content);
    let error: unknown;
    try {
      importReview(cache, file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ReviewImportError);
    expect((error as ReviewImportError).code).toBe(code);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/Nothing was imported|Check the file/);
    expect(snapshot(cache)).toEqual(before);
  }

  const good = (marks: unknown[]) =>
    JSON.stringify({
      format: 'satchel-review',
      version: 1,
      exportedAt: '2026-05-02T00:00:00Z',
      organisationId: null,
      marks,
    });
  const newer = { changedAt: '2030-01-01T00:00:00.000Z' };

  it('a missing file', () => attempt(null, 'UNREADABLE', /could not read/));
  it('not JSON', () => attempt('these are my notes', 'NOT_JSON', /not a review export \(it is not JSON\)/));
  it('a truncated export', () =>
    attempt(
      good([]).slice(0, 40),
      'NOT_JSON',
      /not a whole review export: it breaks off or is damaged part-way/,
    ));
  it('an empty file, or one of white space only', () => {
    attempt('', 'NOT_JSON', /is empty, not a review export/);
    attempt('\uFEFF \r\n', 'NOT_JSON', /is empty, not a review export/);
  });
  it('some other JSON', () => attempt('{"hello": 1}', 'NOT_A_REVIEW_FILE', /not a Satchel review export/));
  it('a newer format version', () =>
    attempt(good([]).replace('"version":1', '"version":2'), 'NEWER_VERSION', /newer version of Satchel/));
  it('one bad mark among good ones: nothing of the good ones is written', () =>
    attempt(
      good([
        { kind: 'transaction', id: ids[20], reviewed: { at: '2030-01-01T00:00:00Z', ...newer } },
        { kind: 'transaction', id: ids[0], note: { text: 'overwrite', ...newer } },
        { kind: 'transaction', id: ids[21], flag: { flagged: true, reason: null, ...newer } },
      ]),
      'INVALID',
      /marks\[2\]\.flag\.reason: A flagged record needs a reason/,
    ));
  it('a bad timestamp', () =>
    attempt(
      good([{ kind: 'transaction', id: ids[0], note: { text: 'x', changedAt: 'yesterday' } }]),
      'INVALID',
      /changedAt/,
    ));
  it('an unknown kind', () => attempt(good([{ kind: 'invoice', id: 'x' }]), 'INVALID', /kind/));
  it('a record twice', () =>
    attempt(
      good([
        { kind: 'expense', id: 'e1' },
        { kind: 'expense', id: 'e1' },
      ]),
      'INVALID',
      /appears twice/,
    ));
});
