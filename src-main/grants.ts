import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AppError } from '../src-shared/errors';
import type { FilePurpose } from '../src-shared/export';
import { log } from './log';
import { replaceFileSync } from './replace-file';

/**
 * The paths the page may name. The page is not trusted (docs/shell.md, "Paths the page may
 * name"): a command that writes or reads a file or a folder it names takes only one the user
 * picked in the core's own dialogs (`dialog.pickFile`, `dialog.pickFolder`), compared exactly
 * once made absolute and normalised.
 *
 * - A file is granted for the purpose it was picked for (a transactions CSV, a review to
 *   import, …) and for one use: a command that succeeds with it spends it; one that fails
 *   (the file is there and may not be replaced, the disk is full, a bad review file) gives it
 *   back, so the user can try again without picking it again.
 * - A folder is granted for downloads into exactly that folder (not one inside it: the layout
 *   makes the subfolders a download needs), for as long as the core runs. The last one is kept
 *   in `download-folder.json` in the data folder, so the next download, after a restart too,
 *   goes there without a new pick.
 *
 * Only the IPC handlers ask (src-main/handlers.ts): the command line is the user at a terminal,
 * and a stored download job's folder (resume, retry) comes from the core's own table.
 */
export interface Grants {
  /** A file the user picked for `purpose`. */
  grantFile(purpose: FilePurpose, file: string): void;
  /**
   * Runs `use` with `file` if it is granted for `purpose` (its normalised path), spending the
   * grant if `use` succeeds; refused on `field` otherwise, before anything is read or written.
   */
  useFile<T>(purpose: FilePurpose, file: string, use: (file: string) => Promise<T> | T): Promise<T>;
  /** A folder the user picked for downloads; it becomes the one remembered. */
  grantFolder(folder: string): void;
  /** The folder, normalised, if it is granted for downloads; refused on `field` otherwise. */
  checkFolder(folder: string, field?: string): string;
  /** The download folder picked last (in this run or before), while it is still a folder. */
  lastFolder(): string | null;
}

const WRITES: Record<FilePurpose, boolean> = {
  transactionsCsv: true,
  expensesCsv: true,
  reviewExport: true,
  reviewImport: false,
};

const Remembered = z.object({ version: z.literal(1), folder: z.string().min(1) });

/** The absolute, normalised form of a path; null for a relative one, which is never granted. */
function normalised(file: string): string | null {
  return path.isAbsolute(file) ? path.resolve(file) : null;
}

export function createGrants(options: { dataDir: string }): Grants {
  const rememberedFile = path.join(options.dataDir, 'download-folder.json');
  const files = new Map<FilePurpose, Set<string>>();
  const folders = new Set<string>();
  let last = readRemembered();
  if (last) folders.add(last);

  function readRemembered(): string | null {
    try {
      const parsed = Remembered.safeParse(JSON.parse(readFileSync(rememberedFile, 'utf8')));
      return parsed.success ? normalised(parsed.data.folder) : null;
    } catch {
      return null; // none yet, or damaged: the user picks one again
    }
  }

  /** Best effort: a folder that cannot be remembered is still granted for this run. */
  function remember(folder: string): void {
    try {
      replaceFileSync(rememberedFile, JSON.stringify({ version: 1, folder }));
    } catch (error) {
      log.warn('could not remember the download folder:', error);
    }
  }

  return {
    grantFile(purpose, file) {
      const absolute = normalised(file);
      if (!absolute) return;
      let granted = files.get(purpose);
      if (!granted) files.set(purpose, (granted = new Set()));
      granted.add(absolute);
    },
    async useFile(purpose, file, use) {
      const absolute = normalised(file);
      const granted = files.get(purpose);
      if (!absolute || !granted?.has(absolute)) {
        throw new AppError(
          'VALIDATION_ERROR',
          WRITES[purpose]
            ? 'Choose the file with Choose…; Satchel writes only where you picked.'
            : 'Choose the file in the open dialog; Satchel reads only a file you picked.',
          'file',
        );
      }
      // Taken while in use, so that two commands at once cannot both spend one grant.
      granted.delete(absolute);
      try {
        return await use(absolute);
      } catch (error) {
        granted.add(absolute);
        throw error;
      }
    },
    grantFolder(folder) {
      const absolute = normalised(folder);
      if (!absolute) return;
      folders.add(absolute);
      last = absolute;
      remember(absolute);
    },
    checkFolder(folder, field = 'destination') {
      const absolute = normalised(folder);
      if (!absolute || !folders.has(absolute)) {
        throw new AppError(
          'VALIDATION_ERROR',
          'Choose the folder with Choose…; Satchel writes only where you picked.',
          field,
        );
      }
      return absolute;
    },
    lastFolder() {
      if (!last) return null;
      try {
        return statSync(last).isDirectory() ? last : null;
      } catch {
        return null;
      }
    },
  };
}
