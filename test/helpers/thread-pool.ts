import { execFileSync } from 'node:child_process';
import { close, closeSync, open, openSync } from 'node:fs';
import path from 'node:path';

/**
 * Holds every thread of libuv's pool (fs.promises, fs callbacks, crypto's async calls) until
 * released: each is opening a named pipe for reading, which waits for a writer. Work queued on
 * the pool meanwhile waits behind them (the queue is first in, first out), while this thread's
 * event loop runs on. So a test can tell work done on the pool from work done on this thread:
 * the first waits for the release, the second does not.
 *
 * `folder` receives the pipes. Hold before queueing the work to be held up; always release.
 */
export function holdThreadPool(folder: string): { release(): void } {
  // libuv's default; a pool made larger through the environment gets as many holds.
  const threads = Number(process.env['UV_THREADPOOL_SIZE']) || 4;
  const pipes = Array.from({ length: threads }, (_, i) => path.join(folder, `hold-${i}.fifo`));
  for (const pipe of pipes) {
    execFileSync('mkfifo', [pipe]);
    open(pipe, 'r', (error, fd) => {
      if (!error) close(fd, () => undefined);
    });
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // A writer's open waits for the reader's on its pool thread, which runs without this one.
      for (const pipe of pipes) closeSync(openSync(pipe, 'w'));
    },
  };
}
