import {
  closeSync,
  fstatSync,
  fsync,
  lstatSync,
  openSync,
  readlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../src-shared/errors';
import { temporaryBeside, writeFailure } from './folders';

/**
 * The temporary file an export writes beside its target and renames over it when complete,
 * followed by its open handle rather than by its name: the folder may be moved or renamed
 * while a long export writes (the handle still writes into it, wherever it went), or deleted,
 * or its disk removed.
 *
 * Before, a failed export removed its temporary by the name it was made under; in a folder
 * moved part-way that name no longer led to it, and the temporary stayed in the moved folder
 * until a later export there removed it as a day-old leftover. Now a failed export finds its
 * temporary through the handle and removes it where it is: on Linux through
 * /proc/self/fd, checked to be the same file (device and inode) before it is removed. Where the
 * system does not say where an open file now is (macOS; Windows does not let a folder with an
 * open file in it be moved), the message names the file left in the moved folder. A folder
 * deleted takes the temporary with it; a disk removed keeps it (the next export into that
 * folder removes it once a day old, folders.ts).
 */

/** Where a temporary file is now, as its handle says. */
export type Whereabouts =
  /** Where it was made: its folder is in place. */
  | { at: 'made' }
  /** Its folder was moved or renamed; `file` is where the temporary is now, when known. */
  | { at: 'moved'; file: string | null }
  /** Deleted, with its folder or alone: nothing of it is left to remove. */
  | { at: 'gone' }
  /** The system could not say (a disk that no longer answers). */
  | { at: 'unknown' };

/** What became of a temporary file discarded, and its name (the same wherever it went). */
export type Left = Whereabouts & { removed: boolean; name: string };

export interface TemporaryFile {
  /** The name it was made under, beside the target. */
  readonly file: string;
  readonly fd: number;
  /** Writes all of `text` at the end, or fails (a write may take only part without failing). */
  write(text: string): void;
  /** Where it is now. */
  where(): Whereabouts;
  /**
   * On the disk, then renamed over `target`, then closed. Refused (a FolderMoved error) when
   * its folder has moved or gone since it was made: the target would not be where it was asked
   * for; `beforeRename` may refuse it too, last. The fsync and the rename run on libuv's thread
   * pool, the event loop free meanwhile: the fsync of a large file on a slow disk (a USB stick,
   * a network share) can take seconds, and held the app's thread, every IPC answer with it.
   */
  commit(target: string, beforeRename?: () => void): Promise<void>;
  /** Closed and removed wherever it is now, when it can be; says what became of it. Never throws. */
  discard(): Left;
}

/** An export refused at the end because its folder moved or went meanwhile. */
export class FolderMoved extends Error {
  constructor(readonly whereabouts: Whereabouts) {
    super('the folder of the export moved or went while it was written');
    this.name = 'FolderMoved';
  }
}

const sameFile = (stat: Stats, file: string): boolean => {
  try {
    const other = lstatSync(file);
    return other.ino === stat.ino && other.dev === stat.dev;
  } catch {
    return false;
  }
};

/** Where the open file `fd` is now, on a system that says so (Linux); null elsewhere. */
function currentName(fd: number, stat: Stats): string | null {
  try {
    const name = readlinkSync(`/proc/self/fd/${fd}`);
    return path.isAbsolute(name) && sameFile(stat, name) ? name : null;
  } catch {
    return null;
  }
}

/**
 * Creates a temporary file beside `target` (temporaryBeside's name), open for writing. A
 * failure to create it is the export's write failure in words (writeFailure).
 */
export function openTemporaryBeside(target: string): TemporaryFile {
  const file = temporaryBeside(target);
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    throw writeFailure(target, error);
  }
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    try {
      closeSync(fd);
    } catch {
      // Closed by the system already (a disk gone): nothing more to release.
    }
  };
  const where = (): Whereabouts => {
    let stat: Stats;
    try {
      stat = fstatSync(fd);
    } catch {
      return { at: 'unknown' };
    }
    if (stat.nlink === 0) return { at: 'gone' };
    if (sameFile(stat, file)) return { at: 'made' };
    return { at: 'moved', file: currentName(fd, stat) };
  };
  return {
    file,
    fd,
    write(text) {
      const buffer = Buffer.from(text, 'utf8');
      for (let done = 0; done < buffer.length;) {
        const taken = writeSyncAll(fd, buffer, done);
        done += taken;
      }
    },
    where,
    async commit(destination, beforeRename) {
      await fsyncOnPool(fd);
      const now = where();
      if (now.at === 'moved' || now.at === 'gone') throw new FolderMoved(now);
      beforeRename?.();
      await rename(file, destination);
      close();
    },
    discard() {
      // Closed, it was renamed into place (or is named as it was made): only that name is left.
      const now = open ? where() : ({ at: 'made' } as const);
      let removed = false;
      const remove = (name: string) => {
        try {
          unlinkSync(name);
          removed = true;
        } catch {
          // Gone already, or the disk no longer answers.
        }
      };
      if (now.at === 'made' || now.at === 'unknown') remove(file);
      else if (now.at === 'moved' && now.file !== null) remove(now.file);
      close();
      return { ...now, removed, name: path.basename(file) };
    },
  };
}

/** fsync on libuv's thread pool (fsync as called now: a test may watch it). */
const fsyncOnPool = (fd: number) =>
  new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));

/** One write of what is left from `offset`; a write that takes nothing is a full disk. */
function writeSyncAll(fd: number, buffer: Buffer, offset: number): number {
  const taken = writeSync(fd, buffer, offset);
  if (taken <= 0) throw Object.assign(new Error('no space left'), { code: 'ENOSPC', syscall: 'write' });
  return taken;
}

/**
 * An export's failure as the user reads it, now that its temporary file is discarded (`left`):
 * a folder moved part-way says so, and where the unfinished file stayed if it could not be
 * removed; otherwise writeFailure's words. A cancel stays a cancel.
 */
export function exportFailure(target: string, error: unknown, left: Left): unknown {
  const stayed =
    left.at === 'moved' && !left.removed
      ? ` The unfinished file ${left.name} stays in that folder, where it is now: delete it.`
      : '';
  if (error instanceof AppError && error.code === 'CANCELLED')
    return stayed ? new AppError('CANCELLED', `${error.message}${stayed}`) : error;
  if (left.at === 'moved') {
    const movedTo = left.file ? ` to ${path.dirname(left.file)}` : '';
    return new AppError(
      'VALIDATION_ERROR',
      `Could not write ${target}: its folder was moved${movedTo} while the export was written. Nothing was written${
        left.removed ? ' (the unfinished file was removed from there)' : ''
      }; export again to where the folder is now, or choose another place.${stayed}`,
      'file',
    );
  }
  if (left.at === 'gone' && (error instanceof FolderMoved || isNoEntry(error)))
    return new AppError(
      'VALIDATION_ERROR',
      `Could not write ${target}: the folder is no longer there (moved, deleted, or its disk removed). Nothing was written; choose another place.`,
      'file',
    );
  return writeFailure(target, error);
}

const isNoEntry = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
