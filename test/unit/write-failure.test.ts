import { closeSync, openSync, readSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFailure } from '../../src-main/folders';
import { exportFailure, FolderMoved } from '../../src-main/temporary-file';
import { AppError } from '../../src-shared/errors';

// What an export says when its folder or its disk goes away part-way, from the errors the
// system really raises (no stand-ins): in words, never with the system's code or the name of
// the temporary file the export was writing.

/** The error a call raises. */
function raised(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('an export whose place goes away', () => {
  const folder = path.join(tmpdir(), `satchel-gone-${process.pid}-${Date.now()}`);
  const target = path.join(folder, 'Transactions.csv');
  const temporary = path.join(folder, '.satchel-export-0a1b2c3d.partial');

  it('says the folder is no longer there when it went between the checks and the write', () => {
    for (const error of [
      raised(() => openSync(temporary, 'wx')),
      raised(() => renameSync(temporary, target)),
    ]) {
      const message = (writeFailure(target, error) as Error).message;
      expect(message).toBe(
        `Could not write ${target}: the folder is no longer there (moved, deleted, or its disk removed). Nothing was written; choose another place.`,
      );
    }
  });

  it('says the disk did not take the data when it fails underneath (a USB stick pulled out)', () => {
    // Reading an unmapped address of the process's own memory is the system's I/O error.
    const fd = openSync('/proc/self/mem', 'r');
    const error = raised(() => readSync(fd, Buffer.alloc(1), 0, 1, 0));
    closeSync(fd);
    expect(error).toMatchObject({ code: 'EIO' });
    const message = (writeFailure(target, error) as Error).message;
    expect(message).toBe(
      `Could not write ${target}: the disk did not take the data (was it removed?). Nothing was written; choose another place.`,
    );
    expect(message).not.toMatch(/EIO|\.partial/);
  });

  it('names the unfinished file left in a moved folder when the system does not say where it went', () => {
    // As on macOS: the temporary's handle says it is still there, not where.
    const left = {
      at: 'moved',
      file: null,
      removed: false,
      name: '.satchel-export-0a1b2c3d.partial',
    } as const;
    expect((exportFailure(target, new FolderMoved(left), left) as Error).message).toBe(
      `Could not write ${target}: its folder was moved while the export was written. Nothing was written; export again to where the folder is now, or choose another place. The unfinished file .satchel-export-0a1b2c3d.partial stays in that folder, where it is now: delete it.`,
    );
    // A cancel stays a cancel, and says so too.
    const cancelled = exportFailure(
      target,
      new AppError('CANCELLED', 'The export was cancelled; no file was written.'),
      left,
    );
    expect(cancelled).toMatchObject({
      code: 'CANCELLED',
      message:
        'The export was cancelled; no file was written. The unfinished file .satchel-export-0a1b2c3d.partial stays in that folder, where it is now: delete it.',
    });
  });
});
