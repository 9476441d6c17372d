import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/**
 * Writes `text` over `file` through a temporary file beside it, on the disk before it
 * replaces the old one: a crash, a power cut or a full disk leaves either version, whole.
 * A failure removes the temporary file where it can and is thrown as it came; the caller says
 * it in its own words.
 */
export function replaceFileSync(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(temporary, 'w');
    try {
      const bytes = Buffer.from(text);
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Not ours to remove (a folder in the way): the caller's message says what failed.
    }
    throw error;
  }
}
