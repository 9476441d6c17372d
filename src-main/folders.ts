import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../src-shared/errors';

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

/** The absolute folder if Satchel can write into it; otherwise an error naming the problem. */
export function checkWritableFolder(folder: string): string {
  if (!path.isAbsolute(folder))
    throw new AppError('VALIDATION_ERROR', 'Choose a folder by its full path.', 'folder');
  const absolute = path.resolve(folder);
  let isFolder = false;
  try {
    isFolder = statSync(absolute).isDirectory();
  } catch {
    throw new AppError('VALIDATION_ERROR', 'This folder does not exist; choose another.', 'folder');
  }
  if (!isFolder) throw new AppError('VALIDATION_ERROR', 'This is a file, not a folder.', 'folder');
  try {
    accessSync(absolute, constants.W_OK);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Satchel cannot write to this folder; choose another.', 'folder');
  }
  return absolute;
}

/** Remembers the last folder picked, so the dialog opens there next time. */
export function createFolderChooser(picker: FolderPicker | undefined) {
  let last: string | undefined;
  return async (title = 'Choose a folder for the downloads'): Promise<string | null> => {
    if (!picker) {
      throw new AppError(
        'INTERNAL',
        'There is no folder dialog here (command line or tests): give the folder as a path instead.',
      );
    }
    const picked = await picker({ title, ...(last ? { defaultPath: last } : {}) });
    if (picked === null) return null;
    last = checkWritableFolder(picked);
    return last;
  };
}
