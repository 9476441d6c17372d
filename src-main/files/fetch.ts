import { createHash, type Hash } from 'node:crypto';
import { closeSync, createReadStream, openSync, writevSync } from 'node:fs';
import { copyFile, open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { AppError, KEYCHAIN_CODES } from '../../src-shared/errors';
import { RangeNotSatisfiableError, type ApiClient } from '../api/client';
import type { RawResponse } from '../api/http-fetch';
import { pooledIo, type InlineIo } from './inline-io';

/**
 * One expense file onto disk, whole or not at all: the bytes go to a temporary `.part` file,
 * which is checked against the size and sha256 of the file's record and only then renamed to
 * its final name (a rename in one folder is atomic). A `.part` left by a cut connection or a
 * kill is continued with a `Range` request (`If-Range` the file's ETag, so a file that changed
 * meanwhile comes whole); a body that fails the check is thrown away and fetched again.
 */

export interface ExpectedFile {
  id: string;
  size: number | null;
  sha256: string | null;
}

export interface FetchFileOptions {
  client: ApiClient;
  file: ExpectedFile;
  partPath: string;
  finalPath: string;
  signal?: AbortSignal;
  /**
   * Milliseconds to wait before the request may be sent (0: now). Asked by the rate governor
   * right before each attempt (a retry too) takes its permit, with nothing awaited in between,
   * so a share of the rate limit is kept exactly.
   */
  delayBeforeRequest?: () => number;
  onBytes?: (bytes: number) => void;
  /** fsync the file before the rename (the default): a power cut cannot leave a hollow file. */
  durable?: boolean;
  /** The caller knows there is no .part file to continue (saves a stat per file). */
  noPartFile?: boolean;
  /**
   * Puts the checked `.part` file in place, durably if it should be (commit.ts). Given, the
   * file is not synced here, and `placed` in the answer says when it is in place; the call
   * itself returns as soon as the file is checked. Left out: sync (when `durable`) and rename
   * here, before returning.
   */
  place?: (partPath: string, finalPath: string, bytes: number) => Promise<void>;
  /** Where a small body is written (inline-io.ts); the thread pool when left out. */
  io?: InlineIo;
  /**
   * How many times the client retries a connection reset before the answer (`fetchRaw`'s
   * `resetRetries`): 0 for a caller that makes its own attempts at the file (attempts.ts), 1
   * for a preview. The client's own count when left out.
   */
  resetRetries?: number;
  /**
   * How many times the client retries any failure without a usable answer (no answer, a
   * time-out, a reset, a 5xx), and the longest `Retry-After` of a 5xx it waits for
   * (`fetchRaw`'s `retries` and `maxServerWaitMs`): a preview's two attempts. The client's own
   * when left out.
   */
  retries?: number;
  maxServerWaitMs?: number;
  /**
   * How long the client waits for the answer to begin (`fetchRaw`'s `firstByteTimeoutMs`); the
   * body keeps the client's silence time-out. A preview's shorter wait; the client's own when
   * left out.
   */
  firstByteTimeoutMs?: number;
  /**
   * Called before each write to the `.part` file (its creation, each piece of the body, its
   * removal) and before it is renamed or handed to `place`; throws to stop the fetch with
   * nothing more written: a bulk download or a fill whose lease another process took over
   * (row-lease.ts `check`), whose run may be writing the same `.part` file now.
   */
  fence?: () => void;
}

/** The options of `fetchRaw` that say how far the client retries and waits for the file's request. */
function retryLimits(options: FetchFileOptions) {
  const { resetRetries, retries, maxServerWaitMs, firstByteTimeoutMs } = options;
  return {
    ...(resetRetries === undefined ? {} : { resetRetries }),
    ...(retries === undefined ? {} : { retries }),
    ...(maxServerWaitMs === undefined ? {} : { maxServerWaitMs }),
    ...(firstByteTimeoutMs === undefined ? {} : { firstByteTimeoutMs }),
  };
}

/** Bodies up to this size are checked in memory before they are written. */
const IN_MEMORY_BYTES = 1024 * 1024;

export interface FetchFileResult {
  bytes: number;
  /** Bytes of an earlier attempt the download continued from. */
  resumedFrom: number;
  /** Settles when the file is in place under its final name (at once without `place`). */
  placed: Promise<void>;
}

/**
 * The connection broke while the body arrived: continue with a Range request. Not `OFFLINE`:
 * the API answered, and the network may well be up (a reset, a proxy cutting the body).
 */
export class TransferError extends AppError {
  /** What happened, without what happens next (the file's reason once it is given up on). */
  readonly problem: string;
  constructor(problem: string) {
    super('BROKEN_OFF', `${problem}; it is retried from where it stopped.`);
    this.problem = problem;
  }
}

/** The file arrived, but not as its record says: fetch it again. */
export class IntegrityError extends AppError {
  /** What happened, without what happens next (the file's reason once it is given up on). */
  readonly problem: string;
  constructor(problem: string) {
    super('BAD_RESPONSE', `${problem}; it will be fetched again.`);
    this.problem = problem;
  }
}

/**
 * Failures that concern every file rather than one: no network, credentials refused or not to
 * be read from the keychain (none answering, locked). A download stops at the first of them,
 * and so does filling the offline cache, instead of failing file after file the same way.
 */
const EVERY_FILE = new Set<AppError['code']>([
  'OFFLINE',
  'TIMEOUT',
  'AUTH_FAILED',
  'FORBIDDEN',
  ...KEYCHAIN_CODES,
]);
export function stopsEveryFile(error: unknown): boolean {
  return (
    error instanceof AppError &&
    !(error instanceof IntegrityError) &&
    !(error instanceof TransferError) && // one file's body cut or damaged
    EVERY_FILE.has(error.code)
  );
}

/** Files up to this size are hashed from one read rather than streamed. */
const READ_WHOLE_BYTES = 1024 * 1024;

/**
 * The size and sha256 of the bytes at `file`. A file of up to 1 MiB (by `size`, its size
 * known to the caller, else a `stat`) is read in one call: a stream costs several round trips
 * to the thread pool, about 250 µs for a 615-byte receipt. Larger files are streamed.
 */
export async function hashFile(file: string, size?: number): Promise<{ size: number; sha256: string }> {
  if ((size ?? (await stat(file)).size) <= READ_WHOLE_BYTES) {
    const bytes = await readFile(file);
    return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  const hash = createHash('sha256');
  let read = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    read += (chunk as Buffer).length;
  }
  return { size: read, sha256: hash.digest('hex') };
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

async function hashInto(hash: Hash, file: string): Promise<void> {
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
}

/**
 * Whether the bytes at `file` are the expected file (size and, when known, sha256). The size
 * is looked at first: a file of another size, or anything but a plain file (a folder, a named
 * pipe, which a read would wait on for ever), is never read.
 */
export async function matches(file: string, expected: ExpectedFile): Promise<boolean> {
  try {
    const stats = await stat(file);
    if (!stats.isFile() || (expected.size !== null && stats.size !== expected.size)) return false;
    if (expected.sha256 === null) return true;
    const found = await hashFile(file, stats.size);
    return (
      (expected.size === null || found.size === expected.size) &&
      found.sha256 === expected.sha256.toLowerCase()
    );
  } catch {
    return false;
  }
}

function check(expected: ExpectedFile, size: number, sha256: string): void {
  if (expected.size !== null && size !== expected.size)
    throw new IntegrityError(`File ${expected.id} arrived with ${size} of its ${expected.size} bytes`);
  if (expected.sha256 !== null && sha256 !== expected.sha256.toLowerCase())
    throw new IntegrityError(`File ${expected.id} arrived damaged (its sha256 does not match)`);
}

/** `check`, and the `.part` file removed when it fails: damaged bytes are never continued. */
async function checkOrRemove(
  expected: ExpectedFile,
  size: number,
  sha256: string,
  partPath: string,
  fence: Latch,
) {
  try {
    check(expected, size, sha256);
  } catch (error) {
    fence.check();
    await rm(partPath, { force: true });
    throw error;
  }
}

/**
 * The caller's fence (`FetchFileOptions.fence`) as a fetch uses it: once it has thrown, every
 * later check throws the same error, and that is what the fetch throws, whatever else then
 * fails. An object rather than a closure per fetch: under tsx (the command line, the bench)
 * every function made per file is also named as it is made, at more than a microsecond each.
 */
class Latch {
  thrown: unknown = null;
  constructor(private readonly fence: (() => void) | undefined) {}

  check(): void {
    if (this.thrown) throw this.thrown;
    try {
      this.fence?.();
    } catch (error) {
      this.thrown = error;
      throw error;
    }
  }
}

/** A short write is an error here, never a file that merely looks complete. */
function shortWrite(file: string, written: number, bytes: number): Error {
  return new Error(`only ${written} of ${bytes} bytes of ${file} were written`);
}

/** `writeSmall` in the thread pool. */
async function writePooled(
  file: string,
  chunks: Uint8Array[],
  bytes: number,
  append: boolean,
  durable: boolean,
): Promise<void> {
  const handle = await open(file, append ? 'a' : 'w');
  try {
    const { bytesWritten } = await handle.writev(chunks);
    if (bytesWritten !== bytes) throw shortWrite(file, bytesWritten, bytes);
    if (durable) await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** `writeSmall` on the main thread. */
function writeInline(file: string, chunks: Uint8Array[], bytes: number, append: boolean): void {
  const fd = openSync(file, append ? 'a' : 'w');
  try {
    const written = writevSync(fd, chunks);
    if (written !== bytes) throw shortWrite(file, written, bytes);
  } finally {
    closeSync(fd);
  }
}

/** Bodies up to this size may be written on the main thread (see writeSmall). */
const WRITE_ON_MAIN_BYTES = 64 * 1024;

/**
 * A small, already checked body onto disk in one write. Created, written and closed on the
 * main thread while `io` finds such calls cheap (inline-io.ts: each hop to the thread pool
 * and back costs more than writing a receipt to a local disk), else in the thread pool, as
 * is anything to be synced here.
 */
async function writeSmall(
  file: string,
  chunks: Uint8Array[],
  append: boolean,
  durable: boolean,
  io: InlineIo,
): Promise<void> {
  let bytes = 0;
  for (const chunk of chunks) bytes += chunk.byteLength;
  if (durable || bytes > WRITE_ON_MAIN_BYTES) return writePooled(file, chunks, bytes, append, durable);
  return io.run(
    () => writeInline(file, chunks, bytes, append),
    () => writePooled(file, chunks, bytes, append, false),
  );
}

/** The whole file's content, with no Range: the one request after a 416 (see fetchFile). */
function wholeFile(options: FetchFileOptions): Promise<RawResponse> {
  const { client, file, signal, delayBeforeRequest } = options;
  return client.fetchRaw(`/v1/files/${encodeURIComponent(file.id)}/content`, {
    headers: { accept: '*/*' },
    ...(signal ? { signal } : {}),
    ...(delayBeforeRequest ? { holdBack: delayBeforeRequest } : {}),
    ...retryLimits(options),
  });
}

/** Fetches (or continues fetching) the file, checks it and renames it into place. */
export async function fetchFile(options: FetchFileOptions): Promise<FetchFileResult> {
  const { client, file, partPath, finalPath, signal } = options;
  // Once the fence has thrown, that is what the fetch throws, whatever else then fails.
  const fence = new Latch(options.fence);
  // Durability is the placer's when there is one; otherwise each file is synced here.
  const durable = options.place ? false : (options.durable ?? true);
  let have = options.noPartFile ? 0 : await sizeOf(partPath);
  if (file.size !== null && have > file.size) {
    fence.check();
    await rm(partPath, { force: true });
    have = 0;
  }
  // The bytes of an earlier attempt, hashed (a fresh file gets its hash with its answer).
  let hash: Hash | null = null;
  if (have > 0) {
    hash = createHash('sha256');
    await hashInto(hash, partPath);
  }
  let resumedFrom = have;
  let received = 0;

  if (file.size === null || have < file.size) {
    const headers: Record<string, string> = { accept: '*/*' };
    if (have > 0) {
      headers['range'] = `bytes=${have}-`;
      if (file.sha256) headers['if-range'] = `"${file.sha256.toLowerCase()}"`;
    }
    // The governor asks the delay before each attempt's permit, retries included, and takes the
    // permit with nothing awaited in between: the share is kept exactly.
    let response: RawResponse;
    try {
      response = await client.fetchRaw(`/v1/files/${encodeURIComponent(file.id)}/content`, {
        headers,
        ...(signal ? { signal } : {}),
        ...(options.delayBeforeRequest ? { holdBack: options.delayBeforeRequest } : {}),
        ...retryLimits(options),
      });
    } catch (error) {
      if (have === 0 || !(error instanceof RangeNotSatisfiableError)) throw error;
      // The .part reaches past the file's end: not its start (a record without size or sha256
      // gives no size to compare and no ETag for If-Range). Every retry would ask the same
      // range, so its bytes go and the whole file is fetched, in this attempt.
      fence.check();
      await rm(partPath, { force: true });
      have = 0;
      resumedFrom = 0;
      hash = null;
      response = await wholeFile(options);
    }
    let append = false;
    if (response.status === 206 && have > 0) {
      const start = /^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1];
      if (Number(start) !== have) {
        await response.body?.cancel();
        fence.check();
        await rm(partPath, { force: true });
        throw new IntegrityError(`File ${file.id} resumed at the wrong place`);
      }
      append = true;
    }
    // Otherwise the whole file came back (a changed file, a server without ranges): start over.
    const digest = append && hash ? hash : createHash('sha256');
    // Small bodies are kept in memory and written once they are whole: fewer system calls per
    // file. Large ones, and anything cut off midway, go to the .part file as they arrive.
    const length = Number(response.headers.get('content-length') ?? NaN);
    let memory: Uint8Array[] | null = Number.isFinite(length) && length <= IN_MEMORY_BYTES ? [] : null;
    let handle: FileHandle | null = null;
    if (!memory) {
      try {
        fence.check();
        handle = await open(partPath, append ? 'a' : 'w');
      } catch (error) {
        await response.body?.cancel().catch(() => undefined);
        throw error;
      }
    }
    try {
      try {
        if (response.body) {
          for await (const chunk of response.body) {
            if (memory) memory.push(chunk);
            else {
              fence.check();
              await handle!.write(chunk);
            }
            digest.update(chunk);
            received += chunk.length;
            options.onBytes?.(chunk.length);
          }
        }
      } catch (error) {
        if (fence.thrown) throw fence.thrown;
        if (signal?.aborted) throw new AppError('CANCELLED', 'The download was stopped.');
        // Cut off mid-body: what arrived is kept in the .part file for a Range request.
        if (memory) {
          fence.check();
          handle = await open(partPath, append ? 'a' : 'w');
          for (const chunk of memory) {
            fence.check();
            await handle.write(chunk);
          }
          memory = null;
        }
        throw new TransferError(
          `The download of file ${file.id} broke off (${error instanceof Error ? error.message : String(error)})`,
        );
      }
      if (memory) {
        // Checked before anything touches the disk: damaged bytes are never written.
        await checkOrRemove(file, (append ? have : 0) + received, digest.digest('hex'), partPath, fence);
        fence.check();
        await writeSmall(partPath, memory, append, durable, options.io ?? pooledIo);
      } else if (durable) await handle!.sync();
    } finally {
      await (handle as FileHandle | null)?.close();
    }
    if (!memory)
      await checkOrRemove(file, (append ? have : 0) + received, digest.digest('hex'), partPath, fence);
  } else {
    await checkOrRemove(file, have, (hash ?? createHash('sha256')).digest('hex'), partPath, fence);
    // An empty file (size 0) has nothing to fetch, but is a file all the same: the .part it is
    // renamed or placed from is made here, as no answer wrote it.
    if (have === 0) {
      fence.check();
      await writeSmall(partPath, [], false, durable, options.io ?? pooledIo);
    }
  }
  fence.check();
  if (options.place)
    return {
      bytes: received,
      resumedFrom,
      placed: options.place(partPath, finalPath, file.size ?? received),
    };
  // Same file system, so atomic. Off the main thread: a rename costs a fifth of a millisecond
  // of system time on some file systems, which would hold up every other request in flight.
  await rename(partPath, finalPath);
  return { bytes: received, resumedFrom, placed: Promise.resolve() };
}

/**
 * A copy from the offline cache, through a `.part` file and the same check. `fence` as
 * fetchFile's: called before each write, rename and removal; what it throws is thrown.
 */
export async function copyVerified(
  source: string,
  partPath: string,
  finalPath: string,
  expected: ExpectedFile,
  fence: () => void = () => undefined,
): Promise<boolean> {
  let fenced: unknown = null;
  const guarded = () => {
    try {
      fence();
    } catch (error) {
      fenced = error;
      throw error;
    }
  };
  try {
    guarded();
    await copyFile(source, partPath);
    if (!(await matches(partPath, expected))) {
      guarded();
      await rm(partPath, { force: true });
      return false;
    }
    guarded();
    await rename(partPath, finalPath);
    return true;
  } catch {
    if (fenced) throw fenced;
    guarded();
    await rm(partPath, { force: true });
    return false;
  }
}
