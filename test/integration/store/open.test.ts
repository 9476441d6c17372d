import type { ReviewChange, TransactionFilters } from '../../../src-shared/search';
import { applyReview, reviewStates } from '../../../src-main/review';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CacheOpenError,
  defaultMigrationsDir,
  expenseSearchIsConsistent,
  gramCandidates,
  openCache,
  PAGE_CACHE_KIB,
  removeStaleSnapshots,
  shippedSchemaVersion,
  transactionSearchIsConsistent,
} from '../../../src-main/store';
import { transactionDetail } from '../../../src-main/details/transactions';
import { textAbsentFromAccounts } from '../../../src-main/store/account-grams';
import { needleKey, readGramRows } from '../../../src-main/store/gram-rows';
import { bankTransactions } from '../../../src-main/store/schema';
import { totalsQuery, transactionTotals } from '../../../src-main/search/transactions';
import { searchExpenses } from '../../../src-main/search/expenses';
import { transactionRow, useCaches } from './fixtures';
import { useReadOnlyFolders } from '../../helpers/read-only';

const caches = useCaches();
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function openError(file: string, migrationsDir = defaultMigrationsDir()): CacheOpenError {
  try {
    openCache(file, { migrationsDir }).close();
  } catch (error) {
    expect(error).toBeInstanceOf(CacheOpenError);
    return error as CacheOpenError;
  }
  throw new Error('expected openCache to fail');
}

/** The migrations folder of the build before migration `tag` (a copy whose journal stops there). */
function migrationsBefore(tag: string): string {
  const olderApp = path.join(caches.tempDir(), `migrations-before-${tag}`);
  cpSync(defaultMigrationsDir(), olderApp, { recursive: true });
  const journalFile = path.join(olderApp, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const upTo = journal.entries.findIndex((entry) => entry.tag.startsWith(tag));
  expect(upTo).toBeGreaterThan(0);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo) }));
  return olderApp;
}

/**
 * A cache written by the build before migration `tag`, holding one transaction per row of
 * overrides (transactionRow), then opened by this build: the upgrade under test.
 */
function upgradedFrom(tag: string, rows: Record<string, unknown>[]) {
  const file = caches.file();
  const older = openCache(file, { migrationsDir: migrationsBefore(tag) });
  for (const overrides of rows) older.db.insert(bankTransactions).values(transactionRow(overrides)).run();
  older.close();
  return caches.open(file);
}

describe('openCache', () => {
  it('ships the init and fts migrations', () => {
    expect(shippedSchemaVersion(defaultMigrationsDir())).toBeGreaterThanOrEqual(2);
    expect(existsSync(path.join(defaultMigrationsDir(), 'meta', '_journal.json'))).toBe(true);
  });

  it('creates and migrates a fresh file, in WAL mode with the expected pragmas', () => {
    const file = path.join(caches.tempDir(), 'nested', 'org.sqlite');
    const cache = caches.open(file);
    expect(cache.file).toBe(file);
    expect(cache.schemaVersion).toBe(shippedSchemaVersion(defaultMigrationsDir()));
    expect(cache.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(cache.sqlite.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(cache.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(cache.sqlite.pragma('recursive_triggers', { simple: true })).toBe(1);
    expect(Number(cache.sqlite.pragma('busy_timeout', { simple: true }))).toBeGreaterThan(0);
    // 64 MiB of pages (negative: KiB), not SQLite's 2 MiB default.
    expect(cache.sqlite.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);

    const names = (
      cache.sqlite.prepare(`SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')`).all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    for (const expected of [
      'bank_accounts',
      'bank_account_balances',
      'bank_transactions',
      'bank_transaction_fees',
      'expenses',
      'expense_lines',
      'expense_line_dimensions',
      'expense_files',
      'suppliers',
      'dimensions',
      'dimension_items',
      'expense_accounts',
      'tax_rates',
      'users',
      'teams',
      'departments',
      'payment_terms',
      'sync_checkpoints',
      'sync_runs',
      'bank_transactions_fts',
      // A later migration that rebuilds bank_transactions drops these; this guards against it.
      'bank_transactions_fts_insert',
      'bank_transactions_fts_update',
      'bank_transactions_fts_delete',
      'bank_transaction_text',
      'bank_transaction_text_insert',
      'bank_transaction_text_update',
      'bank_transaction_text_delete',
      'bank_transaction_grams',
      'bank_transaction_gram_stale',
      'bank_transaction_gram_state',
      'bank_transaction_gram_stale_insert',
      'bank_transaction_gram_stale_delete',
      'bank_transaction_gram_stale_booking_date',
      'bank_transaction_gram_rows',
      'bank_transaction_gram_stale_account',
      'bank_transaction_account_grams',
      // A later migration that rebuilds expenses or expense_lines drops these.
      'expense_text',
      'expense_text_fts',
      'expense_text_fts_insert',
      'expense_text_fts_update',
      'expense_text_fts_delete',
      'expense_text_expense_insert',
      'expense_text_expense_update',
      'expense_text_expense_delete',
      'expense_text_line_insert',
      'expense_text_line_update',
      'expense_text_line_delete',
    ]) {
      expect(names).toContain(expected);
    }
    expect(cache.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('reopens an up-to-date file without applying anything and keeps its data', () => {
    const file = caches.file();
    const first = caches.open(file);
    first.db
      .insert(bankTransactions)
      .values(transactionRow({ id: 'keep-me' }))
      .run();
    first.close();

    const second = caches.open(file);
    const third = caches.open(file); // a second connection at once, as the CLI beside the app
    expect(second.schemaVersion).toBe(first.schemaVersion);
    expect(third.schemaVersion).toBe(first.schemaVersion);
    const migrations = second.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as {
      n: number;
    };
    expect(migrations.n).toBe(shippedSchemaVersion(defaultMigrationsDir()));
    expect(
      second.db
        .select()
        .from(bankTransactions)
        .all()
        .map((r) => r.id),
    ).toEqual(['keep-me']);
    expect(transactionSearchIsConsistent(second.sqlite)).toBe(true);
  });

  it('close() can be called twice', () => {
    const cache = caches.open(caches.file());
    cache.close();
    expect(() => cache.close()).not.toThrow();
  });

  it('accepts an empty file as a new cache', () => {
    const file = caches.file();
    writeFileSync(file, '');
    expect(caches.open(file).schemaVersion).toBe(shippedSchemaVersion(defaultMigrationsDir()));
  });

  it('gives an upgraded cache the planner statistics of its new indexes at once', () => {
    // A cache of the build before migration 0007, holding transactions.
    const olderApp = migrationsBefore('0007');
    const file = caches.file();
    const older = openCache(file, { migrationsDir: olderApp });
    for (let i = 0; i < 50; i++) older.db.insert(bankTransactions).values(transactionRow()).run();
    const statsTable = (sqlite: typeof older.sqlite) =>
      sqlite.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").pluck().get();
    expect(statsTable(older.sqlite)).toBe(0);
    older.close();

    const upgraded = caches.open(file);
    const stats = upgraded.sqlite.prepare('SELECT idx, stat FROM sqlite_stat1').all() as Array<{
      idx: string;
      stat: string;
    }>;
    expect(stats.find((row) => row.idx === 'bank_transactions_account_text_idx')?.stat).toMatch(/^50 /);
    // Reopening an up-to-date cache analyzes nothing again (statistics stay as they are).
    upgraded.sqlite.prepare('DELETE FROM sqlite_stat1').run();
    upgraded.close();
    expect(caches.open(file).sqlite.prepare('SELECT count(*) FROM sqlite_stat1').pluck().get()).toBe(0);
  });

  it('fills the gram blocks of an upgraded cache at once, so short text is not searched row by row', () => {
    const upgraded = upgradedFrom(
      '0008',
      Array.from({ length: 40 }, (_, i) => ({ counterparty: i === 7 ? 'Zqy Rare' : 'Deutsche Bahn' })),
    );
    expect(upgraded.sqlite.prepare('SELECT count(*) FROM bank_transaction_gram_stale').pluck().get()).toBe(0);
    expect(transactionSearchIsConsistent(upgraded.sqlite)).toBe(true);
    expect(gramCandidates(upgraded.sqlite, 'zq').blocks).toBe(1);
    expect(gramCandidates(upgraded.sqlite, 'qz').blocks).toBe(0);
  });

  it('gives an upgraded cache the row lists of its rare grams at once', () => {
    const upgraded = upgradedFrom(
      '0009',
      Array.from({ length: 40 }, (_, i) => ({
        counterparty: i % 10 === 7 ? 'Zqy Rare' : 'Deutsche Bahn',
      })),
    );
    expect(upgraded.sqlite.prepare('SELECT count(*) FROM bank_transaction_gram_stale').pluck().get()).toBe(0);
    expect(transactionSearchIsConsistent(upgraded.sqlite)).toBe(true);
    expect(Array.from(readGramRows(upgraded.sqlite, needleKey('zq')!)!.rowIds)).toEqual([8, 18, 28, 38]);
  });

  it('gives an upgraded cache the gram sets of its accounts at once', () => {
    const upgraded = upgradedFrom('0010', [
      { bankAccountId: 'acc-1', counterparty: 'Deutsche Bahn' },
      { bankAccountId: 'acc-2', counterparty: 'Tesco Stores' },
    ]);
    expect(transactionSearchIsConsistent(upgraded.sqlite)).toBe(true);
    expect(textAbsentFromAccounts(upgraded.sqlite, 'tesco', ['acc-1'])).toBe(true);
    expect(textAbsentFromAccounts(upgraded.sqlite, 'tesco', ['acc-2'])).toBe(false);
  });

  /**
   * A cache upgraded across `tag` (30 rows of 100..129 minor units, every third in SEK, in
   * two accounts) answers the totals of `filters` from `index` alone, which has its planner
   * statistics, with the rows' own sums.
   */
  function expectTotalsFromIndex(tag: string, index: string, filters: TransactionFilters) {
    const rows = Array.from({ length: 30 }, (_, i) => ({
      bankAccountId: i % 2 ? 'acc-1' : 'acc-2',
      amountMinor: 100 + i,
      amountCurrency: i % 3 ? 'EUR' : 'SEK',
    }));
    const upgraded = upgradedFrom(tag, rows);
    const query = totalsQuery(upgraded.sqlite, filters);
    const plan = (
      upgraded.sqlite.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(query.params) as { detail: string }[]
    ).map((row) => row.detail);
    expect(plan.join('\n')).toContain(`COVERING INDEX ${index}`);
    expect(
      upgraded.sqlite.prepare(`SELECT count(*) FROM sqlite_stat1 WHERE idx = ?`).pluck().get(index),
    ).toBe(1);
    const counted = rows.filter(
      (row) => !filters.accountIds || filters.accountIds.includes(row.bankAccountId),
    );
    const of = (currency: string) => counted.filter((row) => row.amountCurrency === currency);
    expect(transactionTotals(upgraded, filters).sums).toEqual(
      ['EUR', 'SEK'].map((currency) => ({
        currency,
        count: of(currency).length,
        minor: of(currency).reduce((sum, row) => sum + row.amountMinor, 0),
      })),
    );
  }

  it('gives an upgraded cache the totals index, and its planner statistics', () => {
    expectTotalsFromIndex('0011', 'bank_transactions_totals_idx', {});
  });

  it('gives an upgraded cache the account totals index, and its planner statistics', () => {
    expectTotalsFromIndex('0012', 'bank_transactions_account_totals_idx', { accountIds: ['acc-1'] });
  });

  it('moves the review marks of an upgraded cache into record-id order, every mark kept', () => {
    // Marks made one at a time in the reverse of their ids' order, as weeks of review make them
    // in no particular order; a rowid table kept them in that order (migration 0013).
    const file = caches.file();
    const older = openCache(file, { migrationsDir: migrationsBefore('0013') });
    const ids = Array.from({ length: 60 }, (_, i) => `tx-${String(i).padStart(3, '0')}`);
    for (const id of ids) older.db.insert(bankTransactions).values(transactionRow({ id })).run();
    const mark = (id: string, change: ReviewChange) =>
      applyReview(older, { by: 'ids', kind: 'transaction', ids: [id] }, change);
    for (const [i, id] of [...ids].reverse().entries()) {
      mark(id, { action: 'setReviewed' });
      if (i % 3 === 0) mark(id, { action: 'flag', reason: `Receipt ${i} missing` });
      if (i % 4 === 0) mark(id, { action: 'setNote', note: `Note ${i}: “ask” the client` });
      if (i % 5 === 0) mark(id, { action: 'addTags', tags: ['audit', `q${i % 4}`] });
      if (i % 6 === 0) mark(id, { action: 'clearReviewed' });
    }
    // A mark of an expense not (yet) in the cache, as an import brings one.
    older.sqlite
      .prepare(
        `INSERT INTO review_marks (kind, record_id, flagged, flag_reason, flag_changed_at, updated_at)
         VALUES ('expense', 'exp-1', 1, 'No receipt', '2026-11-01T10:00:00.000Z', '2026-11-01T10:00:00.000Z')`,
      )
      .run();
    const everything = (sqlite: typeof older.sqlite) => ({
      marks: sqlite.prepare('SELECT * FROM review_marks ORDER BY kind, record_id').all(),
      tags: sqlite.prepare('SELECT * FROM review_tags ORDER BY kind, record_id, tag').all(),
    });
    const before = everything(older.sqlite);
    expect(
      older.sqlite
        .prepare(`SELECT record_id FROM review_marks NOT INDEXED WHERE kind = 'transaction'`)
        .pluck()
        .all(),
    ).toEqual([...ids].reverse());
    older.close();

    const upgraded = caches.open(file);
    expect(everything(upgraded.sqlite)).toEqual(before);
    expect(before.marks).toHaveLength(61);
    // Stored by its key: a scan of the table itself returns the marks in the ids' order.
    const table = upgraded.sqlite
      .prepare(`SELECT wr FROM pragma_table_list WHERE name = 'review_marks'`)
      .get() as { wr: number };
    expect(table.wr).toBe(1);
    expect(
      upgraded.sqlite
        .prepare(`SELECT record_id FROM review_marks NOT INDEXED WHERE kind = 'transaction'`)
        .pluck()
        .all(),
    ).toEqual(ids);
    expect(
      upgraded.sqlite
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'review_marks' ORDER BY name`,
        )
        .pluck()
        .all(),
    ).toEqual(['review_marks_flagged_idx', 'review_marks_note_idx', 'review_marks_reviewed_idx']);
    // The table's rules hold as before: a flag needs its reason.
    expect(() =>
      upgraded.sqlite
        .prepare(
          `INSERT INTO review_marks (kind, record_id, flagged, updated_at) VALUES ('transaction', 'tx-x', 1, '2026-01-01')`,
        )
        .run(),
    ).toThrow(/CHECK constraint failed: review_marks_flag_reason/);
    // And the marks answer as before: the review state of each record, tags included.
    const states = reviewStates(upgraded, 'transaction', ids);
    for (const row of before.marks as Array<Record<string, unknown>>) {
      if (row['kind'] !== 'transaction') continue;
      const id = row['record_id'] as string;
      expect(states.get(id)).toEqual({
        reviewedAt: row['reviewed_at'],
        flagged: row['flagged'] === 1,
        flagReason: row['flag_reason'],
        note: row['note'],
        tags: (before.tags as Array<Record<string, unknown>>)
          .filter((tag) => tag['record_id'] === id)
          .map((tag) => tag['tag']),
      });
    }
    expect(
      applyReview(upgraded, { by: 'ids', kind: 'transaction', ids }, { action: 'setReviewed' }).changed,
    ).toBe(10);
  });

  it("gives an upgraded cache each expense's bank transaction as a column, filled from the raw record", () => {
    const file = caches.file();
    const older = openCache(file, { migrationsDir: migrationsBefore('0014') });
    const linked = transactionRow();
    older.db.insert(bankTransactions).values(linked).run();
    const expense = older.sqlite.prepare(
      `INSERT INTO expenses (id, type, raw, synced_at) VALUES (?, 'CARD_TRANSACTION', ?, '2026-11-01T10:00:00.000Z')`,
    );
    // A link, none (null or missing), and one the server sent as something other than an id.
    expense.run('exp-linked', JSON.stringify({ id: 'exp-linked', bankTransactionId: linked.id }));
    expense.run('exp-null', JSON.stringify({ id: 'exp-null', bankTransactionId: null }));
    expense.run('exp-missing', JSON.stringify({ id: 'exp-missing' }));
    expense.run('exp-odd', JSON.stringify({ id: 'exp-odd', bankTransactionId: { id: linked.id } }));
    older.close();

    const upgraded = caches.open(file);
    expect(
      upgraded.sqlite.prepare(`SELECT id, bank_transaction_id AS link FROM expenses ORDER BY id`).all(),
    ).toEqual([
      { id: 'exp-linked', link: linked.id },
      { id: 'exp-missing', link: null },
      { id: 'exp-null', link: null },
      { id: 'exp-odd', link: null },
    ]);
    // The pane's lookup goes through the index rather than reading every expense.
    const plan = upgraded.sqlite
      .prepare(
        `EXPLAIN QUERY PLAN SELECT id FROM expenses WHERE bank_transaction_id = ? ORDER BY id LIMIT 10`,
      )
      .all('x')
      .map((row) => (row as { detail: string }).detail)
      .join(' | ');
    expect(plan).toContain('expenses_bank_transaction_idx');
    expect(transactionDetail(upgraded, linked.id).expenses.map((detail) => detail.expense.id)).toEqual([
      'exp-linked',
    ]);
  });

  it('keeps the version each open edit of an upgraded cache was made on, where its base still is it', () => {
    const file = caches.file();
    const older = openCache(file, { migrationsDir: migrationsBefore('0016') });
    const edit = older.sqlite.prepare(
      `INSERT INTO outbox (operation_id, resource, operation, record_id, payload, based_on, base, status)
       VALUES (?, 'supplier', ?, ?, '{"name":"Mine"}', ?, ?, ?)`,
    );
    const at = (updateTime: string) => JSON.stringify({ id: 'sup-1', name: 'Theirs', updateTime });
    // Its base is the version it was made on; a pull has since replaced another's; one was sent;
    // a create has no server version at all.
    edit.run('op-kept', 'update', 'sup-1', '2026-11-01T10:00:00Z', at('2026-11-01T10:00:00Z'), 'pending');
    edit.run('op-pulled', 'update', 'sup-1', '2026-11-01T10:00:00Z', at('2026-11-02T09:00:00Z'), 'conflict');
    edit.run('op-done', 'update', 'sup-1', '2026-11-01T10:00:00Z', at('2026-11-01T10:00:00Z'), 'done');
    edit.run('op-create', 'create', 'local-1', null, null, 'pending');
    older.close();

    const upgraded = caches.open(file);
    expect(
      upgraded.sqlite
        .prepare(`SELECT operation_id AS op, based_on_record AS made FROM outbox ORDER BY seq`)
        .all(),
    ).toEqual([
      { op: 'op-kept', made: at('2026-11-01T10:00:00Z') },
      { op: 'op-pulled', made: null },
      { op: 'op-done', made: null },
      { op: 'op-create', made: null },
    ]);
  });

  it('leaves the files an earlier version downloaded without a time, to be checked by size', () => {
    const file = caches.file();
    const older = openCache(file, { migrationsDir: migrationsBefore('0017') });
    older.sqlite
      .prepare(
        `INSERT INTO download_jobs (id, destination, template, layout, scope, status, created_at, updated_at)
         VALUES ('job-1', '/tmp/out', '{fileId}', 'flat', '{}', 'completed', '2026-11-01T10:00:00.000Z',
           '2026-11-01T10:00:00.000Z')`,
      )
      .run();
    older.sqlite
      .prepare(
        `INSERT INTO download_items (job_id, file_id, position, relative_path, size, status, source, finished_at)
         VALUES ('job-1', 'file-1', 0, 'file-1.pdf', 615, 'done', 'fetched', '2026-11-01T10:00:00.000Z')`,
      )
      .run();
    older.close();

    const upgraded = caches.open(file);
    expect(
      upgraded.sqlite
        .prepare(`SELECT file_id AS fileId, status, mtime_ms AS mtimeMs FROM download_items`)
        .all(),
    ).toEqual([{ fileId: 'file-1', status: 'done', mtimeMs: null }]);
  });

  it("indexes an upgraded cache's expense and line text, so search finds what was synced before", () => {
    const file = caches.file();
    const older = openCache(file, { migrationsDir: migrationsBefore('0015') });
    const expense = older.sqlite.prepare(
      `INSERT INTO expenses (id, description, booking_text, merchant_name, deleted_at, raw, synced_at)
       VALUES (?, ?, ?, ?, ?, ?, '2026-11-01T10:00:00.000Z')`,
    );
    expense.run('exp-own', 'Quarterly zeppelin charter', 'Airship hire', 'Luftschiff GmbH', null, '{}');
    expense.run('exp-lines', 'Office', null, null, null, '{}');
    expense.run('exp-gone', 'Zeppelin deposit', null, null, '2026-10-01T00:00:00.000Z', '{}');
    const line = older.sqlite.prepare(
      `INSERT INTO expense_lines (id, expense_id, position, raw) VALUES (?, 'exp-lines', ?, ?)`,
    );
    line.run('line-1', 0, JSON.stringify({ description: 'Walrus feed' }));
    line.run('line-2', 1, JSON.stringify({ description: 'Größere Kiste' }));
    line.run('line-3', 2, JSON.stringify({}));
    older.close();

    const upgraded = caches.open(file);
    expect(expenseSearchIsConsistent(upgraded.sqlite)).toBe(true);
    const found = (text: string, includeDeleted = false) =>
      searchExpenses(upgraded, { filters: { text, includeDeleted } }).rows.map((row) => row.id);
    expect(found('ZEPPELIN')).toEqual(['exp-own']);
    expect(found('zeppelin', true).sort()).toEqual(['exp-gone', 'exp-own']);
    expect(found('airship')).toEqual(['exp-own']);
    expect(found('schiff')).toEqual(['exp-own']);
    expect(found('walrus')).toEqual(['exp-lines']);
    expect(found('GRÖSSERE')).toEqual([]); // no ß/ss folding, as in transaction search
    expect(found('größere kiste')).toEqual(['exp-lines']);
    expect(found('Wa')).toEqual(['exp-lines']); // 1–2 characters: the documents row by row
    // Later writes keep the documents: a line's new description, an expense removed.
    upgraded.sqlite
      .prepare(`UPDATE expense_lines SET raw = ? WHERE id = 'line-1'`)
      .run(JSON.stringify({ description: 'Seal food' }));
    upgraded.sqlite.prepare(`DELETE FROM expenses WHERE id = 'exp-gone'`).run();
    expect(found('walrus')).toEqual([]);
    expect(found('seal')).toEqual(['exp-lines']);
    expect(found('zeppelin', true)).toEqual(['exp-own']);
    expect(expenseSearchIsConsistent(upgraded.sqlite)).toBe(true);
    // An expense replaced whole (delete and insert) with foreign keys off, as in a migration:
    // its own document anew, its lines (still there) keep theirs.
    upgraded.sqlite.pragma('foreign_keys = OFF');
    upgraded.sqlite
      .prepare(
        `INSERT OR REPLACE INTO expenses (id, description, raw, synced_at)
         VALUES ('exp-lines', 'Stationery', '{}', '2026-11-02T10:00:00.000Z')`,
      )
      .run();
    upgraded.sqlite.pragma('foreign_keys = ON');
    expect(expenseSearchIsConsistent(upgraded.sqlite)).toBe(true);
    expect(found('stationery')).toEqual(['exp-lines']);
    expect(found('office')).toEqual([]);
    expect(found('seal')).toEqual(['exp-lines']);
  });

  it('refuses a file written by a newer schema, with what to do, and leaves it untouched', () => {
    const file = caches.file();
    caches.open(file).close();
    const before = sha(file);

    // This build knows only the first migration: the file is "from the future" for it.
    const olderApp = path.join(caches.tempDir(), 'migrations');
    cpSync(defaultMigrationsDir(), olderApp, { recursive: true });
    const journalFile = path.join(olderApp, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: unknown[] };
    writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, 1) }));

    const error = openError(file, olderApp);
    expect(error.reason).toBe('NEWER_SCHEMA');
    expect(error.message).toMatch(/newer version of Satchel/);
    expect(error.message).toMatch(/update the app, or set the copy aside and rebuild it/i);
    expect(sha(file)).toBe(before);
    expect(caches.open(file).schemaVersion).toBe(shippedSchemaVersion(defaultMigrationsDir()));
  });

  it('refuses a file whose newest migration is later than any this build ships', () => {
    const file = caches.file();
    const cache = caches.open(file);
    cache.sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run('future', 9_999_999_999_999);
    cache.close();
    expect(openError(file).reason).toBe('NEWER_SCHEMA');
  });

  it('refuses a file that is not SQLite, without writing to it', () => {
    const file = caches.file('receipt.pdf');
    writeFileSync(file, '%PDF-1.7\nnot a database at all, but long enough to have a header\n'.repeat(20));
    const before = sha(file);
    const error = openError(file);
    expect(error.reason).toBe('NOT_A_DATABASE');
    expect(error.message).toMatch(/not a Satchel offline copy/);
    expect(error.message).toMatch(/set it aside and rebuild it/);
    expect(sha(file)).toBe(before);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('refuses a damaged file that only looks like SQLite, without writing to it', () => {
    const file = caches.file();
    const junk = Buffer.alloc(8192, 0xa5);
    junk.write('SQLite format 3\u0000', 0, 'latin1');
    writeFileSync(file, junk);
    const before = sha(file);
    expect(openError(file).reason).toBe('NOT_A_DATABASE');
    expect(sha(file)).toBe(before);
  });

  it('refuses a folder and a missing migrations folder with their own reasons', () => {
    const folder = path.join(caches.tempDir(), 'org.sqlite');
    mkdirSync(folder);
    expect(openError(folder).reason).toBe('NOT_A_DATABASE');
    const error = openError(caches.file(), path.join(caches.tempDir(), 'nowhere'));
    expect(error.reason).toBe('NO_MIGRATIONS');
    expect(error.message).toMatch(/Reinstall/);
  });
});

describe('a copy that cannot be written', () => {
  const makeReadOnly = useReadOnlyFolders();
  /** The bytes and modification time of every file in the folder: what "unchanged" means. */
  const state = (folder: string) =>
    readdirSync(folder)
      .sort()
      .map((name) => {
        const file = path.join(folder, name);
        return { name, sha: sha(file), mtime: statSync(file).mtimeMs };
      });

  it('opens read-only: reads work, SQLite refuses every write, nothing on disk changes', () => {
    const file = caches.file();
    const writable = caches.open(file);
    expect(writable.readOnly).toBeNull();
    writable.db
      .insert(bankTransactions)
      .values(transactionRow({ counterparty: 'Read Only GmbH' }))
      .run();
    writable.close();
    const folder = path.dirname(file);
    const before = state(folder);
    const undo = makeReadOnly(folder);

    const cache = caches.open(file);
    expect(cache.readOnly).toMatchObject({ where: folder });
    expect(cache.readOnly?.why).toContain('read-only');
    expect(cache.schemaVersion).toBe(shippedSchemaVersion(defaultMigrationsDir()));
    // Closed cleanly, the copy left no -shm file, and none can be made there: SQLite cannot read
    // it in place, so it is read from a private snapshot, removed on close.
    expect(cache.readFile).not.toBe(file);
    const rows = cache.sqlite.prepare('SELECT counterparty FROM bank_transactions').pluck().all();
    expect(rows).toEqual(['Read Only GmbH']);
    expect(() =>
      cache.db
        .insert(bankTransactions)
        .values(transactionRow({ counterparty: 'Never' }))
        .run(),
    ).toThrow(expect.objectContaining({ code: expect.stringMatching(/^SQLITE_READONLY/) }));
    cache.close();
    expect(existsSync(cache.readFile)).toBe(false);
    undo();
    expect(state(folder)).toEqual(before);

    // Fixed: the next open writes again.
    const again = caches.open(file);
    expect(again.readOnly).toBeNull();
    again.db.insert(bankTransactions).values(transactionRow()).run();
  });

  it('refuses a copy that needs an update it cannot be given, and leaves it as it was', () => {
    const file = caches.file();
    openCache(file, { migrationsDir: migrationsBefore('0015') }).close();
    const folder = path.dirname(file);
    const before = state(folder);
    makeReadOnly(folder);
    const error = openError(file);
    expect(error.reason).toBe('READ_ONLY');
    expect(error.message).toMatch(
      /must be updated for this version of Satchel before it can be read, and it cannot be written: .*read-only.*Nothing was changed/,
    );
    expect(state(folder)).toEqual(before);
  });
});

describe('snapshots of read-only copies left by a killed process', () => {
  const makeReadOnly = useReadOnlyFolders();
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(
      children
        .splice(0)
        .map(async (child) => child.exitCode === null && child.signalCode === null && killed(child)),
    );
    // Their snapshots too: what the next open would remove.
    removeStaleSnapshots();
  });
  const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

  /** A process of its own that opens the copy and keeps it open; resolves with the file it reads. */
  function openInChild(file: string): Promise<{ child: ChildProcess; readFile: string }> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'test/helpers/read-only-process.ts'), file],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    return new Promise((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve({ child, readFile: stdout.trim() });
      });
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (code) => reject(new Error(`the child ended (${code}) before opening: ${stderr}`)));
    });
  }

  const killed = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });

  it('removes a killed process’s snapshot at the next open, and keeps a live one’s', async () => {
    const file = caches.file();
    const writable = caches.open(file);
    writable.db.insert(bankTransactions).values(transactionRow()).run();
    writable.close();
    makeReadOnly(path.dirname(file));

    const [dead, live] = await Promise.all([openInChild(file), openInChild(file)]);
    for (const opened of [dead, live]) {
      // Closed cleanly, the copy is read from a snapshot of its own in the temporary folder.
      expect(opened.readFile).not.toBe(file);
      expect(path.basename(path.dirname(opened.readFile))).toMatch(
        new RegExp(`^satchel-read-only-${opened.child.pid}-`),
      );
      expect(existsSync(opened.readFile)).toBe(true);
    }
    await killed(dead.child);
    // Killed, it could not remove its snapshot: a whole copy of the database, left behind.
    expect(existsSync(dead.readFile)).toBe(true);

    const cache = caches.open(file);
    expect(cache.readOnly).not.toBeNull();
    expect(existsSync(dead.readFile)).toBe(false);
    expect(existsSync(path.dirname(dead.readFile))).toBe(false);
    // The live process's snapshot and this one's own stay, and both still read.
    expect(existsSync(live.readFile)).toBe(true);
    expect(existsSync(cache.readFile)).toBe(true);
    expect(cache.sqlite.prepare('SELECT count(*) FROM bank_transactions').pluck().get()).toBe(1);
    expect(removeStaleSnapshots()).not.toContain(path.basename(path.dirname(live.readFile)));
    expect(existsSync(live.readFile)).toBe(true);
  });
});
