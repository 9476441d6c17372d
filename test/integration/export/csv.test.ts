import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  csvFormat,
  EXPENSE_CSV_COLUMNS,
  exportExpenses,
  exportTransactions,
  TRANSACTION_CSV_COLUMNS,
} from '../../../src-main/export';
import { exportExpensesCsv, exportTransactionsCsv } from '../../../src-main/export/csv';
import { applyReview } from '../../../src-main/review';
import { searchExpenses, searchTransactions } from '../../../src-main/search';
import { STALE_TEMPORARY_MS } from '../../../src-main/folders';
import { parseAmount } from '../../../src-shared/money';
import { parseCsv } from '../../helpers/csv';
import { holdThreadPool } from '../../helpers/thread-pool';
import { until } from '../../helpers/until';
import {
  demoState,
  loadedCache,
  recordsOf,
  seedExpenses,
  useCaches,
  wireTransaction,
} from '../search/fixtures';
import { upsertTransactions } from '../search/load';

const caches = useCaches();
const column = (name: (typeof TRANSACTION_CSV_COLUMNS)[number]) => TRANSACTION_CSV_COLUMNS.indexOf(name);

function read(file: string, delimiter: string) {
  const bytes = readFileSync(file);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // UTF-8 byte-order mark
  const text = bytes.toString('utf8').slice(1);
  expect(text.endsWith('\r\n')).toBe(true);
  const [header, ...rows] = parseCsv(text, delimiter);
  expect(header).toEqual([...TRANSACTION_CSV_COLUMNS]);
  for (const row of rows) expect(row).toHaveLength(TRANSACTION_CSV_COLUMNS.length);
  return rows;
}

describe('CSV export of a search result', () => {
  it('writes the whole result in the search order with exact amounts and the review columns', async () => {
    const records = recordsOf(demoState(9000, 5));
    const cache = loadedCache(caches, records);
    const filters = { matched: false, bookingDateFrom: '2024-01-01' };
    const unmatched = searchTransactions(cache, { filters, pagination: { page: 1, pageSize: 500 } });
    const first = unmatched.rows[0]!;
    applyReview(cache, { by: 'ids', kind: 'transaction', ids: [first.id] }, { action: 'setReviewed' });
    applyReview(
      cache,
      { by: 'ids', kind: 'transaction', ids: [first.id] },
      { action: 'flag', reason: 'No receipt' },
    );
    applyReview(
      cache,
      { by: 'ids', kind: 'transaction', ids: [first.id] },
      { action: 'addTags', tags: ['audit', 'q1'] },
    );

    const file = path.join(caches.tempDir(), 'unmatched.csv');
    const progress: number[] = [];
    const result = await exportTransactions(
      cache,
      {
        search: { filters, sorting: { field: 'amount', direction: 'ASC' } },
        file,
        format: {},
        overwrite: false,
      },
      (written) => progress.push(written),
    );
    const totals = unmatched.totals!;
    expect(totals.count).toBeGreaterThan(1000); // more than one batch
    expect(result.rows).toBe(totals.count);
    expect(progress.at(-1)).toBe(totals.count);

    const rows = read(file, ',');
    expect(rows).toHaveLength(totals.count);
    // Same ids in the same order as the search itself, page after page.
    const ids: string[] = [];
    for (let page = 1; ids.length < totals.count; page += 1) {
      const next = searchTransactions(cache, {
        filters,
        sorting: { field: 'amount', direction: 'ASC' },
        pagination: { page, pageSize: 500 },
        withTotals: false,
      });
      ids.push(...next.rows.map((row) => row.id));
    }
    expect(rows.map((row) => row[column('id')])).toEqual(ids);
    // Amounts parse back to exactly the totals, per currency, as integers.
    for (const sum of totals.sums) {
      const minor = rows
        .filter((row) => row[column('currency')] === sum.currency)
        .reduce((total, row) => total + parseAmount(row[column('amount')]!, sum.currency), 0);
      expect(minor).toBe(sum.minor);
    }
    const marked = rows.find((row) => row[column('id')] === first.id)!;
    expect(marked[column('reviewed')]).toBe('true');
    expect(marked[column('reviewed_at')]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(marked[column('flagged')]).toBe('true');
    expect(marked[column('flag_reason')]).toBe('No receipt');
    expect(marked[column('tags')]).toBe('audit, q1');
    expect(rows.every((row) => /^\d{4}-\d\d-\d\d$/.test(row[column('booking_date')]!))).toBe(true);
    expect(readdirSync(path.dirname(file))).toEqual(['unmatched.csv']); // no temporary left
  });

  it('uses ; and a decimal comma for German Excel, and quotes or guards awkward text', async () => {
    const records = [
      wireTransaction({
        id: 'a0000000-0000-4000-8000-000000000001',
        amount: { amount: '-1234.50', currency: 'EUR' },
        counterparty: 'Müller; Söhne "Büro"',
        description: 'Zeile eins\nZeile zwei',
      }),
      wireTransaction({
        id: 'a0000000-0000-4000-8000-000000000002',
        amount: { amount: '1500', currency: 'JPY' },
        counterparty: '=HYPERLINK("http://example.test")',
        description: '+49 30 123456',
      }),
      wireTransaction({
        id: 'a0000000-0000-4000-8000-000000000003',
        amount: { amount: '-0.005', currency: 'BHD' },
      }),
    ];
    const cache = loadedCache(caches, records);
    const file = path.join(caches.tempDir(), 'de.csv');
    await exportTransactions(cache, {
      search: { filters: {}, sorting: { field: 'id', direction: 'ASC' } },
      file,
      format: { locale: 'de-DE' },
      overwrite: false,
    });
    const rows = read(file, ';');
    expect(rows).toHaveLength(3);
    const [eur, jpy, bhd] = rows as [string[], string[], string[]];
    expect(bhd[column('amount')]).toBe('-0,005'); // three decimals, the fils kept
    expect(eur[column('amount')]).toBe('-1234,50');
    expect(eur[column('counterparty')]).toBe('Müller; Söhne "Büro"');
    expect(eur[column('description')]).toBe('Zeile eins\nZeile zwei');
    expect(jpy[column('amount')]).toBe('1500'); // no minor unit, nothing invented
    expect(jpy[column('counterparty')]).toBe(`'=HYPERLINK("http://example.test")`);
    expect(jpy[column('description')]).toBe(`'+49 30 123456`);
    expect(readFileSync(file, 'utf8')).toContain('"Müller; Söhne ""Büro"""');
  });

  it('chooses separators by locale and refuses a delimiter equal to the decimal separator', () => {
    expect(csvFormat({ locale: 'de-DE' })).toEqual({ delimiter: ';', decimalSeparator: ',' });
    expect(csvFormat({ locale: 'fr-FR' })).toEqual({ delimiter: ';', decimalSeparator: ',' });
    expect(csvFormat({ locale: 'en-GB' })).toEqual({ delimiter: ',', decimalSeparator: '.' });
    expect(csvFormat({})).toEqual({ delimiter: ',', decimalSeparator: '.' });
    expect(csvFormat({ locale: 'de-DE', delimiter: '\t' })).toEqual({
      delimiter: '\t',
      decimalSeparator: ',',
    });
    expect(() => csvFormat({ decimalSeparator: ',', delimiter: ',' })).toThrow(/must differ/);
    expect(() => csvFormat({ locale: 'not a locale!' })).toThrow(/is not a locale/);
  });

  it('never replaces a file unless asked, and leaves nothing behind when cancelled or refused', async () => {
    const cache = loadedCache(caches, recordsOf(demoState(3000, 6)));
    const dir = caches.tempDir();
    const file = path.join(dir, 'existing.csv');
    writeFileSync(file, 'keep me');
    const search = { filters: {}, sorting: { field: 'bookingDate' as const, direction: 'DESC' as const } };
    await expect(
      exportTransactions(cache, { search, file, format: {}, overwrite: false }),
    ).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      field: 'file',
    });
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    await expect(
      exportTransactions(cache, {
        search,
        file: path.join(dir, 'missing', 'x.csv'),
        format: {},
        overwrite: false,
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'file',
      message: `The folder ${path.join(dir, 'missing')} does not exist. Nothing was written; choose another place.`,
    });

    // Cancelled after the first batch: the old file is untouched and no temporary remains.
    const controller = new AbortController();
    const { exportTransactionsCsv } = await import('../../../src-main/export');
    await expect(
      exportTransactionsCsv(cache, search, {
        file,
        format: csvFormat({}),
        overwrite: true,
        signal: controller.signal,
        onProgress: () => controller.abort(),
      }),
    ).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    expect(readdirSync(dir)).toEqual(['existing.csv']);

    // The folder is deleted after the first batch: refused in words, saying nothing was
    // written, and no file of that name appears anywhere.
    const gone = path.join(caches.tempDir(), 'Stick');
    mkdirSync(gone);
    await expect(
      exportTransactionsCsv(cache, search, {
        file: path.join(gone, 'all.csv'),
        format: csvFormat({}),
        onProgress: () => rmSync(gone, { recursive: true, force: true }),
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'file',
      message: `Could not write ${path.join(gone, 'all.csv')}: the folder is no longer there (moved, deleted, or its disk removed). Nothing was written; choose another place.`,
    });
    expect(existsSync(gone)).toBe(false);

    // The folder is renamed after the first batch (a synced folder moved away): the export
    // goes on writing into it, then says where it went, and removes its unfinished file there.
    const moving = path.join(caches.tempDir(), 'March');
    const moved = path.join(path.dirname(moving), 'March (old)');
    mkdirSync(moving);
    writeFileSync(path.join(moving, 'notes.txt'), 'mine');
    await expect(
      exportTransactionsCsv(cache, search, {
        file: path.join(moving, 'all.csv'),
        format: csvFormat({}),
        onProgress: () => {
          if (!existsSync(moved)) renameSync(moving, moved);
        },
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'file',
      message: `Could not write ${path.join(moving, 'all.csv')}: its folder was moved to ${moved} while the export was written. Nothing was written (the unfinished file was removed from there); export again to where the folder is now, or choose another place.`,
    });
    expect(existsSync(moving)).toBe(false);
    expect(readdirSync(moved)).toEqual(['notes.txt']);

    const replaced = await exportTransactions(cache, { search, file, format: {}, overwrite: true });
    expect(replaced.rows).toBe(3000);
    expect(existsSync(file) && readFileSync(file, 'utf8').length).toBeGreaterThan(1000);

    // The longest name the file system takes is written (its temporary file has a short name of
    // its own); a longer one is refused in words, and leaves nothing behind.
    const longest = path.join(dir, `${'a'.repeat(251)}.csv`);
    expect(
      (await exportTransactions(cache, { search, file: longest, format: {}, overwrite: false })).rows,
    ).toBe(3000);
    const tooLong = path.join(dir, `${'b'.repeat(252)}.csv`);
    const refused = exportTransactions(cache, { search, file: tooLong, format: {}, overwrite: false });
    await expect(refused).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'file',
      message: `Could not write ${tooLong}: the name is too long. Nothing was written; choose another place.`,
    });
    expect(readdirSync(dir).sort()).toEqual([path.basename(longest), 'existing.csv']);
  });
});

describe('CSV export at its end', () => {
  it('syncs the file to the disk and renames it on the thread pool, the event loop free meanwhile', async () => {
    const cache = loadedCache(caches, recordsOf(demoState(3000, 6)));
    const folder = caches.tempDir();
    const file = path.join(folder, 'transactions.csv');
    const search = { filters: {}, sorting: { field: 'bookingDate' as const, direction: 'DESC' as const } };
    let total = 0;
    // Every pool thread held: a sync or rename asked of the pool waits; one made on this
    // thread (fsyncSync, renameSync) does not, and the export would end meanwhile.
    const pool = holdThreadPool(caches.tempDir());
    try {
      let ended = false;
      const exported = exportTransactions(cache, { search, file, format: {}, overwrite: false }, (_, of) => {
        total = of;
      }).finally(() => {
        ended = true;
      });
      // Every row is written to the temporary beside the file, and waits there for the pool.
      const temporary = () => readdirSync(folder).find((name) => name.endsWith('.partial'));
      const written = () => {
        const name = temporary();
        if (name === undefined || total === 0) return false;
        return readFileSync(path.join(folder, name), 'utf8').split('\r\n').length === total + 2;
      };
      await until(() => ended || written(), 'the export to write its whole temporary file', 10_000);
      expect(ended, 'the export ended without waiting for the thread pool').toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ended).toBe(false);
      expect(existsSync(file)).toBe(false);

      pool.release();
      expect((await exported).rows).toBe(total);
      expect(read(file, ',')).toHaveLength(total);
      expect(temporary()).toBeUndefined();
    } finally {
      pool.release();
    }
  });
});

describe('CSV export beside the leftovers of a killed one', () => {
  it('removes temporaries of its own naming untouched for a day, and nothing else', async () => {
    const cache = loadedCache(caches, recordsOf(demoState(50, 3)));
    const dir = caches.tempDir();
    const dayAndMore = (Date.now() - STALE_TEMPORARY_MS - 60_000) / 1000;
    const put = (name: string, old: boolean) => {
      writeFileSync(path.join(dir, name), 'half an export');
      if (old) utimesSync(path.join(dir, name), dayAndMore, dayAndMore);
    };
    put('.satchel-export-0badc0de.partial', true); // a killed export's: goes
    put('.satchel-export-5eed1e55.partial', false); // another export writing now: stays
    put('.satchel-export-budget.partial', true); // not our naming: stays
    put('.satchel-export-0badc0de.partial.bak', true);
    put('notes.partial', true);
    mkdirSync(path.join(dir, '.satchel-export-deadbeef.partial')); // a folder: stays
    utimesSync(path.join(dir, '.satchel-export-deadbeef.partial'), dayAndMore, dayAndMore);

    const file = path.join(dir, 'march.csv');
    const search = { filters: {}, sorting: { field: 'bookingDate' as const, direction: 'DESC' as const } };
    expect((await exportTransactions(cache, { search, file, format: {}, overwrite: false })).rows).toBe(50);
    expect(readdirSync(dir).sort()).toEqual(
      [
        '.satchel-export-0badc0de.partial.bak',
        '.satchel-export-5eed1e55.partial',
        '.satchel-export-budget.partial',
        '.satchel-export-deadbeef.partial',
        'march.csv',
        'notes.partial',
      ].sort(),
    );
  });
});

/**
 * The export script (test/helpers/export-process.ts) in a child process whose files may grow
 * to `blocks` KiB at most (`ulimit -f`): a write beyond that is cut short, as on a disk that
 * fills up, and the next one fails (EFBIG; Node ignores the signal that would end it).
 */
function exportWithFileLimit(cacheFile: string, out: string, blocks: number) {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const script = path.join(root, 'test/helpers/export-process.ts');
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(
      'bash',
      [
        '-c',
        'ulimit -f "$0" && exec "$@"',
        String(blocks),
        process.execPath,
        '--import',
        'tsx',
        script,
        cacheFile,
        out,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('CSV export while a sync writes', () => {
  it('leaves out a transaction that sync marks deleted after the export started', async () => {
    const records = recordsOf(demoState(2500, 9));
    const cache = loadedCache(caches, records);
    const search = { filters: {}, sorting: { field: 'id' as const, direction: 'ASC' as const } };
    const last = [...records].sort((a, b) => (a.id < b.id ? -1 : 1)).at(-1)!;
    const file = path.join(caches.tempDir(), 'during-sync.csv');
    let synced = false;
    const result = await exportTransactionsCsv(cache, search, {
      file,
      format: csvFormat({}),
      // After the first batch, a sync's re-read of its window no longer lists the last row.
      onProgress: () => {
        if (synced) return;
        synced = true;
        upsertTransactions(cache, [last], new Set([last.id]));
      },
    });
    const rows = read(file, ',');
    expect(rows.map((row) => row[column('id')])).not.toContain(last.id);
    expect(rows.filter((row) => row[column('deleted_at')] !== '')).toEqual([]);
    expect(result.rows).toBe(2499);
    expect(rows).toHaveLength(2499);

    // Asked for with the deleted rows, it is there, marked.
    const withDeleted = await exportTransactionsCsv(
      cache,
      { ...search, filters: { includeDeleted: true } },
      { file: path.join(path.dirname(file), 'with-deleted.csv'), format: csvFormat({}) },
    );
    expect(withDeleted.rows).toBe(2500);
    const marked = read(path.join(path.dirname(file), 'with-deleted.csv'), ',').at(-1)!;
    expect([marked[column('id')], marked[column('deleted_at')] !== '']).toEqual([last.id, true]);
  });

  it('leaves out an expense that sync marks deleted after the export started', async () => {
    const cache = caches.open(caches.file());
    const insert = cache.sqlite.prepare(
      `INSERT INTO expenses (id, type, status, description, amount_minor, amount_currency, expense_time,
         update_time, raw) VALUES (?, 'RECEIPT', 'APPROVED', 'Taxi', -1250, 'EUR', ?, ?, '{}')`,
    );
    cache.sqlite.transaction(() => {
      for (let i = 0; i < 1200; i += 1) {
        const time = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
        insert.run(`exp-${String(i).padStart(4, '0')}`, time, time);
      }
    })();
    const file = path.join(caches.tempDir(), 'expenses-during-sync.csv');
    let synced = false;
    const result = await exportExpensesCsv(
      cache,
      { filters: {}, sorting: { field: 'id', direction: 'ASC' } },
      {
        file,
        format: csvFormat({}),
        onProgress: () => {
          if (synced) return;
          synced = true;
          cache.sqlite
            .prepare(`UPDATE expenses SET deleted_at = '2026-05-01T00:00:00.000Z' WHERE id = 'exp-1199'`)
            .run();
        },
      },
    );
    const lines = readFileSync(file, 'utf8').split('\r\n');
    expect(lines.some((line) => line.startsWith('exp-1199,'))).toBe(false);
    expect(result.rows).toBe(1199);
  });
});

describe('CSV export when the disk takes only part of a batch', () => {
  it('fails in words and leaves no file, never a cut-off file under the chosen name', async () => {
    const cache = loadedCache(caches, recordsOf(demoState(2500, 8)));
    const dir = caches.tempDir();
    const search = { filters: {}, sorting: { field: 'id' as const, direction: 'ASC' as const } };
    const whole = await exportTransactions(cache, {
      search,
      file: path.join(dir, 'whole.csv'),
      format: {},
      overwrite: false,
    });
    expect(whole.rows).toBe(2500);
    // Room for all but the last 8 KiB: the last batch (500 rows, over 100 KB) is written in
    // part, the write that would complete it fails.
    const blocks = Math.floor((whole.bytes - 8 * 1024) / 1024);
    expect(whole.bytes - blocks * 1024).toBeLessThan(100_000);
    const file = path.join(dir, 'limited.csv');
    const limited = await exportWithFileLimit(cache.file, file, blocks);
    expect(limited.stdout).toBe('');
    expect(limited.stderr).toBe(
      `VALIDATION_ERROR: Could not write ${file}: the file is too large for that disk. Nothing was written; choose another place.\n`,
    );
    expect(limited.code).toBe(1);
    expect(readdirSync(dir)).toEqual(['whole.csv']); // neither the file nor its temporary
  });
});

describe('CSV export of an expense search', () => {
  it('writes every expense of the search in its order, with supplier, files and review columns', async () => {
    const cache = caches.open(caches.file());
    seedExpenses(cache);
    // A description a spreadsheet would run as a formula, and an expense without an amount.
    cache.sqlite
      .prepare(
        `INSERT INTO expenses (id, type, status, supplier_id, description, booking_text, amount_minor,
           amount_currency, expense_time, update_time, merchant_name, raw, deleted_at)
         VALUES ('exp-9', 'RECEIPT', 'DRAFT', NULL, '=HYPERLINK("x")', 'Draft; "rough"', NULL, NULL,
           '2026-03-12T09:00:00Z', '2026-03-12T09:00:00Z', NULL, '{}', NULL)`,
      )
      .run();
    applyReview(
      cache,
      { by: 'ids', kind: 'expense', ids: ['exp-2'] },
      { action: 'flag', reason: 'Ask Anna' },
    );
    applyReview(
      cache,
      { by: 'ids', kind: 'expense', ids: ['exp-2'] },
      { action: 'addTags', tags: ['q1', 'audit'] },
    );
    applyReview(cache, { by: 'ids', kind: 'expense', ids: ['exp-1'] }, { action: 'setReviewed' });
    // Where exp-2's two lines are booked: one account for both, a cost center and a project
    // (the project on both lines, named once), and an item the cache does not know.
    cache.sqlite.exec(`
      INSERT INTO expense_accounts (id, name, code, status, raw) VALUES ('acc-1', 'Consulting', '6300', 'ACTIVE', '{}');
      INSERT INTO dimensions (id, name, code, status, raw) VALUES
        ('dim-cc', 'Cost center', 'KOST1', 'ACTIVE', '{}'), ('dim-pr', 'Project', 'PROJ', 'ACTIVE', '{}');
      INSERT INTO dimension_items (id, dimension_id, name, code, status, raw) VALUES
        ('item-1', 'dim-cc', '1000 Management', 'KOST1-001', 'ACTIVE', '{}'),
        ('item-2', 'dim-pr', 'Audit; 2026', 'PROJ-001', 'ACTIVE', '{}');
      UPDATE expense_lines SET expense_account_id = 'acc-1' WHERE expense_id = 'exp-2';
      INSERT INTO expense_line_dimensions (line_id, position, dimension_id, dimension_item_id) VALUES
        ('line-1', 0, 'dim-cc', 'item-1'), ('line-1', 1, 'dim-pr', 'item-2'),
        ('line-2', 0, 'dim-pr', 'item-2'), ('line-2', 1, 'dim-pr', 'item-gone');
    `);

    const file = path.join(caches.tempDir(), 'expenses.csv');
    const search = { filters: {}, sorting: { field: 'amount' as const, direction: 'ASC' as const } };
    const result = await exportExpenses(cache, {
      search,
      file,
      format: { locale: 'de-DE' },
      overwrite: false,
    });
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header, ...rows] = parseCsv(bytes.toString('utf8').slice(1), ';');
    expect(header).toEqual([...EXPENSE_CSV_COLUMNS]);
    const at = (row: string[], name: (typeof EXPENSE_CSV_COLUMNS)[number]) =>
      row[EXPENSE_CSV_COLUMNS.indexOf(name)];

    // The same expenses as the search, in its order (the deleted one left out), field by field.
    const expected = searchExpenses(cache, { ...search, pagination: { page: 1, pageSize: 100 } }).rows;
    expect(result.rows).toBe(expected.length);
    expect(rows.map((row) => at(row, 'id'))).toEqual(expected.map((row) => row.id));
    expect(rows.map((row) => at(row, 'id'))).not.toContain('exp-5');
    for (const [i, row] of rows.entries()) {
      const want = expected[i]!;
      expect(at(row, 'files')).toBe(String(want.fileCount));
      expect(at(row, 'supplier')).toBe(want.supplierName ?? '');
      expect(at(row, 'currency')).toBe(want.amount?.currency ?? '');
    }
    const byId = new Map(rows.map((row) => [at(row, 'id'), row]));
    const workshop = byId.get('exp-2')!;
    expect(at(workshop, 'amount')).toBe('-2500,00'); // exact, decimal comma
    expect(at(workshop, 'supplier')).toBe('Nordlicht Consulting');
    expect([at(workshop, 'flagged'), at(workshop, 'flag_reason'), at(workshop, 'tags')]).toEqual([
      'true',
      'Ask Anna',
      'audit, q1',
    ]);
    expect(at(workshop, 'expense_accounts')).toBe('6300 Consulting');
    expect(at(workshop, 'booked_on')).toBe(
      'Cost center: 1000 Management | Project: Audit; 2026 | Project: item-gone',
    );
    expect(at(byId.get('exp-1')!, 'expense_accounts')).toBe('');
    expect(at(byId.get('exp-1')!, 'booked_on')).toBe('');
    expect(at(byId.get('exp-1')!, 'reviewed')).toBe('true');
    expect(at(byId.get('exp-1')!, 'files')).toBe('1');
    expect(at(byId.get('exp-4')!, 'files')).toBe('1'); // on a line
    expect(at(byId.get('exp-3')!, 'merchant')).toBe('Café Einstein');
    expect(at(byId.get('exp-3')!, 'files')).toBe('0'); // its only file is deleted
    const draft = byId.get('exp-9')!;
    expect(at(draft, 'description')).toBe(`'=HYPERLINK("x")`);
    expect(at(draft, 'booking_text')).toBe('Draft; "rough"');
    expect([at(draft, 'amount'), at(draft, 'currency')]).toEqual(['', '']);
    expect(at(draft, 'expense_time')).toBe('2026-03-12T09:00:00Z');

    // Filters and deleted rows as in the search; a file there is kept unless replacing is asked.
    await expect(
      exportExpenses(cache, {
        search: { filters: {}, sorting: search.sorting },
        file,
        format: {},
        overwrite: false,
      }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS', field: 'file' });
    const flagged = await exportExpenses(cache, {
      search: { filters: { flagged: true, includeDeleted: true }, sorting: search.sorting },
      file,
      format: {},
      overwrite: true,
    });
    expect(flagged.rows).toBe(1);
    expect(readFileSync(file, 'utf8').split('\r\n')[1]).toMatch(/^exp-2,/);
  });
});
