import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { CacheDb } from '../../../src-main/store';
import {
  bankTransactionFees,
  bankTransactions,
  expenseLines,
  expenses,
  suppliers,
  syncCheckpoints,
  syncRuns,
} from '../../../src-main/store/schema';
import { transactionRow, useCaches } from './fixtures';

const caches = useCaches();

const insertSql = `INSERT INTO bank_transactions (id, bank_account_id, amount_minor, amount_currency, booking_date, raw)
                   VALUES (?, 'acc-1', ?, ?, '2026-03-01', ?)`;

function rawInsert(cache: CacheDb, id: string, amount: unknown, currency: unknown = 'EUR', raw = '{}') {
  return cache.sqlite.prepare(insertSql).run(id, amount, currency, raw);
}

describe('money columns', () => {
  it('store integer minor units and read back as integers (number, or bigint on request)', () => {
    const cache = caches.open(caches.file());
    cache.db
      .insert(bankTransactions)
      .values(transactionRow({ id: 'm1', amountMinor: -123456, amountCurrency: 'JPY' }))
      .run();
    const row = cache.db.select().from(bankTransactions).where(eq(bankTransactions.id, 'm1')).get();
    expect(row?.amountMinor).toBe(-123456);
    expect(Number.isInteger(row?.amountMinor)).toBe(true);

    rawInsert(cache, 'm2', 9_007_199_254_740_993n); // beyond 2^53: exact only as bigint
    const big = cache.sqlite
      .prepare(`SELECT amount_minor AS a, typeof(amount_minor) AS t FROM bank_transactions WHERE id = 'm2'`)
      .safeIntegers(true)
      .get() as {
      a: bigint;
      t: string;
    };
    expect(big).toEqual({ a: 9_007_199_254_740_993n, t: 'integer' });

    const types = cache.sqlite
      .prepare(`SELECT DISTINCT typeof(amount_minor) AS t FROM bank_transactions`)
      .all();
    expect(types).toEqual([{ t: 'integer' }]);
  });

  it('reject REAL and decimal text by CHECK, though INTEGER affinity alone would keep 12.5', () => {
    const cache = caches.open(caches.file());
    expect(() => rawInsert(cache, 'r1', 12.5)).toThrow(
      /CHECK constraint failed: bank_transactions_amount_minor_integer/,
    );
    expect(() => rawInsert(cache, 'r2', '12.50')).toThrow(/amount_minor_integer/);
    expect(() => rawInsert(cache, 'r3', 'twelve')).toThrow(/amount_minor_integer/);
    // Whole numbers are whole numbers, however they arrive: SQLite's affinity makes them INTEGER.
    rawInsert(cache, 'ok1', 1250.0);
    rawInsert(cache, 'ok2', '1250');
    expect(
      cache.sqlite.prepare(`SELECT DISTINCT typeof(amount_minor) AS t FROM bank_transactions`).all(),
    ).toEqual([{ t: 'integer' }]);

    expect(() =>
      cache.db
        .insert(bankTransactionFees)
        .values({
          transactionId: 'ok1',
          position: 0,
          feeType: 'FX_FEE',
          amountMinor: 0.5,
          amountCurrency: 'EUR',
        })
        .run(),
    ).toThrow(/bank_transaction_fees_amount_minor_integer/);
  });

  it('require a three-letter currency beside an amount, and both or neither on optional money', () => {
    const cache = caches.open(caches.file());
    expect(() => rawInsert(cache, 'c1', 100, 'eur')).toThrow(/amount_currency_code/);
    expect(() => rawInsert(cache, 'c2', 100, 'EURO')).toThrow(/amount_currency_code/);
    expect(() => rawInsert(cache, 'c3', 100, null)).toThrow(/NOT NULL/);

    const expense = { id: 'e1', raw: '{}' };
    expect(() =>
      cache.db
        .insert(expenses)
        .values({ ...expense, amountMinor: 100 })
        .run(),
    ).toThrow(/expenses_amount_pair/);
    expect(() =>
      cache.db
        .insert(expenses)
        .values({ ...expense, homeAmountCurrency: 'EUR' })
        .run(),
    ).toThrow(/expenses_home_amount_pair/);
    cache.db.insert(expenses).values(expense).run(); // no amounts at all is fine (a draft)
  });
});

describe('other column rules', () => {
  it('keep raw JSON valid, flags 0/1 and JSON state columns valid', () => {
    const cache = caches.open(caches.file());
    expect(() => rawInsert(cache, 'j1', 100, 'EUR', '{not json')).toThrow(/raw_json/);
    expect(() => cache.sqlite.prepare(`UPDATE bank_transactions SET matched = 2`).run()).not.toThrow(); // no rows yet
    rawInsert(cache, 'j2', 100);
    expect(() => cache.sqlite.prepare(`UPDATE bank_transactions SET matched = 2`).run()).toThrow(
      /matched_flag/,
    );
    expect(() =>
      cache.db.insert(syncCheckpoints).values({ resource: 'expenses', cursor: '{page: 1' }).run(),
    ).toThrow(/cursor_json/);
    expect(() => cache.sqlite.prepare(`INSERT INTO sync_runs (outcome) VALUES ('great')`).run()).toThrow(
      /sync_runs_outcome/,
    );

    const run = cache.db.insert(syncRuns).values({}).returning().get();
    expect(run).toMatchObject({ outcome: 'running', counts: '{}', errors: '[]', finishedAt: null });
    expect(run.startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('give editable rows local_edit_pending = false by default', () => {
    const cache = caches.open(caches.file());
    cache.db.insert(suppliers).values({ id: 's1', name: 'ACME', raw: '{}' }).run();
    expect(cache.db.select().from(suppliers).get()?.localEditPending).toBe(false);
  });

  it('cascade fees with their transaction and lines with their expense', () => {
    const cache = caches.open(caches.file());
    cache.db
      .insert(bankTransactions)
      .values(transactionRow({ id: 'f1' }))
      .run();
    cache.db
      .insert(bankTransactionFees)
      .values({
        transactionId: 'f1',
        position: 0,
        feeType: 'FX_FEE',
        amountMinor: -50,
        amountCurrency: 'EUR',
      })
      .run();
    expect(() =>
      cache.db
        .insert(bankTransactionFees)
        .values({
          transactionId: 'nope',
          position: 0,
          feeType: 'FX_FEE',
          amountMinor: -50,
          amountCurrency: 'EUR',
        })
        .run(),
    ).toThrow(/FOREIGN KEY/);
    cache.db.delete(bankTransactions).where(eq(bankTransactions.id, 'f1')).run();
    expect(cache.db.select().from(bankTransactionFees).all()).toEqual([]);

    cache.db.insert(expenses).values({ id: 'e1', raw: '{}' }).run();
    cache.db.insert(expenseLines).values({ id: 'l1', expenseId: 'e1', position: 0, raw: '{}' }).run();
    cache.db.delete(expenses).run();
    expect(cache.db.select().from(expenseLines).all()).toEqual([]);
  });
});

describe('transactions', () => {
  it('a page write that throws leaves neither rows, fees, FTS entries nor checkpoint behind', () => {
    const cache = caches.open(caches.file());
    expect(() =>
      cache.db.transaction((tx) => {
        tx.insert(bankTransactions)
          .values(transactionRow({ id: 'p1', counterparty: 'Half written' }))
          .run();
        tx.insert(bankTransactionFees)
          .values({
            transactionId: 'p1',
            position: 0,
            feeType: 'FX_FEE',
            amountMinor: -5,
            amountCurrency: 'EUR',
          })
          .run();
        tx.insert(syncCheckpoints).values({ resource: 'bankTransactions', cursor: '{"page":2}' }).run();
        throw new Error('network dropped mid-page');
      }),
    ).toThrow('network dropped mid-page');
    const count = (table: string) =>
      (cache.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(count('bank_transactions')).toBe(0);
    expect(count('bank_transaction_fees')).toBe(0);
    expect(count('sync_checkpoints')).toBe(0);
    expect(count('bank_transactions_fts')).toBe(0);

    // A constraint failure inside the page rolls back the whole page too.
    expect(() =>
      cache.db.transaction((tx) => {
        tx.insert(bankTransactions)
          .values(transactionRow({ id: 'p2' }))
          .run();
        tx.insert(bankTransactions)
          .values(transactionRow({ id: 'p3', amountMinor: 1.5 }))
          .run();
      }),
    ).toThrow(/CHECK constraint/);
    expect(count('bank_transactions')).toBe(0);
  });
});

describe('transaction list indexes', () => {
  const sortColumns = [
    'booking_date',
    'value_date',
    'amount_minor',
    'counterparty',
    'description',
    'transaction_type',
    'id',
  ];

  function plan(cache: CacheDb, query: string): string {
    return (cache.sqlite.prepare(`EXPLAIN QUERY PLAN ${query}`).all() as { detail: string }[])
      .map((r) => r.detail)
      .join('\n');
  }

  it('serve every sort column, both directions, keyset-paged with the id tie-break, without sorting', () => {
    const cache = caches.open(caches.file());
    for (let i = 0; i < 50; i++)
      cache.db
        .insert(bankTransactions)
        .values(transactionRow({ amountMinor: i * 7 - 100 }))
        .run();
    cache.sqlite.exec('ANALYZE');
    for (const column of sortColumns) {
      for (const dir of ['ASC', 'DESC']) {
        const cmp = dir === 'ASC' ? '>' : '<';
        const keyset = column === 'id' ? `id ${cmp} '0'` : `(${column}, id) ${cmp} (0, '0')`;
        const order = column === 'id' ? `id ${dir}` : `${column} ${dir}, id ${dir}`;
        const detail = plan(
          cache,
          `SELECT * FROM bank_transactions WHERE deleted_at IS NULL AND ${keyset} ORDER BY ${order} LIMIT 50`,
        );
        expect(detail, `${column} ${dir}`).not.toMatch(/TEMP B-TREE/);
        expect(detail, `${column} ${dir}`).toMatch(/USING INDEX|USING COVERING INDEX/);
      }
    }
  });

  it("walk one account's unmatched rows in the default order from the index alone", () => {
    const cache = caches.open(caches.file());
    for (let i = 0; i < 50; i++)
      cache.db
        .insert(bankTransactions)
        .values(transactionRow({ bankAccountId: `acc-${i % 3}`, matched: i % 2 === 0 }))
        .run();
    cache.sqlite.exec('ANALYZE');
    for (const dir of ['ASC', 'DESC']) {
      const detail = plan(
        cache,
        `SELECT row_id FROM bank_transactions WHERE bank_account_id = 'acc-1' AND matched = 0
         ORDER BY booking_date ${dir}, id ${dir} LIMIT 50`,
      );
      expect(detail, dir).toMatch(/COVERING INDEX bank_transactions_account_text_idx/);
      expect(detail, dir).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('sort by the low-cardinality columns (matched, account) with booking date, then id', () => {
    const cache = caches.open(caches.file());
    for (const column of ['matched', 'bank_account_id']) {
      for (const dir of ['ASC', 'DESC']) {
        const detail = plan(
          cache,
          `SELECT * FROM bank_transactions ORDER BY ${column} ${dir}, booking_date ${dir}, id ${dir} LIMIT 50`,
        );
        expect(detail, `${column} ${dir}`).not.toMatch(/TEMP B-TREE/);
      }
    }
  });

  it('serve the account and matched filters in booking-date order', () => {
    const cache = caches.open(caches.file());
    const byAccount = plan(
      cache,
      `SELECT * FROM bank_transactions WHERE bank_account_id = 'a' ORDER BY booking_date DESC, id DESC LIMIT 50`,
    );
    expect(byAccount).toMatch(/bank_transactions_account_idx/);
    expect(byAccount).not.toMatch(/TEMP B-TREE/);
    const byMatched = plan(
      cache,
      `SELECT * FROM bank_transactions WHERE matched = 0 ORDER BY booking_date DESC, id DESC LIMIT 50`,
    );
    expect(byMatched).toMatch(/bank_transactions_matched_idx/);
    expect(byMatched).not.toMatch(/TEMP B-TREE/);
  });
});
