import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expenseDetails } from '../../src-main/details/expenses';
import { transactionDetail } from '../../src-main/details/transactions';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../src-main/store';
import { startSandbox } from '../../src-sandbox';
import { syncFromSandbox } from '../helpers/sandbox-sync';

/**
 * Detail panes of an organisation with many expenses: the demo organisation (5,000
 * transactions, 2,150 expenses) synced from the sandbox, its expenses then copied in the cache
 * until there are 43,000 (each copy linked to a transaction of its own that is not cached, as
 * the expenses of other periods are). Measured: a transaction's pane (its account, fees,
 * group and linked expenses with their lines and files) and an expense's pane, over the
 * transactions that have expenses, as the pane follows the selection down the list.
 * Target: 16 ms a pane (one frame), so the pane keeps up with the arrow keys.
 */

const COPIES = 19;
const PANES = 300;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const round = (value: number) => Math.round(value * 100) / 100;

function copyExpenses(cache: CacheDb): number {
  const columns = cache.sqlite
    .prepare(`SELECT name FROM pragma_table_info('expenses')`)
    .pluck()
    .all() as string[];
  const value = (column: string, copy: number) => {
    if (column === 'id') return `id || '~${copy}'`;
    if (column === 'bank_transaction_id') return `'elsewhere-${copy}-' || id`;
    if (column === 'raw')
      return `json_set(raw, '$.id', id || '~${copy}', '$.bankTransactionId', 'elsewhere-${copy}-' || id)`;
    return column;
  };
  cache.sqlite.transaction(() => {
    for (let copy = 1; copy <= COPIES; copy += 1)
      cache.sqlite
        .prepare(
          `INSERT INTO expenses (${columns.join(', ')})
           SELECT ${columns.map((column) => value(column, copy)).join(', ')} FROM expenses WHERE id NOT LIKE '%~%'`,
        )
        .run();
  })();
  cache.sqlite.exec('ANALYZE');
  return cache.sqlite.prepare('SELECT count(*) FROM expenses').pluck().get() as number;
}

function measure(ids: string[], open: (id: string) => unknown) {
  for (const id of ids.slice(0, 20)) open(id); // warm
  const times = ids.map((id) => {
    const started = performance.now();
    open(id);
    return performance.now() - started;
  });
  const sorted = [...times].sort((a, b) => a - b);
  return { median: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)) };
}

export default async function run(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-bench-details-'));
  const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 5000, readLimit: 1_000_000 });
  const cache = openCache(path.join(dir, 'details.sqlite'), { migrationsDir: defaultMigrationsDir() });
  try {
    await syncFromSandbox(cache, sandbox);
    const expenses = copyExpenses(cache);
    const transactions = cache.sqlite
      .prepare(
        `SELECT DISTINCT t.id FROM bank_transactions t JOIN expenses e ON e.bank_transaction_id = t.id
         ORDER BY t.booking_date DESC, t.id LIMIT ?`,
      )
      .pluck()
      .all(PANES) as string[];
    const expenseIds = cache.sqlite
      .prepare(`SELECT id FROM expenses ORDER BY expense_time DESC, id LIMIT ?`)
      .pluck()
      .all(PANES) as string[];
    const linked = transactions.map((id) => transactionDetail(cache, id).expenses.length);
    if (linked.some((count) => count === 0)) throw new Error('a linked transaction showed no expense');
    const transaction = measure(transactions, (id) => transactionDetail(cache, id));
    const expense = measure(expenseIds, (id) => expenseDetails(cache, [id]));
    return {
      expenses,
      panes: transactions.length,
      transactionPaneMedianMs: transaction.median,
      transactionPaneP95Ms: transaction.p95,
      expensePaneMedianMs: expense.median,
      expensePaneP95Ms: expense.p95,
      target: '16 ms a pane',
    };
  } finally {
    cache.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(await run());
