import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../src-shared/errors';
import { openCacheReader } from '../store/database';
import type { TotalsAnswer, TotalsRequest, TotalsThreadData } from './background-totals';
import { answerAsk, type ThreadAsk } from './thread-asks';

/**
 * The totals thread (background-totals.ts starts it): answers what thread-asks.ts lists —
 * totals and counts of searches, the rows of a bulk review change — on its own read-only
 * connection to one organisation's cache, one request after the other, so that the app's
 * thread answers pages, IPC and sync meanwhile. The answer is the same function's as in the
 * app's thread (`answerAsk`), memo included.
 */

const port = parentPort;
if (!port) throw new Error('totals-thread runs as a worker thread (background-totals.ts starts it)');
const { file } = workerData as TotalsThreadData;
const sqlite = openCacheReader(file);
port.postMessage({ ready: true } satisfies TotalsAnswer);

// Each answer reads one snapshot: the totals' own query and the reads that shape it (which
// account ids are stored, whether any row is deleted, the text's gram sets) would otherwise
// each see the cache as the app's last commit left it, and a commit between them could give
// totals that match no state of the cache.
const inOneSnapshot = sqlite.transaction((ask: ThreadAsk) => answerAsk(sqlite, ask));

port.on('message', (request: TotalsRequest) => {
  const answer = answerOf(request);
  // A list of rows is handed over, not copied.
  const transfer =
    'value' in answer && answer.value.kind === 'reviewRows' ? [answer.value.rows.buffer as ArrayBuffer] : [];
  port.postMessage(answer, transfer);
});

function answerOf({ id, ask }: TotalsRequest): TotalsAnswer {
  try {
    return { id, value: inOneSnapshot(ask) };
  } catch (error) {
    if (error instanceof AppError) return { id, error: { ...error.toShape(), app: true } };
    return { id, error: { message: error instanceof Error ? error.message : String(error), app: false } };
  }
}
