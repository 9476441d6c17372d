import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError } from '../../src-shared/errors';
import { log } from '../log';
import { CHECK_SLICE, ReviewImportError, startCheck, unreadable, type ReviewImportFailure } from './check';
import type { ExportedMark, ReviewFile } from './format';

/**
 * readReviewFile for the app and the command line, away from the app's thread. The check of
 * the marks already ran in slices here, but reading, decoding and JSON.parse of a colleague's
 * 100,000 marks (67 MB) still held the app's thread for about half a second in one piece, and
 * with it every IPC answer. Now a thread of its own (check-thread.ts) reads, parses and checks
 * the file, reporting after each slice of marks, and hands the checked marks over a slice of
 * SEND_SLICE at a time, this thread's event loop free between two slices. The verdict is
 * check.ts's, word for word: the same marks, or the same ReviewImportError.
 *
 * A thread that cannot start (a build without its script) leaves the work to this thread, as
 * before: reading off the thread, the parse in one go, the marks checked in slices.
 */

export interface SlicedCheckOptions {
  /** Marks checked between two progress reports. Default CHECK_SLICE. */
  sliceSize?: number;
  /** After each slice: marks checked so far, and how many the file has. */
  onProgress?: (done: number, total: number) => void;
  /**
   * The thread's built script (the app passes electron-vite's `check-thread.js`). Without
   * one, the TypeScript source next to this file, loaded through tsx: the CLI and the tests
   * run from source.
   */
  script?: string;
  /**
   * Once aborted, it rejects at once with a CANCELLED error saying that nothing was changed,
   * and ends the thread wherever it is (reading, parsing or checking a slice): the check only
   * reads the file, so there is nothing to undo. Without a thread, it stops at its next slice.
   */
  signal?: AbortSignal;
}

/**
 * Checked marks handed over in one message, as JSON: parsing 1,000 marks with every facet
 * (450 KB) holds this thread about 3.5 ms, where taking them in as cloned objects took 5–8 ms.
 */
export const SEND_SLICE = 1000;

export interface CheckThreadData {
  file: string;
  sliceSize: number;
  sendSize: number;
}

/** What the check thread says, in this order; after each but `started` it waits for `next`. */
export type CheckMessage =
  | { kind: 'started' }
  | { kind: 'progress'; done: number; total: number }
  | { kind: 'checked'; fields: Omit<ReviewFile, 'marks'>; total: number }
  | { kind: 'marks'; json: string }
  | { kind: 'end' }
  | {
      kind: 'failed';
      code: ReviewImportFailure;
      message: string;
      cause?: { name: string; message: string; code?: string };
    }
  | { kind: 'crashed'; message: string };

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function readReviewFileInSlices(
  file: string,
  { sliceSize = CHECK_SLICE, onProgress, script, signal }: SlicedCheckOptions = {},
): Promise<ReviewFile> {
  if (signal?.aborted) throw checkCancelled();
  const data: CheckThreadData = { file, sliceSize, sendSize: SEND_SLICE };
  let worker: Worker;
  try {
    worker = spawn(script, data);
  } catch (error) {
    log.warn('the review file check thread could not start; checking in the app thread:', error);
    return readHere(file, sliceSize, onProgress, signal);
  }
  const started = { value: false };
  // Stopped, it answers at once: not at the thread's next message, which may be a second or
  // two away on a large file (its parse, or a slice of its check), while the window says
  // "Stopping…". The thread is ended below, whatever it was doing.
  let stopped: (() => void) | undefined;
  const onAbort = () => stopped?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await new Promise<ReviewFile>((resolve, reject) => {
      let fields: Omit<ReviewFile, 'marks'> | undefined;
      const marks: ExportedMark[] = [];
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        outcome();
      };
      stopped = () => settle(() => reject(checkCancelled()));
      const answer = async () => {
        await nextTurn();
        if (!settled) worker.postMessage('next');
      };
      worker.on('message', (message: CheckMessage) => {
        // Nothing the thread said after the answer (a stop) counts: no progress after it.
        if (settled) return;
        try {
          switch (message.kind) {
            case 'started':
              started.value = true;
              return;
            case 'progress':
              onProgress?.(message.done, message.total);
              break;
            case 'checked':
              fields = message.fields;
              break;
            case 'marks':
              for (const mark of JSON.parse(message.json) as ExportedMark[]) marks.push(mark);
              break;
            case 'end':
              if (!fields) throw new Error('the review file check thread ended before its verdict');
              settle(() => resolve({ ...fields!, marks }));
              return;
            case 'failed':
              settle(() => reject(importError(message)));
              return;
            case 'crashed':
              settle(() => reject(new Error(message.message)));
              return;
          }
        } catch (error) {
          settle(() => reject(error));
          return;
        }
        void answer();
      });
      worker.on('error', (error) => settle(() => reject(error)));
      worker.on('exit', () =>
        settle(() => reject(new Error('the review file check thread stopped before its verdict'))),
      );
    });
  } catch (error) {
    if (started.value || error instanceof ReviewImportError || error instanceof AppError) throw error;
    log.warn('the review file check thread could not start; checking in the app thread:', error);
    return readHere(file, sliceSize, onProgress, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}

/** What an import stopped (Ctrl+C on the command line) before its first change says. */
export const CHECK_CANCELLED = 'The import was interrupted while the file was checked; nothing was changed.';

const checkCancelled = () => new AppError('CANCELLED', CHECK_CANCELLED);

/** The thread's failure as check.ts threw it, its cause (the system's or the parser's words) kept. */
function importError(message: Extract<CheckMessage, { kind: 'failed' }>): ReviewImportError {
  if (!message.cause) return new ReviewImportError(message.code, message.message);
  const cause = Object.assign(new Error(message.cause.message), {
    name: message.cause.name,
    ...(message.cause.code === undefined ? {} : { code: message.cause.code }),
  });
  return new ReviewImportError(message.code, message.message, { cause });
}

/** The thread: the built script as is, or the TypeScript source through tsx's loader. */
function spawn(script: string | undefined, data: CheckThreadData): Worker {
  if (script) return new Worker(script, { workerData: data });
  const here = path.dirname(fileURLToPath(import.meta.url));
  const source = pathToFileURL(path.join(here, 'check-thread.ts')).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(boot, { eval: true, workerData: data });
}

/** The same in this thread: the file read off it, parsed in one go, its marks checked in slices. */
async function readHere(
  file: string,
  sliceSize: number,
  onProgress: SlicedCheckOptions['onProgress'],
  signal: AbortSignal | undefined,
): Promise<ReviewFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw checkCancelled();
    throw unreadable(file, error);
  }
  const check = startCheck(file, bytes);
  for (let from = 0; from < check.total; from += sliceSize) {
    await nextTurn();
    if (signal?.aborted) throw checkCancelled();
    const to = Math.min(check.total, from + sliceSize);
    check.marks(from, to);
    onProgress?.(to, check.total);
  }
  return check.finish();
}
