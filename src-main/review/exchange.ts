import path from 'node:path';
import { AppError } from '../../src-shared/errors';
import { importInterruptedText } from '../../src-shared/review-file-progress';
import { removeStaleTemporaries } from '../folders';
import { exportFailure, openTemporaryBeside } from '../temporary-file';
import { prepared } from '../search/sql';
import type { CacheDb } from '../store';
import { readMarkRow, readTagRows, writeMarkRow, writeTagRows, type MarkRow } from './mark-rows';
import { changeStamps, type ImportUndo } from './undo';
import { readReviewFile, ReviewImportError } from './check';
import { CHECK_CANCELLED, readReviewFileInSlices } from './sliced-check';
import { REVIEW_FORMAT, REVIEW_FORMAT_VERSION, type ExportedMark, type ReviewFile } from './format';

/**
 * Export and import of review state, so a colleague can continue a review (format.ts has
 * the file format). Import merges facet by facet: the newer `changedAt` wins, an equal or
 * older one leaves the local facet alone. The whole file is read and validated before the
 * first write (check.ts), and the merge runs in one transaction: a bad file changes nothing.
 */

/* ---------------------------------------------------------------- export */

export interface ExportOptions {
  /** The organisation written into the file; by default the one the cache's records belong to. */
  organisationId?: string | null;
  now?: () => Date;
}

export interface SlicedExportOptions extends ExportOptions {
  /** Marks read and written between two turns of the event loop. Default EXPORT_SLICE. */
  sliceSize?: number;
  /** After each slice: marks written so far, and how many there were when the export began. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Once aborted (Ctrl+C on the command line, Stop export in the window), the export stops at
   * its next slice, or before
   * its file replaces the target: the temporary is removed, the target left as it was, and it
   * rejects with a CANCELLED error.
   */
  signal?: AbortSignal;
}

/** What an export stopped by its signal says, as a stopped CSV export does. */
const EXPORT_CANCELLED = 'The export was cancelled; no file was written.';

/**
 * Marks read, serialised and written in one piece: 9–11 ms for 250 marks with every facet on a
 * busy two-core machine (docs/search-and-review.md, "Export and import of review state").
 */
export const EXPORT_SLICE = 250;

/**
 * Writes every review mark to `file` (replaced atomically); returns how many marks. The file
 * is what `JSON.stringify(content, null, 1)` of the whole content gives, with a line end, but
 * written a slice of marks at a time (reviewFilePieces): the whole text in one string took
 * about twice the file in memory (the string and its UTF-8 copy; 100,000 marks make 58 MB)
 * and held the thread while it was built and written. The event loop is free between two
 * slices and during the file's final fsync and rename (on libuv's thread pool).
 * The app runs it after the review changes asked for before it and before any asked for later
 * (afterReviewChanges), so no mark changes between its slices.
 */
export async function exportReviewInSlices(
  cache: CacheDb,
  file: string,
  { sliceSize = EXPORT_SLICE, onProgress, signal, ...options }: SlicedExportOptions = {},
): Promise<{ marks: number }> {
  // What an export killed here earlier left behind goes now (a day old, of our naming only).
  removeStaleTemporaries(path.dirname(file));
  // Written beside the target and on the disk before it replaces it, so a crash or a full
  // disk leaves the previous file whole; a failure removes the temporary wherever it is.
  const temporary = openTemporaryBeside(file);
  try {
    let marks = 0;
    for (const piece of reviewFilePieces(cache, options, sliceSize)) {
      if (signal?.aborted) throw new AppError('CANCELLED', EXPORT_CANCELLED);
      temporary.write(piece.text);
      marks = piece.done;
      if (piece.marks === 0) continue; // the file's end
      onProgress?.(piece.done, piece.total);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // The fsync (seconds for a large file on a slow disk) and the rename off the thread.
    await temporary.commit(file, () => {
      if (signal?.aborted) throw new AppError('CANCELLED', EXPORT_CANCELLED);
    });
    return { marks };
  } catch (error) {
    throw exportFailure(file, error, temporary.discard());
  }
}

interface Piece {
  text: string;
  /** Marks in this piece. */
  marks: number;
  /** Marks written with this piece and those before it. */
  done: number;
  total: number;
}

/**
 * The review file's text in pieces: its fields and the first slice of marks, each further
 * slice, then its end. Together they are `JSON.stringify(content, null, 1)` and a line end:
 * a mark sits two levels deep, so its own text (the same function's, indent 1) is indented
 * two spaces more on every line (JSON never has a line end inside a string). Marks are read a
 * slice at a time in key order, each slice after the last key written, with their tags.
 */
function* reviewFilePieces(cache: CacheDb, options: ExportOptions, sliceSize: number): Generator<Piece> {
  const fields = {
    format: REVIEW_FORMAT,
    version: REVIEW_FORMAT_VERSION,
    exportedAt: (options.now ?? (() => new Date()))().toISOString(),
    organisationId: options.organisationId !== undefined ? options.organisationId : organisationOf(cache),
  };
  const total = prepared(cache.sqlite, 'SELECT count(*) FROM review_marks').pluck().get() as number;
  const page = prepared(
    cache.sqlite,
    `SELECT * FROM review_marks WHERE (kind, record_id) > (@kind, @id)
      ORDER BY kind, record_id LIMIT @limit`,
  );
  const tagsOfPage = prepared(
    cache.sqlite,
    `SELECT kind, record_id, tag FROM review_tags
      WHERE (kind, record_id) >= (@firstKind, @firstId) AND (kind, record_id) <= (@lastKind, @lastId)
      ORDER BY kind, record_id, tag COLLATE NOCASE`,
  );
  // Before every kind ('transaction', 'expense'): the first page starts at the first mark.
  let after = { kind: '', id: '' };
  let done = 0;
  for (;;) {
    const rows = page.all({ ...after, limit: sliceSize }) as MarkRow[];
    if (rows.length === 0) break;
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const tags = tagsByRecord(
      tagsOfPage.all({
        firstKind: first.kind,
        firstId: first.record_id,
        lastKind: last.kind,
        lastId: last.record_id,
      }) as TagListRow[],
    );
    const text = rows
      .map(
        (row) =>
          `  ${JSON.stringify(toExported(row, tags.get(`${row.kind}:${row.record_id}`) ?? []), null, 1).replace(/\n/g, '\n  ')}`,
      )
      .join(',\n');
    const opening = done === 0 ? `${JSON.stringify(fields, null, 1).slice(0, -2)},\n "marks": [\n` : ',\n';
    done += rows.length;
    after = { kind: last.kind, id: last.record_id };
    yield { text: `${opening}${text}`, marks: rows.length, done, total };
  }
  yield {
    text: done === 0 ? `${JSON.stringify({ ...fields, marks: [] }, null, 1)}\n` : '\n ]\n}\n',
    marks: 0,
    done,
    total,
  };
}

interface TagListRow {
  kind: string;
  record_id: string;
  tag: string;
}

/** Tags by `kind:record_id`, in the order listed. */
function tagsByRecord(rows: readonly TagListRow[]): Map<string, string[]> {
  const byRecord = new Map<string, string[]>();
  for (const row of rows) {
    const key = `${row.kind}:${row.record_id}`;
    const list = byRecord.get(key);
    if (list) list.push(row.tag);
    else byRecord.set(key, [row.tag]);
  }
  return byRecord;
}

function toExported(row: MarkRow, tags: string[]): ExportedMark {
  const mark: ExportedMark = { kind: row.kind, id: row.record_id };
  if (row.reviewed_changed_at) mark.reviewed = { at: row.reviewed_at, changedAt: row.reviewed_changed_at };
  if (row.flag_changed_at)
    mark.flag = { flagged: row.flagged === 1, reason: row.flag_reason, changedAt: row.flag_changed_at };
  if (row.note_changed_at) mark.note = { text: row.note, changedAt: row.note_changed_at };
  if (row.tags_changed_at) mark.tags = { values: tags, changedAt: row.tags_changed_at };
  return mark;
}

/**
 * The organisation whose records the cache holds, as its bank transactions name it; null
 * before the first sync brought one. Every record of a cache is of one organisation.
 */
export function organisationOf(cache: CacheDb): string | null {
  const row = prepared(
    cache.sqlite,
    'SELECT organisation_id FROM bank_transactions WHERE organisation_id IS NOT NULL LIMIT 1',
  ).get() as { organisation_id: string } | undefined;
  return row?.organisation_id ?? null;
}

/* ---------------------------------------------------------------- import */

export interface ImportResult {
  /** Marks in the file. */
  marks: number;
  /** Records where at least one facet from the file was newer and was taken. */
  updated: number;
  /**
   * Records where the file says otherwise than this copy on a facet (another flag, note, tag
   * set or reviewed state) and this copy's change, as new or newer, was kept.
   */
  keptLocal: number;
  /** Marks for records this offline copy does not hold (yet): kept, they apply when those arrive. */
  notCached: number;
  /** The organisation the file says it came from, for the caller to show. */
  organisationId: string | null;
}

export function importReview(cache: CacheDb, file: string): ImportResult {
  return mergeReviewFile(cache, file, { undoable: false }).result;
}

/**
 * Imports `file` as importReview does, in one transaction; `undoable` also lists every record
 * the import changed, as it was before and after, for undoImport.
 */
export function mergeReviewFile(
  cache: CacheDb,
  file: string,
  { undoable }: { undoable: boolean },
): { result: ImportResult; undo: ImportUndo | null } {
  const run = importRun(cache, file, readReviewFile(file), undoable);
  cache.sqlite.transaction(() => run.merge(0, run.total))();
  return run.finish();
}

/** What an import in slices is doing: checking the file, or merging its marks. */
export type ImportPhase = 'check' | 'change';

export interface SlicedImportOptions {
  undoable: boolean;
  /** Marks merged in one transaction. Default IMPORT_SLICE. */
  sliceSize?: number;
  /** Marks checked between two progress reports. Default CHECK_SLICE (check.ts). */
  checkSliceSize?: number;
  /** The check thread's built script (sliced-check.ts); by default its source, through tsx. */
  checkThread?: string;
  /**
   * After each slice of the check, then of the merge: marks checked or merged so far, of how
   * many the file has.
   */
  onProgress?: (done: number, total: number, phase: ImportPhase) => void;
  /**
   * Once aborted (Ctrl+C on the command line, Stop import in the window), the import stops
   * before its next slice and rejects with a CANCELLED error: an ImportInterrupted that says how
   * many marks it merged (they stay; importing the file again completes the merge) and carries
   * what they did, or, during the check, one that says nothing was changed.
   */
  signal?: AbortSignal;
}

/** Counts in a stopped import's words as "12,000": the same on every machine. */
const grouped = new Intl.NumberFormat('en-US');

/** About 20 ms of merging on the machines measured (90 µs a mark, 120,000 marks in 11 s). */
export const IMPORT_SLICE = 250;

/**
 * The app's import: the same merge, a slice of marks per transaction with the event loop free
 * between slices, so that a large file (a colleague's 100,000 marks, 50 MB, 11 s of merging)
 * does not hold every IPC answer, sync step and download meanwhile. The whole file is read
 * and checked before the first slice, so a bad file still changes nothing; the reading and the
 * check run in a thread of their own (sliced-check.ts). What a slice commits stays if the app
 * is killed part-way; importing the file again completes the merge, as the newer change wins
 * and an equal one changes nothing.
 */
export async function mergeReviewFileInSlices(
  cache: CacheDb,
  file: string,
  {
    undoable,
    sliceSize = IMPORT_SLICE,
    checkSliceSize,
    checkThread,
    onProgress,
    signal,
  }: SlicedImportOptions,
): Promise<{ result: ImportResult; undo: ImportUndo | null }> {
  const parsed = await readReviewFileInSlices(file, {
    ...(checkSliceSize === undefined ? {} : { sliceSize: checkSliceSize }),
    ...(checkThread === undefined ? {} : { script: checkThread }),
    ...(signal === undefined ? {} : { signal }),
    ...(onProgress ? { onProgress: (done: number, total: number) => onProgress(done, total, 'check') } : {}),
  });
  const run = importRun(cache, file, parsed, undoable);
  const slice = cache.sqlite.transaction((from: number, to: number) => run.merge(from, to));
  for (let from = 0; from < run.total; from += sliceSize) {
    if (signal?.aborted) {
      if (from === 0) throw new AppError('CANCELLED', CHECK_CANCELLED);
      throw new ImportInterrupted(from, run.finish());
    }
    const to = Math.min(run.total, from + sliceSize);
    slice(from, to);
    onProgress?.(to, run.total, 'change');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return run.finish();
}

/**
 * An import stopped by its signal after some of its slices were merged: those marks stay (each
 * slice is its own transaction). It carries what they did, counted as a whole import's are, and,
 * when the import was undoable, the list that undoes exactly them (the app offers to undo what
 * was merged, docs/search-and-review.md). Its message is the command line's words.
 */
export class ImportInterrupted extends AppError {
  constructor(
    /** Marks of the file merged before it stopped. */
    readonly merged: number,
    readonly sofar: { result: ImportResult; undo: ImportUndo | null },
  ) {
    super(
      'CANCELLED',
      importInterruptedText(merged, sofar.result.marks, (n) => grouped.format(n)),
    );
    this.name = 'ImportInterrupted';
  }
}

/** An import checked whole and ready to merge, a stretch of its marks at a time. */
function importRun(cache: CacheDb, file: string, parsed: ReviewFile, undoable: boolean) {
  // Records are named by the API's ids, which another organisation's cache never holds: its
  // marks would wait for ever as "not in the offline copy yet". A file of unknown origin (an
  // export from before the id was written, or from a cache with no transactions) is taken.
  const own = organisationOf(cache);
  if (parsed.organisationId !== null && own !== null && parsed.organisationId !== own) {
    throw new ReviewImportError(
      'OTHER_ORGANISATION',
      `${file} holds the review marks of another organisation (${parsed.organisationId}), not of this one (${own}). Import it into that organisation's connection. Nothing was imported.`,
    );
  }
  const undo: ImportUndo | null = undoable ? { entries: [] } : null;
  const counts = { updated: 0, keptLocal: 0, notCached: 0 };
  const held = {
    transaction: prepared(cache.sqlite, 'SELECT 1 FROM bank_transactions WHERE id = ?'),
    expense: prepared(cache.sqlite, 'SELECT 1 FROM expenses WHERE id = ?'),
  };
  return {
    total: parsed.marks.length,
    /** Merges marks `from` up to `to`; the caller holds the transaction. */
    merge(from: number, to: number): void {
      for (const mark of parsed.marks.slice(from, to)) {
        const merged = mergeMark(cache, mark, undo);
        if (merged.taken) counts.updated += 1;
        if (merged.kept) counts.keptLocal += 1;
        if (held[mark.kind].get(mark.id) === undefined) counts.notCached += 1;
      }
    },
    finish(): { result: ImportResult; undo: ImportUndo | null } {
      return {
        result: { marks: parsed.marks.length, ...counts, organisationId: parsed.organisationId },
        undo,
      };
    },
  };
}

const newer = (incoming: string, local: string | null) => local === null || incoming > local;

const noteText = (text: string | null) => (text === null || text.trim() === '' ? null : text);

/** A tag set as compared: tags are one tag whatever their ASCII case. */
const tagSet = (tags: readonly string[]) =>
  JSON.stringify(tags.map((tag) => tag.replace(/[A-Z]/g, (letter) => letter.toLowerCase())).sort());

/**
 * Takes each facet of `mark` that is newer than the local one. `taken`: any was; `kept`: on
 * some facet the file says otherwise and the local change, as new or newer, stayed. With
 * `undo`, a record it changes is listed there as it was before and as it is after.
 */
function mergeMark(
  cache: CacheDb,
  mark: ExportedMark,
  undo: ImportUndo | null,
): { taken: boolean; kept: boolean } {
  const local = readMarkRow(cache, mark.kind, mark.id);
  const before = local ? { ...local } : null;
  const row: MarkRow = local ?? emptyRow(mark);
  let changed = false;
  let kept = false;
  if (mark.reviewed) {
    if (newer(mark.reviewed.changedAt, row.reviewed_changed_at)) {
      Object.assign(row, { reviewed_at: mark.reviewed.at, reviewed_changed_at: mark.reviewed.changedAt });
      changed = true;
    } else if ((mark.reviewed.at === null) !== (row.reviewed_at === null)) kept = true;
  }
  if (mark.flag) {
    const reason = mark.flag.flagged ? mark.flag.reason : null;
    if (newer(mark.flag.changedAt, row.flag_changed_at)) {
      Object.assign(row, {
        flagged: mark.flag.flagged ? 1 : 0,
        flag_reason: reason,
        flag_changed_at: mark.flag.changedAt,
      });
      changed = true;
    } else if (mark.flag.flagged !== (row.flagged === 1) || (mark.flag.flagged && reason !== row.flag_reason))
      kept = true;
  }
  if (mark.note) {
    const text = noteText(mark.note.text);
    if (newer(mark.note.changedAt, row.note_changed_at)) {
      Object.assign(row, { note: text, note_changed_at: mark.note.changedAt });
      changed = true;
    } else if (text !== row.note) kept = true;
  }
  const tagsTaken = mark.tags !== undefined && newer(mark.tags.changedAt, row.tags_changed_at);
  const localTags =
    local && (undo || (mark.tags && !tagsTaken)) ? readTagRows(cache, mark.kind, mark.id) : [];
  if (mark.tags && tagsTaken) row.tags_changed_at = mark.tags.changedAt;
  else if (mark.tags && tagSet(mark.tags.values) !== tagSet(localTags.map((t) => t.tag))) kept = true;
  if (!changed && !tagsTaken) return { taken: false, kept };
  row.updated_at = [
    row.updated_at,
    row.reviewed_changed_at,
    row.flag_changed_at,
    row.note_changed_at,
    row.tags_changed_at,
  ]
    .filter((stamp): stamp is string => stamp !== null)
    .reduce((a, b) => (a > b ? a : b));
  writeMarkRow(cache, row);
  if (mark.tags && tagsTaken) {
    const at = mark.tags.changedAt;
    writeTagRows(
      cache,
      mark.kind,
      mark.id,
      mark.tags.values.map((tag) => ({ tag, added_at: at })),
    );
  }
  undo?.entries.push({
    kind: mark.kind,
    id: mark.id,
    before,
    beforeTags: localTags,
    after: changeStamps(row),
  });
  return { taken: true, kept };
}

function emptyRow(mark: ExportedMark): MarkRow {
  return {
    kind: mark.kind,
    record_id: mark.id,
    reviewed_at: null,
    reviewed_changed_at: null,
    flagged: 0,
    flag_reason: null,
    flag_changed_at: null,
    note: null,
    note_changed_at: null,
    tags_changed_at: null,
    updated_at: '',
  };
}
