import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import {
  ExportedMark,
  REVIEW_FORMAT,
  REVIEW_FORMAT_VERSION,
  ReviewFileHeader,
  ReviewFileShell,
  type ReviewFile,
} from './format';

/**
 * Reading and checking a review file before an import writes anything: the whole file, so a
 * bad one changes nothing. A colleague's 100,000 marks (67 MB) took about 1.1 s of checking in
 * one go (ReviewFile.safeParse), beside 0.2 s of reading and decoding and 0.3–0.5 s of
 * JSON.parse, and all of it held the app's thread, so that no IPC was answered meanwhile
 * (2.6 s on the machine that first measured it). The app and the command line now read,
 * decode, parse and check the file in a thread of its own (sliced-check.ts, check-thread.ts);
 * here is the check itself, which that thread runs a slice of marks at a time, and
 * readReviewFile, the same in the caller's thread in one go. Whole or in slices, the check
 * says what ReviewFile.safeParse of the whole file says: the same marks, or the same first
 * problem and count of problems.
 */

export type ReviewImportFailure =
  'UNREADABLE' | 'NOT_JSON' | 'NOT_A_REVIEW_FILE' | 'NEWER_VERSION' | 'INVALID' | 'OTHER_ORGANISATION';

export class ReviewImportError extends Error {
  constructor(
    readonly code: ReviewImportFailure,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'ReviewImportError';
  }
}

/** Marks checked between two turns of the event loop: about 9 ms (8.5 µs a mark measured). */
export const CHECK_SLICE = 1000;

/** Reads and checks the whole file at once; every failure is a ReviewImportError saying what to do. */
export function readReviewFile(file: string): ReviewFile {
  const check = readAndStartCheck(file);
  check.marks(0, check.total);
  return check.finish();
}

/** The file read at once and its check started (`startCheck`); unreadable when it cannot be read. */
export function readAndStartCheck(file: string): ReturnType<typeof startCheck> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw unreadable(file, error);
  }
  return startCheck(file, bytes);
}

export function unreadable(file: string, error: unknown): ReviewImportError {
  return new ReviewImportError(
    'UNREADABLE',
    `Satchel could not read ${file}. Check the file exists and you may open it.`,
    { cause: error },
  );
}

type Issue = z.core.$ZodIssue;

/** The first of a kind of problem, and how many there are of it. */
interface Found {
  first: Issue | undefined;
  count: number;
}

const found = (): Found => ({ first: undefined, count: 0 });

function note(into: Found, issues: readonly Issue[], prefix: PropertyKey[] = []): void {
  if (issues.length === 0) return;
  into.first ??= { ...issues[0]!, path: [...prefix, ...issues[0]!.path] };
  into.count += issues.length;
}

/**
 * The file decoded, parsed and checked but for its marks, which `marks(from, to)` checks a
 * stretch at a time; `finish` returns the file, or throws what is wrong with it.
 */
export function startCheck(file: string, bytes: Buffer) {
  const content = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (content.trim() === '') {
    throw new ReviewImportError(
      'NOT_JSON',
      `${file} is empty, not a review export. Nothing was imported; ask for the export again.`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    // An export is one JSON object: one that starts as such and does not parse broke off
    // (a copy or a download cut short) or was damaged.
    throw new ReviewImportError(
      'NOT_JSON',
      content.trimStart().startsWith('{')
        ? `${file} is not a whole review export: it breaks off or is damaged part-way (a copy cut short?). Nothing was imported; copy it again, or ask for the export again.`
        : `${file} is not a review export (it is not JSON). Nothing was imported.`,
      { cause: error },
    );
  }
  const header = ReviewFileHeader.safeParse(json);
  if (!header.success || header.data.format !== REVIEW_FORMAT) {
    throw new ReviewImportError(
      'NOT_A_REVIEW_FILE',
      `${file} is not a Satchel review export. Nothing was imported.`,
    );
  }
  if (header.data.version > REVIEW_FORMAT_VERSION) {
    throw new ReviewImportError(
      'NEWER_VERSION',
      `${file} was written by a newer version of Satchel (format ${header.data.version}). Update Satchel, then import again. Nothing was imported.`,
    );
  }
  // Problems are named as ReviewFile names them: the fields' in their order (`marks` is the
  // last), a mark's in the order of the marks, then keys the file should not have. A record
  // twice is a problem only of a file with no other.
  const shell = ReviewFileShell.safeParse(json);
  const fields = found();
  const unknownKeys = found();
  if (!shell.success) {
    note(
      fields,
      shell.error.issues.filter((issue) => issue.path.length > 0),
    );
    note(
      unknownKeys,
      shell.error.issues.filter((issue) => issue.path.length === 0),
    );
  }
  const raw = (json as { marks?: unknown }).marks;
  const given: unknown[] = Array.isArray(raw) ? raw : [];
  const marks: ExportedMark[] = new Array<ExportedMark>(given.length);
  const inMarks = found();
  const twice = found();
  const seen = new Set<string>();
  return {
    total: given.length,
    marks(from: number, to: number): void {
      for (let index = from; index < to; index += 1) {
        const mark = ExportedMark.safeParse(given[index]);
        if (!mark.success) {
          note(inMarks, mark.error.issues, ['marks', index]);
          continue;
        }
        marks[index] = mark.data;
        const key = `${mark.data.kind}:${mark.data.id}`;
        if (seen.has(key)) {
          note(twice, [
            {
              code: 'custom',
              message: `${mark.data.kind} ${mark.data.id} appears twice.`,
              path: ['marks', index, 'id'],
              input: given[index],
            },
          ]);
        }
        seen.add(key);
      }
    },
    finish(): ReviewFile {
      const problems = fields.count + inMarks.count + unknownKeys.count;
      const first = fields.first ?? inMarks.first ?? unknownKeys.first;
      if (problems > 0) throw invalid(file, first, problems);
      if (twice.count > 0) throw invalid(file, twice.first, twice.count);
      if (!shell.success) throw invalid(file, undefined, 1); // not reached: a problem was counted
      return { ...shell.data, marks };
    },
  };
}

/** A damaged file: its first problem by path, and how many more there are. */
export function invalid(file: string, first: Issue | undefined, count: number): ReviewImportError {
  const where = first
    ? first.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')
    : '';
  return new ReviewImportError(
    'INVALID',
    `${file} is damaged: ${where.replace(/^\./, '') || 'the file'}: ${first?.message ?? 'invalid'}${
      count > 1 ? ` (and ${count - 1} more problems)` : ''
    }. Nothing was imported; ask for a new export.`,
  );
}
