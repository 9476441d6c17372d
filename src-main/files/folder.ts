import { statSync, type Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../src-shared/errors';
import type { CacheDb } from '../store';
import { createInlineIo, type InlineIo } from './inline-io';
import { hashFile } from './fetch';
import { doneItems, MTIME_UNSEEN, recordMtimes, undoDone, type DoneItem } from './queue';

/**
 * A download's destination folder: where its `.part` files go, the paths of its files (never
 * outside it), what is already there, and whether the files a job finished are still there.
 */

export const PARTIAL_FOLDER_PREFIX = '.satchel-download-';

/** The folder of a job's `.part` files, inside its destination (one file system: atomic renames). */
export function partialFolder(destination: string, jobId: string): string {
  return path.join(destination, `${PARTIAL_FOLDER_PREFIX}${jobId}`);
}

// A separator of any system, or NUL.
// eslint-disable-next-line no-control-regex
const UNSAFE_SEGMENT = /[\\/\u0000]/;

/**
 * `relative` (slash-separated) inside `root`, or an error: never a path outside it. The queue's
 * paths are made of safe segments (file-naming.ts), so anything else (an empty or dot segment,
 * a separator of any system, a NUL) means a damaged queue and is refused rather than resolved.
 */
export function inside(root: string, relative: string): string {
  const segments = relative.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || UNSAFE_SEGMENT.test(segment))
      throw new AppError('INTERNAL', `Refused to write outside the download folder: ${relative}`);
  }
  return path.join(root, ...segments);
}

/**
 * What is already in the destination, two levels deep (files, and what is in layout folders), as
 * slash-separated paths, NFC; jobs' `.part` folders left out. Files only by default (what a run
 * finds in place, and the check of finished files); `folders`: the folders themselves too (a new
 * job's names must take no folder's name either). Safe segments never start with a dot
 * (file-naming.ts), so the `.part` folders' prefix is never a name a job gives.
 */
export async function existingFiles(
  destination: string,
  options: { folders?: boolean } = {},
): Promise<Set<string>> {
  const found = new Set<string>();
  const entries = await readdir(destination, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.name.startsWith(PARTIAL_FOLDER_PREFIX)) continue;
    if (entry.isDirectory()) {
      if (options.folders) found.add(entry.name.normalize('NFC'));
      const inner = await readdir(path.join(destination, entry.name)).catch(() => []);
      for (const name of inner) found.add(`${entry.name}/${name}`.normalize('NFC'));
    } else found.add(entry.name.normalize('NFC'));
  }
  return found;
}

/**
 * Done items whose file is no longer in the folder as the job put it there: not in `listing`
 * (removed or moved away), not a file of the record's size, or (when its time was recorded)
 * of the size but not the bytes. A `stat` each while nothing changed: reading every done file
 * again on every resume would cost a whole job's worth of reading. Only a file of the right
 * size whose modification time is not the one recorded is read again (`hashFile`): the same
 * sha256 records its new time (touched, copied back), another is changed. A file not looked at
 * since it was recorded done (MTIME_UNSEEN) has its time learned without reading it when that
 * time is no later than the record, as a file the job put there has; files an earlier version
 * recorded (no time) are checked by size only.
 * `pending`: they go back to the queue (a run about to start finds a changed file in the way
 * and fails it, never overwriting it; it fetches a removed one again; a cancelled job's
 * manifest lists them as not downloaded); `failed`: the job ends now and says why. Either way
 * a manifest written next never claims a file that is not there. Returns how many were undone.
 * What it learned is written in one transaction through `write` (a run's: only while it holds
 * the job's lease, job-lease.ts).
 */
export async function recheckDone(
  cache: CacheDb,
  jobId: string,
  destination: string,
  outcome: 'pending' | 'failed',
  listing?: Set<string>,
  io: InlineIo = createInlineIo(),
  write: <T>(write: () => T) => T = (write) => write(),
): Promise<number> {
  const items = doneItems(cache, jobId);
  if (items.length === 0) return 0;
  const found = listing ?? (await existingFiles(destination));
  const away: Array<{ fileId: string; error: string | null }> = [];
  const seen: Array<[string, number]> = [];
  for (const item of items) {
    let problem: 'removed' | 'resized' | 'rewritten' | null = null;
    if (!found.has(item.relativePath.normalize('NFC'))) problem = 'removed';
    else {
      const file = inside(destination, item.relativePath);
      const stats = await io.run<Stats | undefined>(
        () => statSync(file, { throwIfNoEntry: false }),
        () => stat(file).catch(() => undefined),
      );
      if (!stats) problem = 'removed';
      else if (!stats.isFile() || (item.size !== null && stats.size !== item.size)) problem = 'resized';
      else if (item.mtimeMs !== null) {
        const mtimeMs = Math.trunc(stats.mtimeMs);
        if (mtimeMs !== item.mtimeMs) {
          if (await sameBytes(file, item, mtimeMs)) seen.push([item.fileId, mtimeMs]);
          else problem = 'rewritten';
        }
      }
    }
    if (!problem) continue;
    const error =
      outcome === 'pending'
        ? null
        : problem === 'removed'
          ? `${item.relativePath} was removed from the folder after it was downloaded; retry to fetch it again.`
          : `${item.relativePath} was changed in the folder after it was downloaded (its ${problem === 'resized' ? 'size' : 'content'} is not the file's); move it away, then retry.`;
    away.push({ fileId: item.fileId, error });
  }
  if (seen.length > 0 || away.length > 0)
    write(() => {
      if (seen.length > 0) recordMtimes(cache, jobId, seen);
      if (away.length > 0) undoDone(cache, jobId, away);
    });
  return away.length;
}

/**
 * Whether a done file of the right size whose time is not the recorded one still holds its
 * bytes. One not looked at since it was recorded, with a time no later than the record, is the
 * file the job put there (its bytes were written before it was recorded) and is not read; a
 * record without a sha256 has nothing to compare and keeps to the size.
 */
async function sameBytes(file: string, item: DoneItem, mtimeMs: number): Promise<boolean> {
  if (item.mtimeMs === MTIME_UNSEEN && item.finishedAt !== null && mtimeMs <= Date.parse(item.finishedAt))
    return true;
  if (item.sha256 === null) return true;
  try {
    return (await hashFile(file, item.size ?? undefined)).sha256 === item.sha256.toLowerCase();
  } catch {
    return false; // unreadable now: not claimed as downloaded
  }
}
