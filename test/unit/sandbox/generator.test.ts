import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { BankTransaction, Expense } from '../../../src-shared/api';
import { DEFAULT_DATA, createState } from '../../../src-sandbox/data/state';

const fingerprint = (seed: number, transactions: number) => {
  const state = createState({ ...DEFAULT_DATA, seed, transactions });
  const hash = createHash('sha256');
  for (let row = 0; row < state.table.size(); row++) hash.update(JSON.stringify(state.table.toRecord(row)));
  hash.update(
    JSON.stringify([state.suppliers, state.dimensions, state.items, state.expenses, state.reference]),
  );
  for (const file of state.files.slice(0, 50)) hash.update(state.fileBytes(file));
  return hash.digest('hex');
};

describe('generator', () => {
  test('same seed, same data', () => {
    expect(fingerprint(7, 2000)).toBe(fingerprint(7, 2000));
  });

  test('another seed, other data', () => {
    expect(fingerprint(7, 2000)).not.toBe(fingerprint(8, 2000));
  });

  test('records parse with the shared wire schemas', () => {
    const state = createState({ ...DEFAULT_DATA, transactions: 1000 });
    for (let row = 0; row < 1000; row++) BankTransaction.parse(state.table.toRecord(row));
    for (const expense of state.expenses) Expense.parse(expense);
  });

  test('three years of all five transaction types over EUR, USD and GBP wallets', () => {
    const state = createState({ ...DEFAULT_DATA, transactions: 5000 });
    const records = Array.from({ length: state.table.size() }, (_, row) => state.table.toRecord(row));
    expect(new Set(records.map((r) => r.transactionType))).toEqual(
      new Set(['CARD', 'PAYOUT', 'TOP_UP', 'WITHDRAWAL', 'REPAYMENT']),
    );
    expect(new Set(records.map((r) => r.amount.currency))).toEqual(new Set(['EUR', 'USD', 'GBP']));
    expect(records[0]!.bookingDate >= '2023-11-01' && records[0]!.bookingDate <= '2023-11-05').toBe(true);
    expect(records.at(-1)!.bookingDate).toBe('2026-10-31');
    expect(records.some((r) => r.fees.some((f) => f.feeType === 'FX_FEE'))).toBe(true);
    expect(records.some((r) => r.fees.some((f) => f.feeType === 'PAYMENT_FEE'))).toBe(true);
    const matched = records.filter((r) => r.matched).length / records.length;
    expect(matched).toBeGreaterThan(0.65);
    expect(matched).toBeLessThan(0.78);
  });

  test('ids are unique and map back to their row', () => {
    const state = createState({ ...DEFAULT_DATA, transactions: 20_000 });
    const ids = new Set<string>();
    for (let row = 0; row < state.table.size(); row++) {
      const id = state.table.idOf(row);
      ids.add(id);
      if (row % 97 === 0) expect(state.table.rowOf(id)).toBe(row);
    }
    expect(ids.size).toBe(20_000);
    expect(state.table.rowOf('00000000-0000-4000-8000-000000000000')).toBe(-1);
  });

  test('the byte form of ids used by free-text search equals the string form', () => {
    const state = createState({ ...DEFAULT_DATA, transactions: 500 });
    const out = new Uint8Array(36);
    for (const row of [0, 1, 250, 499]) {
      state.table.writeId(row, out, 0);
      expect(Buffer.from(out).toString('latin1')).toBe(state.table.idOf(row));
      state.table.writeGroupId(row, out, 0);
      expect(Buffer.from(out).toString('latin1')).toBe(state.table.groupIdOf(row));
    }
  });

  test('a million transactions generate within seconds', () => {
    const started = performance.now();
    const state = createState({ ...DEFAULT_DATA, transactions: 1_000_000 });
    expect(state.table.size()).toBe(1_000_000);
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 30_000);
});
