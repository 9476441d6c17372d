import { statSync } from 'node:fs';
import path from 'node:path';
import type { CsvFormat } from '../../src-shared/export';
import { AppError } from '../../src-shared/errors';
import { removeStaleTemporaries, writeFailure } from '../folders';
import { exportFailure, openTemporaryBeside } from '../temporary-file';

// Where a CSV export's text goes (csv.ts makes it): a file, written whole or not at all, or a
// sink such as the command line's standard output.

/** A CSV export to a file. */
export interface CsvExportOptions {
  /** Absolute path of the CSV to write. */
  file: string;
  format: CsvFormat;
  /** Replace an existing file (after the user confirmed); refused otherwise. */
  overwrite?: boolean;
  signal?: AbortSignal;
  onProgress?: (written: number, total: number) => void;
}

/**
 * Where a CSV goes instead of a file (the command line's standard output): each piece is
 * handed over in order, the next once the promise settles, so a slow reader slows the export
 * rather than its memory growing.
 */
export type CsvSink = (text: string) => Promise<void>;

/** An export into a sink: no file, and no byte-order mark (a program reads it, not Excel). */
export type CsvStreamOptions = Omit<CsvExportOptions, 'file' | 'overwrite'> & { sink: CsvSink };

export interface CsvExportResult {
  file: string;
  rows: number;
  bytes: number;
}

export const BATCH = 1000;
export const BOM = '\uFEFF';

/** What every refusal of the place to write says, as writeFailure's do (folders.ts). */
const NOTHING_WRITTEN = 'Nothing was written; choose another place.';

/**
 * The place of an export checked before it starts, and again before its file is renamed into
 * place: a folder that is there, no folder of the file's name, no file unless it may be replaced.
 */
export function checkTarget(file: string, overwrite: boolean): void {
  if (!path.isAbsolute(file))
    throw new AppError('VALIDATION_ERROR', 'Choose a full path for the export.', 'file');
  let directory;
  try {
    directory = statSync(path.dirname(file));
  } catch {
    throw new AppError(
      'VALIDATION_ERROR',
      `The folder ${path.dirname(file)} does not exist. ${NOTHING_WRITTEN}`,
      'file',
    );
  }
  if (!directory.isDirectory())
    throw new AppError(
      'VALIDATION_ERROR',
      `${path.dirname(file)} is not a folder. ${NOTHING_WRITTEN}`,
      'file',
    );
  let existing;
  try {
    existing = statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    throw writeFailure(file, error); // a name too long for the file system, say
  }
  if (existing?.isDirectory())
    throw new AppError('VALIDATION_ERROR', `${file} is a folder. ${NOTHING_WRITTEN}`, 'file');
  if (existing && !overwrite)
    throw new AppError(
      'ALREADY_EXISTS',
      `${file} already exists; choose another name or replace it.`,
      'file',
    );
}

/**
 * The header, then the lines of `keys` a batch at a time (`lines` reads a batch's records; ones
 * gone or deleted since the export started are left out), each piece handed to `write`;
 * yields between batches, and stops with `cancelled` as its error once `signal` is aborted.
 */
export async function csvPieces<K>(
  options: Pick<CsvExportOptions, 'format' | 'signal' | 'onProgress'>,
  columns: readonly string[],
  keys: K[],
  lines: (batch: K[]) => string[],
  write: (text: string) => void | Promise<void>,
  cancelled: string,
): Promise<{ rows: number; bytes: number }> {
  let bytes = 0;
  const put = async (text: string) => {
    await write(text);
    bytes += Buffer.byteLength(text, 'utf8');
  };
  await put(`${columns.join(options.format.delimiter)}\r\n`);
  let written = 0;
  for (let start = 0; start < keys.length; start += BATCH) {
    if (options.signal?.aborted) throw new AppError('CANCELLED', cancelled);
    const batch = lines(keys.slice(start, start + BATCH));
    if (batch.length > 0) await put(batch.map((line) => `${line}\r\n`).join(''));
    written += batch.length;
    options.onProgress?.(written, keys.length);
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (options.signal?.aborted) throw new AppError('CANCELLED', cancelled);
  return { rows: written, bytes };
}

const CANCELLED = 'The export was cancelled; no file was written.';

/**
 * Writes the CSV (`csvPieces`, after a byte-order mark for Excel) to a temporary file beside
 * the target, synced and renamed over it when complete.
 */
export async function writeCsv<K>(
  options: CsvExportOptions,
  columns: readonly string[],
  keys: K[],
  lines: (batch: K[]) => string[],
): Promise<CsvExportResult> {
  // What an export killed here earlier left behind goes now (a day old, of our naming only).
  removeStaleTemporaries(path.dirname(options.file));
  // Followed by its handle: a failure removes it wherever it is now (temporary-file.ts).
  const temporary = openTemporaryBeside(options.file);
  try {
    temporary.write(BOM);
    const { rows, bytes } = await csvPieces(
      options,
      columns,
      keys,
      lines,
      (text) => temporary.write(text),
      CANCELLED,
    );
    await temporary.commit(options.file, () => {
      if (options.signal?.aborted) throw new AppError('CANCELLED', CANCELLED);
      checkTarget(options.file, options.overwrite ?? false);
    });
    return { file: options.file, rows, bytes: bytes + Buffer.byteLength(BOM, 'utf8') };
  } catch (error) {
    throw exportFailure(options.file, error, temporary.discard());
  }
}
