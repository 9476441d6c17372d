import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExpenseSorting } from '../../../src-shared/search';
import { expenseIds, searchExpenses } from '../../../src-main/search/expenses';
import {
  defaultMigrationsDir,
  expenseSearchIsConsistent,
  openCache,
  rebuildExpenseSearch,
  type CacheDb,
} from '../../../src-main/store';
import { startSandbox } from '../../../src-sandbox';
import { createRandom } from '../../../src-sandbox/data/random';
import { syncFromSandbox } from '../../helpers/sandbox-sync';

/**
 * Expense text search over a cache synced from the sandbox, checked against a reference: an
 * expense matches when the text is a case-insensitive substring of its description, booking
 * text, merchant name, supplier name or one of its lines' descriptions. Case folding as the
 * search promises: ASCII letters for ASCII text (LIKE), JavaScript's toLowerCase otherwise.
 */

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
let sandbox: Sandbox;
let cache: CacheDb;
let dir: string;

const sync = () => syncFromSandbox(cache, sandbox);

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 11, transactions: 1500, control: true, readLimit: 100_000 });
  dir = mkdtempSync(path.join(tmpdir(), 'satchel-expense-text-'));
  cache = openCache(path.join(dir, 'org.sqlite'), { migrationsDir: defaultMigrationsDir() });
  await sync();
});

afterAll(async () => {
  cache.close();
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Texts {
  id: string;
  deleted: boolean;
  values: string[];
}

/** Every expense's searchable values, straight from the cached rows and raw records. */
function expenseTexts(): Texts[] {
  const rows = cache.sqlite
    .prepare(
      `SELECT e.id, e.deleted_at IS NOT NULL AS deleted, e.description, e.booking_text AS bookingText,
         e.merchant_name AS merchant, s.name AS supplier,
         (SELECT json_group_array(l.raw) FROM expense_lines l WHERE l.expense_id = e.id) AS lines
       FROM expenses e LEFT JOIN suppliers s ON s.id = e.supplier_id`,
    )
    .all() as Array<{
    id: string;
    deleted: number;
    description: string | null;
    bookingText: string | null;
    merchant: string | null;
    supplier: string | null;
    lines: string;
  }>;
  return rows.map((row) => ({
    id: row.id,
    deleted: row.deleted === 1,
    values: [
      row.description,
      row.bookingText,
      row.merchant,
      row.supplier,
      ...(JSON.parse(row.lines) as string[]).map(
        (raw) => (JSON.parse(raw) as { description?: string }).description,
      ),
    ].filter((value): value is string => typeof value === 'string'),
  }));
}

const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

function referenceMatch(texts: Texts, needle: string): boolean {
  const ascii = /^[\x20-\x7e]*$/.test(needle);
  const fold = ascii ? asciiLower : (text: string) => text.toLowerCase();
  return texts.values.some((value) => fold(value).includes(fold(needle)));
}

const SORTINGS: ExpenseSorting[] = [
  { field: 'expenseTime', direction: 'DESC' },
  { field: 'amount', direction: 'ASC' },
];

describe('expense text search', () => {
  it('finds what the reference finds, in sort order, page by page, from the matches or the index', () => {
    const all = expenseTexts();
    expect(all.length).toBeGreaterThan(500);
    const random = createRandom(2026, 3);
    const values = all.flatMap((texts) => texts.values);
    const texts = ['zzqx', '%', '_', '\\', '"', 'a OR b', 'NEAR(x', 'ü', 'Ü', 'GmbH', 'straße'];
    // Pieces of real values, 1 to 10 characters, in any case.
    for (let i = 0; i < 120; i += 1) {
      const value = random.pick(values);
      const chars = [...value];
      const length = Math.min(chars.length, random.int(1, 10));
      const start = random.int(0, chars.length - length);
      let piece = chars
        .slice(start, start + length)
        .join('')
        .trim();
      if (piece === '') continue;
      if (random.chance(0.5)) piece = random.chance(0.5) ? piece.toUpperCase() : piece.toLowerCase();
      texts.push(piece);
    }
    let compared = 0;
    for (const text of texts) {
      const includeDeleted = random.chance(0.2);
      const wanted = new Set(
        all.filter((t) => (includeDeleted || !t.deleted) && referenceMatch(t, text)).map((t) => t.id),
      );
      const sorting = random.pick(SORTINGS);
      const order = expenseIds(cache, { includeDeleted }, sorting).filter((id) => wanted.has(id));
      const pageSize = random.pick([5, 25, 100]);
      const pages = Math.max(1, Math.ceil(order.length / pageSize));
      const page = random.int(1, Math.min(pages, 3));
      const query = { filters: { text, includeDeleted }, sorting, pagination: { page, pageSize } };
      const expected = order.slice((page - 1) * pageSize, page * pageSize);
      // From the matches or the sort's index; a short text from its documents or expense by
      // expense (a limit of 0 collects none).
      for (const startFromMatches of [undefined, 0, Number.MAX_SAFE_INTEGER])
        for (const shortTextSet of [undefined, 0]) {
          const result = searchExpenses(cache, query, { startFromMatches, shortTextSet });
          expect({ text, ids: result.rows.map((row) => row.id), total: result.total }).toEqual({
            text,
            ids: expected,
            total: order.length,
          });
        }
      compared += 1;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('follows sync: a changed description, booking text or line description is found, the old one not', async () => {
    const expense = sandbox.state.expenses.find((e) => e.lines.length >= 2 && e.description)!;
    const line = expense.lines[1]!;
    const found = (text: string) => searchExpenses(cache, { filters: { text } }).rows.map((row) => row.id);
    const patch = async (change: object) => {
      const response = await fetch(`${sandbox.url}/__control/expenses/${expense.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(change),
      });
      expect(response.status).toBe(200);
      await sync();
    };
    await patch({
      description: 'Quarterly zeppelin charter',
      bookingText: 'Airship hire',
      lines: [{ id: line.id, description: 'Walrus feed' }],
    });
    expect(found('ZEPPELIN')).toEqual([expense.id]);
    expect(found('airship')).toEqual([expense.id]);
    expect(found('walrus')).toEqual([expense.id]);
    expect(expenseSearchIsConsistent(cache.sqlite)).toBe(true);

    await patch({
      description: 'Balloon',
      bookingText: '',
      lines: [{ id: line.id, description: 'Seal food' }],
    });
    expect(found('zeppelin')).toEqual([]);
    expect(found('airship')).toEqual([]);
    expect(found('walrus')).toEqual([]);
    expect(found('balloon')).toEqual([expense.id]);
    expect(found('seal food')).toEqual([expense.id]);
    expect(expenseSearchIsConsistent(cache.sqlite)).toBe(true);
  });

  it('notices documents or an index that drifted, and the rebuild repairs both', () => {
    const line = cache.sqlite
      .prepare(
        `SELECT l.expense_id AS expenseId, json_extract(l.raw, '$.description') AS description
         FROM expense_lines l JOIN expenses e ON e.id = l.expense_id
         WHERE e.deleted_at IS NULL AND length(json_extract(l.raw, '$.description')) > 5 LIMIT 1`,
      )
      .get() as { expenseId: string; description: string };
    const finds = () =>
      searchExpenses(cache, { filters: { text: line.description } }).rows.some(
        (row) => row.id === line.expenseId,
      );
    expect(finds()).toBe(true);

    // The lines' documents gone (as if their triggers had been dropped by a migration).
    cache.sqlite.prepare(`DELETE FROM expense_text WHERE line_id IS NOT NULL`).run();
    expect(expenseSearchIsConsistent(cache.sqlite)).toBe(false);
    rebuildExpenseSearch(cache.sqlite);
    expect(expenseSearchIsConsistent(cache.sqlite)).toBe(true);
    expect(finds()).toBe(true);

    // The index emptied under documents that are right.
    cache.sqlite.prepare(`INSERT INTO expense_text_fts (expense_text_fts) VALUES ('delete-all')`).run();
    expect(expenseSearchIsConsistent(cache.sqlite)).toBe(false);
    rebuildExpenseSearch(cache.sqlite);
    expect(expenseSearchIsConsistent(cache.sqlite)).toBe(true);
    expect(finds()).toBe(true);
  });
});
