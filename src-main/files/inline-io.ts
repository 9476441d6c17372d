/**
 * Where a bulk download makes its small file-system calls (create and write a receipt, rename
 * it into place): on the main thread while they are cheap, in the thread pool once they are
 * not.
 *
 * Each call sent to the thread pool costs a thread switch there and back, and on a machine of
 * two cores (where the pool thread takes the core the main thread wanted) about 45 µs of wall
 * time on the main thread and 30 µs of system time per call: more than the call itself on a
 * local disk (10–50 µs to create a small file). A download of thousands of receipts makes
 * three such calls per file, so on a local disk they are made synchronously. On a network
 * share, a busy disk or a file system that scans what is written, one call can take
 * milliseconds; made synchronously it would hold up everything else the main process does
 * (IPC, progress, sync). So every synchronous call is timed, and the first sign of a slow
 * destination sends the rest of the job to the pool:
 *
 * - more than half of the last 16 calls took over `slowMs` (1 ms), or
 * - a single call took over `stallMs` (50 ms).
 *
 * A lone slow call (the main thread preempted in the middle of a fast one) changes nothing.
 */

export interface InlineIo {
  /** Whether calls are still made on the main thread. */
  readonly inline: boolean;
  /** `sync` on the main thread while calls are cheap, else `pooled` (the thread pool). */
  run<T>(sync: () => T, pooled: () => Promise<T>): Promise<T>;
}

export interface InlineIoOptions {
  slowMs?: number;
  stallMs?: number;
  /** Start in the thread pool (what a caller without a policy gets). */
  pooled?: boolean;
  now?: () => number;
}

const WINDOW = 16;

export function createInlineIo(options: InlineIoOptions = {}): InlineIo {
  const slowMs = options.slowMs ?? 1;
  const stallMs = options.stallMs ?? 50;
  const now = options.now ?? (() => performance.now());
  let inline = !options.pooled;
  /** Whether each of the last WINDOW calls was slow, as a ring. */
  const slow = new Uint8Array(WINDOW);
  let next = 0;
  let slowCount = 0;

  function record(ms: number): void {
    const isSlow = ms > slowMs ? 1 : 0;
    slowCount += isSlow - (slow[next] ?? 0);
    slow[next] = isSlow;
    next = (next + 1) % WINDOW;
    if (ms > stallMs || slowCount > WINDOW / 2) inline = false;
  }

  return {
    get inline() {
      return inline;
    },
    run<T>(sync: () => T, pooled: () => Promise<T>): Promise<T> {
      if (!inline) return pooled();
      const started = now();
      try {
        return Promise.resolve(sync());
      } catch (error) {
        return Promise.reject(error as Error);
      } finally {
        record(now() - started);
      }
    },
  };
}

/** Every call in the thread pool. */
export const pooledIo: InlineIo = createInlineIo({ pooled: true });
