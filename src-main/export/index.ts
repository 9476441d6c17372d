import { AppError } from '../../src-shared/errors';
import type { z } from 'zod';
import type {
  CsvFormatInput,
  ExpenseCsvExport,
  ReviewFileInput,
  TransactionCsvExport,
} from '../../src-shared/export';
import type { CacheDb } from '../store';
import { writeFailure } from '../folders';
import {
  exportReviewInSlices,
  mergeReviewFileInSlices,
  ReviewImportError,
  type ImportPhase,
  type ImportResult,
  type ImportUndo,
} from '../review';
import {
  checkTarget,
  csvFormat,
  exportExpensesCsv,
  exportTransactionsCsv,
  type CsvExportOptions,
  type CsvExportResult,
} from './csv';

export {
  csvFormat,
  csvText,
  EXPENSE_CSV_COLUMNS,
  exportExpensesCsv,
  exportTransactionsCsv,
  streamExpensesCsv,
  streamTransactionsCsv,
  TRANSACTION_CSV_COLUMNS,
  type CsvSink,
} from './csv';

/** The file, separators and overwrite choice of an export request, as the writer takes them. */
function csvOptions(
  input: { file: string; format: CsvFormatInput; overwrite: boolean },
  onProgress?: (written: number, total: number) => void,
  signal?: AbortSignal,
): CsvExportOptions {
  return {
    file: input.file,
    format: csvFormat(input.format),
    overwrite: input.overwrite,
    ...(onProgress ? { onProgress } : {}),
    ...(signal ? { signal } : {}),
  };
}

/** A transaction CSV export as the IPC command and the CLI ask for it. */
export function exportTransactions(
  cache: CacheDb,
  input: Omit<z.output<typeof TransactionCsvExport>, 'profileId'>,
  onProgress?: (written: number, total: number) => void,
  signal?: AbortSignal,
): Promise<CsvExportResult> {
  return exportTransactionsCsv(cache, input.search, csvOptions(input, onProgress, signal));
}

/** An expense CSV export as the IPC command and the CLI ask for it. */
export function exportExpenses(
  cache: CacheDb,
  input: Omit<z.output<typeof ExpenseCsvExport>, 'profileId'>,
  onProgress?: (written: number, total: number) => void,
  signal?: AbortSignal,
): Promise<CsvExportResult> {
  return exportExpensesCsv(cache, input.search, csvOptions(input, onProgress, signal));
}

/**
 * Writes the review file, the marks read and written a slice at a time, the event loop free
 * between slices (review/exchange.ts). The app's save dialog has asked before replacing a
 * file; the command line passes `overwrite: false` unless told to replace it.
 */
export async function exportReviewFileInSlices(
  cache: CacheDb,
  input: Omit<z.output<typeof ReviewFileInput>, 'profileId'>,
  {
    overwrite = true,
    onProgress,
    signal,
  }: {
    overwrite?: boolean;
    onProgress?: (done: number, total: number) => void;
    /**
     * Ctrl+C on the command line, Stop export in the window (`review.cancel`): the export stops,
     * its temporary removed (review/exchange.ts).
     */
    signal?: AbortSignal | undefined;
  } = {},
): Promise<{ file: string; marks: number }> {
  checkTarget(input.file, overwrite);
  try {
    return {
      file: input.file,
      ...(await exportReviewInSlices(cache, input.file, {
        ...(onProgress ? { onProgress } : {}),
        ...(signal ? { signal } : {}),
      })),
    };
  } catch (error) {
    throw writeFailure(input.file, error);
  }
}

/**
 * Imports a colleague's review file (a bad file is a clear error and changes nothing), as the
 * app and the command line do: in slices, the event loop and the cache's write lock free
 * between them; for the app, listing what it changed so that it can be undone (the
 * organisation's last import).
 */
export async function importReviewFileInSlices(
  cache: CacheDb,
  input: Omit<z.output<typeof ReviewFileInput>, 'profileId'>,
  {
    undoable = true,
    onProgress,
    checkThread,
    signal,
  }: {
    undoable?: boolean;
    onProgress?: (done: number, total: number, phase: ImportPhase) => void;
    /** The check thread's built script (review/sliced-check.ts); by default its source. */
    checkThread?: string | undefined;
    /**
     * Ctrl+C on the command line, Stop import in the window (`review.cancel`): the import stops
     * between two slices, and says how far it came (ImportInterrupted, review/exchange.ts).
     */
    signal?: AbortSignal | undefined;
  } = {},
): Promise<{ result: ImportResult; undo: ImportUndo | null }> {
  try {
    return await mergeReviewFileInSlices(cache, input.file, {
      undoable,
      ...(onProgress ? { onProgress } : {}),
      ...(signal ? { signal } : {}),
      ...(checkThread ? { checkThread } : {}),
    });
  } catch (error) {
    throw inWords(error);
  }
}

/** A bad file's ReviewImportError as the refusal on `file` that the window and the CLI show. */
function inWords(error: unknown): unknown {
  return error instanceof ReviewImportError ? new AppError('VALIDATION_ERROR', error.message, 'file') : error;
}
