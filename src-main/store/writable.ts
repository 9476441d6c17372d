import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Why an offline copy cannot be written, found before anything is written to it: the data folder
 * on a read-only disk or share, a file or folder whose owner or permissions changed (restored
 * from a backup as another user), an immutable file. Without this the copy opened as usual and
 * the first write failed — a sync after its first page, an edit or a review mark after the user
 * typed it.
 */
export interface WriteProblem {
  /** What cannot be written and why, in words: "the folder /x is on a read-only disk or share". */
  why: string;
  /** The file or folder at fault: what the user makes writable again. */
  where: string;
}

/**
 * The first of `targets` that cannot be written, asking the operating system (`access(W_OK)`),
 * which answers for this process as a write would: a read-only mount says EROFS and an immutable
 * file EPERM even to root, who is otherwise allowed everything. A target that does not exist yet
 * is judged by the nearest folder above it that does (where it would be made). Null: all can be
 * written.
 */
export function writeProblem(targets: readonly string[]): WriteProblem | null {
  for (const target of targets) {
    let where = path.resolve(target);
    while (!existsSync(where)) {
      const up = path.dirname(where);
      if (up === where) break;
      where = up;
    }
    try {
      accessSync(where, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      const what = `${statSync(where).isDirectory() ? 'the folder' : 'the file'} ${where}`;
      return {
        where,
        why:
          code === 'EROFS'
            ? `${what} is on a read-only disk or share`
            : `Satchel may not write to ${what} (its permissions or owner changed, or it is locked)`,
      };
    }
  }
  return null;
}

/**
 * Whether a write through a descriptor already open on `file` is refused now, found without
 * writing: the file's immutable flag (`chattr +i`), which `access(W_OK)` reports as EPERM, to
 * root too, and which ext4 enforces on open descriptors as well (Linux 5.4 on). A read-only
 * mount put over the file's folder (EROFS) or changed permissions (EACCES) also fail `access` but
 * leave an open descriptor writable, so they are not counted; nor is a file that is not there.
 * One `access` call: a few microseconds.
 */
export function refusesOpenWrites(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
