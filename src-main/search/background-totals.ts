import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError, type AppErrorShape } from '../../src-shared/errors';
import type { ExpenseFilters, ReviewTarget, SearchTotals, TransactionFilters } from '../../src-shared/search';
import { log } from '../log';
import type { ThreadAsk, ThreadValue } from './thread-asks';

/**
 * The totals of transaction searches, the counts of expense searches and the rows a bulk
 * review change works through, counted in a thread of their own (totals-thread.ts; the
 * questions and their answers in thread-asks.ts) instead of the app's. On a million rows some
 * totals take a second (the unreviewed rows, common text: docs/search-and-review.md), listing
 * a bulk change's 283,292 rows 0.3–0.5 s, and with 43,000 expenses a count of one or two
 * common letters 100–190 ms; in the app's thread they held up every IPC answer meanwhile —
 * the next page, the next keystroke's first page, the sync's progress. In the thread they
 * hold up only each other: one is answered at a time, the most recently asked first.
 *
 * One thread per organisation, started at its first request and stopped after `idleMs`
 * without one (it holds SQLite's page cache and the gram bitmaps, tens of MB on a large
 * cache). A thread that cannot start (a build without its script) or that dies leaves the
 * counting to `fallback` in the caller's thread: slower for the app, never a missing answer.
 */

export interface TotalsThreadData {
  file: string;
}

export interface TotalsRequest {
  id: number;
  ask: ThreadAsk;
}

export type TotalsAnswer =
  | { ready: true }
  | { id: number; value: ThreadValue }
  | { id: number; error: (AppErrorShape & { app: true }) | { message: string; app: false } };

export interface BackgroundTotals {
  /** Count and per-currency sums of the filters' rows, as `transactionTotals` gives them. */
  totals(filters: TransactionFilters): Promise<SearchTotals>;
  /** How many expenses the filters find, as `expenseCount` gives it. */
  expenseCount(filters: ExpenseFilters): Promise<number>;
  /** The rowids a bulk review change of a whole search result works through (review/slices.ts). */
  reviewRows(target: Exclude<ReviewTarget, { by: 'ids' }>): Promise<Float64Array>;
  /** Stops the thread; unanswered requests fail with CANCELLED. Later requests start it again. */
  close(): Promise<void>;
  /** Whether a thread is running now (started, and not stopped or failed since). */
  readonly running: boolean;
}

export interface BackgroundTotalsOptions {
  /** The organisation's cache file, opened (and migrated) by the app before. */
  file: string;
  /** The same answer in the caller's thread (`answerAsk` of thread-asks.ts), for when no thread gives it. */
  fallback: (ask: ThreadAsk) => ThreadValue;
  /**
   * The thread's built script (the app passes electron-vite's `totals-thread.js`). Without
   * one, the TypeScript source next to this file, loaded through tsx: the CLI and the tests
   * run from source.
   */
  script?: string;
  /** A thread without requests for this long is stopped. Default 60 s. */
  idleMs?: number;
}

const DEFAULT_IDLE_MS = 60_000;

interface Pending {
  ask: ThreadAsk;
  resolve: (value: ThreadValue) => void;
  reject: (error: Error) => void;
}

/**
 * One started thread: the request it is counting (one at a time) and those waiting for it,
 * oldest first.
 */
interface Thread {
  worker: Worker;
  counting: { id: number; request: Pending } | null;
  waiting: Pending[];
  exited: Promise<void>;
}

export function createBackgroundTotals(options: BackgroundTotalsOptions): BackgroundTotals {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  let nextId = 1;
  let current: Thread | null = null;
  let idle: NodeJS.Timeout | null = null;
  /** Set when a thread failed before it was ready: it would fail again, so none is started. */
  let unavailable = false;

  function start(): Thread {
    const worker = spawn(options.script, { file: options.file });
    let ready = false;
    worker.on('message', (answer: TotalsAnswer) => {
      if ('ready' in answer) {
        ready = true;
        return;
      }
      if (thread.counting?.id !== answer.id) return;
      const { request } = thread.counting;
      thread.counting = null;
      if ('value' in answer) request.resolve(answer.value);
      else if (answer.error.app)
        request.reject(new AppError(answer.error.code, answer.error.message, answer.error.field));
      else request.reject(new Error(answer.error.message));
      next(thread);
    });
    worker.on('error', (error) => {
      if (!ready) unavailable = true;
      log.warn(
        ready
          ? 'the totals thread failed; counting in the app thread until it restarts:'
          : 'the totals thread could not start; counting in the app thread:',
        error,
      );
    });
    const exited = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        if (current === thread) current = null;
        // Requests the thread took with it are counted here instead.
        for (const request of unanswered(thread)) countHere(request);
        resolve();
      }),
    );
    const thread: Thread = { worker, counting: null, waiting: [], exited };
    return thread;
  }

  /** Takes every request the thread has not answered off it. */
  function unanswered(thread: Thread): Pending[] {
    const requests = [...(thread.counting ? [thread.counting.request] : []), ...thread.waiting];
    thread.counting = null;
    thread.waiting = [];
    return requests;
  }

  /**
   * Gives the thread its next request: the most recent one. Totals are asked for as the user
   * types and filters, so the newest are the ones on screen; older ones are counted when
   * nothing newer waits (every request is answered, and the screen may go back to them).
   */
  function next(thread: Thread): void {
    if (thread.counting) return;
    const request = thread.waiting.pop();
    if (!request) {
      rest(thread);
      return;
    }
    const id = nextId++;
    thread.counting = { id, request };
    thread.worker.postMessage({ id, ask: request.ask } satisfies TotalsRequest);
  }

  function countHere(request: Pending): void {
    try {
      request.resolve(options.fallback(request.ask));
    } catch (error) {
      request.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** An idle thread does not keep the process alive, and stops after `idleMs`. */
  function rest(thread: Thread): void {
    thread.worker.unref();
    stopIdleTimer();
    idle = setTimeout(() => {
      idle = null;
      if (current === thread && !thread.counting && thread.waiting.length === 0) {
        current = null;
        void thread.worker.terminate();
      }
    }, idleMs);
    idle.unref();
  }

  function stopIdleTimer(): void {
    if (idle) clearTimeout(idle);
    idle = null;
  }

  function ask(question: ThreadAsk): Promise<ThreadValue> {
    return new Promise((resolve, reject) => {
      const request: Pending = { ask: question, resolve, reject };
      if (unavailable) {
        countHere(request);
        return;
      }
      stopIdleTimer();
      const thread = (current ??= start());
      thread.worker.ref();
      thread.waiting.push(request);
      next(thread);
    });
  }

  /** The answer to `question`, of its own kind. */
  async function answerTo<K extends ThreadAsk['kind']>(
    question: Extract<ThreadAsk, { kind: K }>,
  ): Promise<Extract<ThreadValue, { kind: K }>> {
    const value = await ask(question);
    if (value.kind !== question.kind)
      throw new Error(`the totals thread answered ${value.kind} to ${question.kind}`);
    return value as Extract<ThreadValue, { kind: K }>;
  }

  return {
    get running() {
      return current !== null;
    },
    totals: async (filters) => (await answerTo({ kind: 'transactions', filters })).totals,
    expenseCount: async (filters) => (await answerTo({ kind: 'expenses', filters })).count,
    reviewRows: async (target) => (await answerTo({ kind: 'reviewRows', target })).rows,
    async close() {
      stopIdleTimer();
      const thread = current;
      current = null;
      if (!thread) return;
      for (const request of unanswered(thread))
        request.reject(new AppError('CANCELLED', 'The organisation was closed before this was counted.'));
      await thread.worker.terminate();
      await thread.exited;
    },
  };
}

/** The thread: the built script as is, or the TypeScript source through tsx's loader. */
function spawn(script: string | undefined, data: TotalsThreadData): Worker {
  if (script) return new Worker(script, { workerData: data });
  const here = path.dirname(fileURLToPath(import.meta.url));
  const source = pathToFileURL(path.join(here, 'totals-thread.ts')).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(boot, { eval: true, workerData: data });
}
