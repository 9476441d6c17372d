import { randomBytes } from 'node:crypto';
import { accessSync, constants, lstatSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../src-shared/errors';
import type { FilePurpose } from '../src-shared/export';

/**
 * The folder picker for bulk downloads. The system dialog belongs to the Electron shell, which
 * hands it to the core as `pickFolder`; the core checks what comes back, so a folder Satchel
 * cannot write to is refused at once rather than after the first receipt.
 */

export interface FolderRequest {
  title: string;
  /** Where the dialog opens: the folder picked last time, if any. */
  defaultPath?: string;
}

/** Shows the system's folder dialog; null when the user cancels. */
export type FolderPicker = (request: FolderRequest) => Promise<string | null>;

/**
 * Shows a folder in the system's file manager (the shell's `shell.openPath`): resolves to an
 * empty string once it is shown, else to the system's reason.
 */
export type FolderOpener = (folder: string) => Promise<string>;

/**
 * The absolute folder if Satchel can write into it; otherwise an error naming the problem, on
 * `field` (the form's field the folder was given in).
 */
export function checkWritableFolder(folder: string, field = 'folder'): string {
  if (!path.isAbsolute(folder))
    throw new AppError('VALIDATION_ERROR', 'Choose a folder by its full path.', field);
  const absolute = path.resolve(folder);
  let isFolder = false;
  try {
    isFolder = statSync(absolute).isDirectory();
  } catch {
    throw new AppError('VALIDATION_ERROR', 'This folder does not exist; choose another.', field);
  }
  if (!isFolder) throw new AppError('VALIDATION_ERROR', 'This is a file, not a folder.', field);
  try {
    accessSync(absolute, constants.W_OK);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Satchel cannot write to this folder; choose another.', field);
  }
  return absolute;
}

/** The usual file-system failures in words. */
const REASONS: Record<string, string> = {
  EACCES: 'Satchel may not write in that folder',
  EPERM: 'Satchel may not write in that folder',
  EROFS: 'the disk is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk is full',
  EFBIG: 'the file is too large for that disk',
  ENAMETOOLONG: 'the name is too long',
  EEXIST: 'a file of that name is in the way',
  ENOTDIR: 'part of the path is a file, not a folder',
  // A folder gone while a file was written in it: its message would name the temporary file.
  ENOENT: 'the folder is no longer there (moved, deleted, or its disk removed)',
  // A USB stick or network disk pulled out part-way.
  EIO: 'the disk did not take the data (was it removed?)',
  ENXIO: 'the disk did not take the data (was it removed?)',
  ENODEV: 'the disk did not take the data (was it removed?)',
};

/** The reason of a file-system failure in words, for the usual ones. */
export function systemReason(error: NodeJS.ErrnoException): string {
  const reason = error.code === undefined ? undefined : REASONS[error.code];
  return reason ?? error.message;
}

function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return (
    !(error instanceof AppError) &&
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).syscall === 'string'
  );
}

/**
 * A file-system failure while writing `file` (an export), said so the user can act on it:
 * the reason in words for the usual ones, never the name of a temporary file. Anything else
 * (a refusal or a cancel decided before, a failure of the cache) is returned as it is.
 */
export function writeFailure(file: string, error: unknown): unknown {
  if (!isSystemError(error)) return error;
  return new AppError(
    'VALIDATION_ERROR',
    `Could not write ${file}: ${systemReason(error)}. Nothing was written; choose another place.`,
    'file',
  );
}

/**
 * The name of a temporary file beside `file`, for a write renamed over it when complete: a
 * short name of its own, as one built from the target's would pass the file system's limit
 * for a long name the target itself may have.
 */
export function temporaryBeside(file: string): string {
  return path.join(path.dirname(file), `.satchel-export-${randomBytes(4).toString('hex')}.partial`);
}

/** What temporaryBeside names its files: only such files are ever removed as leftovers. */
const TEMPORARY_NAME = /^\.satchel-export-[0-9a-f]{8}\.partial$/;

/** A temporary untouched this long is no running export's: an export writes it every moment. */
export const STALE_TEMPORARY_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the temporaries that a killed export (or a crash, a power cut) left in `folder`: files
 * of temporaryBeside's own naming, not written to for a day. Anything else, including a
 * temporary an export in another Satchel process is writing now, is left alone. Best effort:
 * never a reason for the export to fail. Returns how many were removed.
 */
export function removeStaleTemporaries(folder: string, nowMs = Date.now()): number {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!TEMPORARY_NAME.test(name)) continue;
    const file = path.join(folder, name);
    try {
      const stat = lstatSync(file);
      if (!stat.isFile() || nowMs - stat.mtimeMs < STALE_TEMPORARY_MS) continue;
      unlinkSync(file);
      removed += 1;
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}

/** A destination folder that could not be created (`mkdir -p`), with the reason in words. */
export async function createFolder(folder: string, field: string): Promise<void> {
  await mkdir(folder, { recursive: true }).catch((error: unknown) => {
    throw new AppError(
      'VALIDATION_ERROR',
      `Satchel cannot create the folder ${folder}: ${isSystemError(error) ? systemReason(error) : String(error)}.`,
      field,
    );
  });
}

/**
 * Asks for a folder; the dialog opens where the last pick was (`lastFolder`, by default the
 * last of this chooser). `onPicked` hears of every folder accepted.
 */
export function createFolderChooser(
  picker: FolderPicker | undefined,
  memory: { lastFolder?: () => string | null; onPicked?: (folder: string) => void } = {},
) {
  let last: string | undefined;
  return async (title = 'Choose a folder for the downloads'): Promise<string | null> => {
    if (!picker) {
      throw new AppError(
        'INTERNAL',
        'There is no folder dialog here (command line or tests): give the folder as a path instead.',
      );
    }
    const opensIn = memory.lastFolder ? (memory.lastFolder() ?? undefined) : last;
    const picked = await picker({ title, ...(opensIn ? { defaultPath: opensIn } : {}) });
    if (picked === null) return null;
    last = checkWritableFolder(picked);
    memory.onPicked?.(last);
    return last;
  };
}

/**
 * The file picker for exports and imports (a CSV of a search, a review file). Like the folder
 * picker, the dialog is the shell's (`pickFile`); the core decides its title and the kind of
 * file from the purpose, and checks the answer: a file to save gets its extension and must be
 * in a folder Satchel can write to, a file to open must be one it can read.
 */

export interface FileRequest {
  mode: 'save' | 'open';
  title: string;
  /** The file's extension, without the dot, and what the dialog's filter calls such files. */
  extension: string;
  kind: string;
  /** Where the dialog opens: a suggested name, in the folder of the last file picked. */
  defaultPath?: string;
}

/** Shows the system's save or open dialog; null when the user cancels. */
export type FilePicker = (request: FileRequest) => Promise<string | null>;

const FILE_PURPOSES: Record<FilePurpose, Omit<FileRequest, 'defaultPath'>> = {
  transactionsCsv: { mode: 'save', title: 'Export transactions as CSV', extension: 'csv', kind: 'CSV file' },
  expensesCsv: { mode: 'save', title: 'Export expenses as CSV', extension: 'csv', kind: 'CSV file' },
  reviewExport: {
    mode: 'save',
    title: 'Export review marks',
    extension: 'json',
    kind: 'Satchel review file',
  },
  reviewImport: {
    mode: 'open',
    title: 'Import review marks',
    extension: 'json',
    kind: 'Satchel review file',
  },
};

/** A file to write: absolute, with its extension, in a folder Satchel can write to. */
export function checkFileToSave(file: string, extension: string): string {
  if (!path.isAbsolute(file))
    throw new AppError('VALIDATION_ERROR', 'Choose a file by its full path.', 'file');
  let absolute = path.resolve(file);
  if (!absolute.toLowerCase().endsWith(`.${extension}`)) absolute = `${absolute}.${extension}`;
  const folder = path.dirname(absolute);
  try {
    if (!statSync(folder).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new AppError('VALIDATION_ERROR', 'The folder of this file does not exist; choose another.', 'file');
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Satchel cannot write to that folder; choose another.', 'file');
  }
  let isFolder = false;
  try {
    isFolder = statSync(absolute).isDirectory();
  } catch {
    // Not there yet: the usual case.
  }
  if (isFolder) throw new AppError('VALIDATION_ERROR', 'This is a folder; choose a file name.', 'file');
  return absolute;
}

/** A file to read: absolute, an existing file Satchel can read. */
export function checkFileToOpen(file: string): string {
  if (!path.isAbsolute(file))
    throw new AppError('VALIDATION_ERROR', 'Choose a file by its full path.', 'file');
  const absolute = path.resolve(file);
  let isFile = false;
  try {
    isFile = statSync(absolute).isFile();
  } catch {
    throw new AppError('VALIDATION_ERROR', 'This file does not exist; choose another.', 'file');
  }
  if (!isFile) throw new AppError('VALIDATION_ERROR', 'This is a folder, not a file.', 'file');
  try {
    accessSync(absolute, constants.R_OK);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Satchel cannot read this file; choose another.', 'file');
  }
  return absolute;
}

/**
 * Asks for a file for `purpose`; opens the next dialog in the folder of the last file picked.
 * `onPicked` hears of every file accepted, with its purpose.
 */
export function createFileChooser(
  picker: FilePicker | undefined,
  onPicked?: (purpose: FilePurpose, file: string) => void,
) {
  let lastFolder: string | undefined;
  return async (purpose: FilePurpose, suggestedName?: string): Promise<string | null> => {
    if (!picker) {
      throw new AppError(
        'INTERNAL',
        'There is no file dialog here (command line or tests): give the file as a path instead.',
      );
    }
    const request = FILE_PURPOSES[purpose];
    const name = request.mode === 'save' ? suggestedName : undefined;
    const defaultPath = name ? (lastFolder ? path.join(lastFolder, name) : name) : lastFolder;
    const picked = await picker({ ...request, ...(defaultPath ? { defaultPath } : {}) });
    if (picked === null) return null;
    const file =
      request.mode === 'save' ? checkFileToSave(picked, request.extension) : checkFileToOpen(picked);
    lastFolder = path.dirname(file);
    onPicked?.(purpose, file);
    return file;
  };
}
