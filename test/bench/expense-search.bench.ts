import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { searchExpenses } from '../../src-main/search/expenses';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../src-main/store';
import { startSandbox } from '../../src-sandbox';
import { syncFromSandbox } from '../helpers/sandbox-sync';

/**
 * Expense text search in an organisation with many expenses: the demo organisation (2,150
 * expenses, 3,382 lines) synced from the sandbox, its expenses and their lines then copied in
 * the cache until there are 43,000 expenses and 67,640 lines. Measured: the first page (100
 * rows, newest first) and the total of a search text the app has not seen yet (as each
 * keystroke is), by kind of text. Target: 100 ms (the list answers as the user types); 1–2
 * characters found in more than 5,000 expenses are tested expense by expense and may take
 * longer.
 * Also measured: writing the copies, each expense and line with its documents and trigram
 * index entries (the text index's share of what sync writes).
 */

const COPIES = 19;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const round = (value: number) => Math.round(value * 10) / 10;

function copyExpenses(cache: CacheDb): { expenses: number; lines: number; rowsPerSecond: number } {
  const columns = (table: string) =>
    cache.sqlite.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
  const expenseColumns = columns('expenses');
  const lineColumns = columns('expense_lines');
  const copyOf = (copy: number) => (column: string) => {
    if (column === 'id' || column === 'expense_id') return `${column} || '~${copy}'`;
    if (column === 'parent_line_id') return `${column} || '~${copy}'`; // NULL stays NULL
    if (column === 'bank_transaction_id') return `'elsewhere-${copy}-' || id`;
    return column;
  };
  const started = performance.now();
  let rows = 0;
  cache.sqlite.transaction(() => {
    for (let copy = 1; copy <= COPIES; copy += 1) {
      rows += cache.sqlite
        .prepare(
          `INSERT INTO expenses (${expenseColumns.join(', ')})
           SELECT ${expenseColumns.map(copyOf(copy)).join(', ')} FROM expenses WHERE id NOT LIKE '%~%'`,
        )
        .run().changes;
      rows += cache.sqlite
        .prepare(
          `INSERT INTO expense_lines (${lineColumns.join(', ')})
           SELECT ${lineColumns.map(copyOf(copy)).join(', ')} FROM expense_lines WHERE id NOT LIKE '%~%'`,
        )
        .run().changes;
    }
  })();
  const seconds = (performance.now() - started) / 1000;
  cache.sqlite.exec('ANALYZE');
  const count = (table: string) =>
    cache.sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  return {
    expenses: count('expenses'),
    lines: count('expense_lines'),
    rowsPerSecond: Math.round(rows / seconds),
  };
}

/** The same text in another case each time: a text the search has not seen (its count is memoised). */
function variants(text: string, count: number): string[] {
  const chars = [...text];
  const letters = chars.flatMap((char, index) => (char.toLowerCase() !== char.toUpperCase() ? [index] : []));
  return Array.from({ length: count }, (_, n) =>
    chars
      .map((char, index) =>
        index === letters[n % Math.max(1, letters.length)] && n > 0 ? char.toUpperCase() : char.toLowerCase(),
      )
      .join(''),
  );
}

function measure(cache: CacheDb, texts: string[]) {
  const times: number[] = [];
  let totals = 0;
  for (const text of texts)
    for (const variant of variants(text, 3)) {
      const started = performance.now();
      const result = searchExpenses(cache, {
        filters: { text: variant },
        pagination: { page: 1, pageSize: 100 },
      });
      times.push(performance.now() - started);
      totals += result.total;
    }
  const sorted = times.sort((a, b) => a - b);
  return {
    figure: `${round(percentile(sorted, 50))} / ${round(percentile(sorted, 95))} ms`,
    averageMatches: Math.round(totals / times.length),
  };
}

export default async function run(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-bench-expense-search-'));
  const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 5000, readLimit: 1_000_000 });
  const cache = openCache(path.join(dir, 'expenses.sqlite'), { migrationsDir: defaultMigrationsDir() });
  try {
    await syncFromSandbox(cache, sandbox);
    const copied = copyExpenses(cache);
    // Texts by kind, taken from the demo data: a receipt number (a few expenses), words of
    // descriptions and merchants (hundreds to thousands), nothing, German words, 1–2 characters.
    const kinds: Record<string, string[]> = {
      rare: ['RE-93', 'RE-54', 'RE-21', 'RE-12', 'RE-30'],
      common: ['invoice', 'expense', 'reimb', 'hotel', 'büro'],
      nowhere: ['zzqx', 'qqqq', 'taxi driver', 'xylophone', 'no such text'],
      nonAscii: ['müller', 'straße', 'gebühr', 'café', 'größe'],
      short: ['e', 'ab', 'fl', 'ü', 'x'],
    };
    for (const text of kinds.common!) searchExpenses(cache, { filters: { text: `${text}!` } }); // warm
    const figures: Record<string, number | string> = {
      expenses: copied.expenses,
      lines: copied.lines,
      copyRowsPerSecond: copied.rowsPerSecond,
    };
    for (const [kind, texts] of Object.entries(kinds)) {
      const measured = measure(cache, texts);
      figures[`${kind}MedianP95`] = measured.figure;
      figures[`${kind}AverageMatches`] = measured.averageMatches;
    }
    figures['target'] = '100 ms (1–2 characters in more than 5,000 expenses excepted)';
    return figures;
  } finally {
    cache.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(await run());
