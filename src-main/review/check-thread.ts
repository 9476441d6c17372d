import { parentPort, workerData } from 'node:worker_threads';
import { readAndStartCheck, ReviewImportError } from './check';
import type { CheckMessage, CheckThreadData } from './sliced-check';

/**
 * The review file check thread (sliced-check.ts starts one per import): reads, decodes, parses
 * and checks the file (check.ts) away from the app's thread, then hands over the checked marks.
 * Every message but `started` waits for the app's thread to ask for the next (`next`), after a
 * turn of its event loop: messages sent in a run are all taken in at once by the receiving
 * thread, so the handing over of 100,000 marks would be one long stretch again.
 */

const port = parentPort;
if (!port) throw new Error('check-thread runs as a worker thread (sliced-check.ts starts it)');
const { file, sliceSize, sendSize } = workerData as CheckThreadData;

let asked: (() => void) | null = null;
port.on('message', () => {
  const resume = asked;
  asked = null;
  resume?.();
});

/** Sends `message`, then waits until the app's thread asks for the next one. */
function send(message: CheckMessage): Promise<void> {
  return new Promise((resolve) => {
    asked = resolve;
    port!.postMessage(message);
  });
}

/** A failure as plain data: a message can carry an Error's words but not its own fields. */
function failure(error: unknown): CheckMessage {
  if (!(error instanceof ReviewImportError)) {
    return { kind: 'crashed', message: error instanceof Error ? error.message : String(error) };
  }
  const cause = error.cause as (Error & { code?: unknown }) | undefined;
  return {
    kind: 'failed',
    code: error.code,
    message: error.message,
    ...(cause instanceof Error
      ? {
          cause: {
            name: cause.name,
            message: cause.message,
            ...(typeof cause.code === 'string' ? { code: cause.code } : {}),
          },
        }
      : {}),
  };
}

async function run(): Promise<void> {
  port!.postMessage({ kind: 'started' } satisfies CheckMessage);
  const check = readAndStartCheck(file);
  for (let from = 0; from < check.total; from += sliceSize) {
    const to = Math.min(check.total, from + sliceSize);
    check.marks(from, to);
    await send({ kind: 'progress', done: to, total: check.total });
  }
  const { marks, ...fields } = check.finish();
  await send({ kind: 'checked', fields, total: marks.length });
  for (let from = 0; from < marks.length; from += sendSize)
    await send({ kind: 'marks', json: JSON.stringify(marks.slice(from, from + sendSize)) });
  port!.postMessage({ kind: 'end' } satisfies CheckMessage);
}

// The last message sent, nothing more will be asked: the thread ends once it is delivered.
run()
  .catch((error: unknown) => port.postMessage(failure(error)))
  .finally(() => port.unref());
