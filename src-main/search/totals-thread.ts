import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../src-shared/errors';
import { ExpenseFilters, TransactionFilters, type SearchTotals } from '../../src-shared/search';
import { openCacheReader } from '../store/database';
import type { TotalsAnswer, TotalsAsk, TotalsRequest, TotalsThreadData } from './background-totals';
import { expenseCountOf } from './expenses';
import { totalsOf } from './transactions';

/**
 * The totals thread (background-totals.ts starts it): counts and sums search results on its
 * own read-only connection to one organisation's cache, one request after the other, so that
 * the app's thread answers pages, IPC and sync meanwhile. The answer is the same function's
 * as in the app's thread (transactions.ts, `totalsOf`; expenses.ts, `expenseCountOf`), memo
 * included.
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
const inOneSnapshot = sqlite.transaction((ask: TotalsAsk): { totals: SearchTotals } | { count: number } =>
  ask.kind === 'transactions'
    ? { totals: totalsOf(sqlite, TransactionFilters.parse(ask.filters)) }
    : { count: expenseCountOf(sqlite, ExpenseFilters.parse(ask.filters)) },
);

port.on('message', (request: TotalsRequest) => {
  port.postMessage(answer(request));
});

function answer({ id, ask }: TotalsRequest): TotalsAnswer {
  try {
    return { id, ...inOneSnapshot(ask) };
  } catch (error) {
    if (error instanceof AppError) return { id, error: { ...error.toShape(), app: true } };
    return { id, error: { message: error instanceof Error ? error.message : String(error), app: false } };
  }
}
