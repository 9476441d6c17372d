import type { BankTransaction } from '../../../src-shared/api';
import type { CacheDb } from '../../../src-main/store';
import { createState, DEFAULT_DATA, type State } from '../../../src-sandbox/data/state';
import { useCaches } from '../store/fixtures';
import { upsertTransactions } from './load';

export { useCaches };

/** The sandbox's deterministic demo data: `count` transactions over three years. */
export function demoState(count: number, seed = 7): State {
  return createState({ ...DEFAULT_DATA, seed, transactions: count });
}

export function recordsOf(state: State): BankTransaction[] {
  return Array.from({ length: state.table.size() }, (_, row) => state.table.toRecord(row));
}

/** A fresh cache holding `records`, written as sync writes them. */
export function loadedCache(
  caches: ReturnType<typeof useCaches>,
  records: BankTransaction[],
  deleted: ReadonlySet<string> = new Set(),
): CacheDb {
  const cache = caches.open(caches.file());
  upsertTransactions(cache, records, deleted);
  return cache;
}

/** A clock that moves one second per call, so every review change has its own timestamp. */
export function tickingClock(start = Date.parse('2026-05-01T08:00:00Z')): () => Date {
  let t = start;
  return () => new Date((t += 1000));
}

/** A wire record with readable defaults, for hand-made cases. */
export function wireTransaction(overrides: Partial<BankTransaction> & { id: string }): BankTransaction {
  return {
    bankAccountId: '11111111-1111-4111-8111-111111111111',
    organisationId: '22222222-2222-4222-8222-222222222222',
    transactionType: 'CARD',
    amount: { amount: '-12.34', currency: 'EUR' },
    bookingDate: '2026-03-01',
    valueDate: '2026-03-01',
    description: 'Card payment',
    counterparty: 'Deutsche Bahn',
    fees: [],
    groupId: '33333333-3333-4333-8333-333333333333',
    bankAccountNumber: 'DE89370400440532013000',
    matched: false,
    createTime: '2026-03-01T10:00:00Z',
    updateTime: '2026-03-01T10:00:00Z',
    ...overrides,
  };
}

/** A few suppliers, expenses, lines and files written straight into the cache tables. */
export function seedExpenses(cache: CacheDb): void {
  const db = cache.sqlite;
  const supplier = db.prepare(
    `INSERT INTO suppliers (id, name, number, status, vat_id_no, iban, raw, deleted_at) VALUES (?, ?, ?, 'ACTIVE', ?, ?, '{}', ?)`,
  );
  supplier.run('sup-1', 'Büroshop24 GmbH', '70001', 'DE123456789', 'DE89370400440532013000', null);
  supplier.run('sup-2', 'Nordlicht Consulting', '70002', 'DE987654321', 'GB29 NWBK 6016 1331 9268 19', null);
  supplier.run('sup-3', 'Alpen Catering', '70003', 'AT111222333', 'AT611904300234573201', null);
  supplier.run('sup-4', 'Old Supplier', '70004', 'DE000000000', null, '2026-01-01T00:00:00.000Z');
  const expense = db.prepare(
    `INSERT INTO expenses (id, type, status, supplier_id, description, booking_text, amount_minor, amount_currency,
       expense_time, update_time, merchant_name, raw, deleted_at)
     VALUES (?, 'INVOICE', 'APPROVED', ?, ?, ?, ?, 'EUR', ?, ?, ?, '{}', ?)`,
  );
  expense.run(
    'exp-1',
    'sup-1',
    'Printer paper',
    'Office supplies March',
    -4599,
    '2026-03-01T09:00:00Z',
    '2026-03-02T09:00:00Z',
    null,
    null,
  );
  expense.run(
    'exp-2',
    'sup-2',
    'Strategy workshop',
    'Consulting Q1',
    -250000,
    '2026-03-05T09:00:00Z',
    '2026-03-06T09:00:00Z',
    null,
    null,
  );
  expense.run(
    'exp-3',
    null,
    'Team lunch',
    'Meals',
    -8750,
    '2026-03-07T12:00:00Z',
    '2026-03-07T13:00:00Z',
    'Café Einstein',
    null,
  );
  expense.run(
    'exp-4',
    'sup-3',
    'Catering summer party',
    'Events',
    -120000,
    '2026-03-09T09:00:00Z',
    '2026-03-09T10:00:00Z',
    null,
    null,
  );
  expense.run(
    'exp-5',
    null,
    'Taxi',
    'Travel',
    -2300,
    '2026-03-10T09:00:00Z',
    '2026-03-10T10:00:00Z',
    'FREE NOW',
    '2026-03-11T00:00:00.000Z',
  );
  const line = db.prepare(
    `INSERT INTO expense_lines (id, expense_id, position, type, raw) VALUES (?, ?, ?, 'INVOICE_LINE', ?)`,
  );
  line.run('line-1', 'exp-2', 0, JSON.stringify({ description: 'Workshop day rate' }));
  line.run('line-2', 'exp-2', 1, JSON.stringify({ description: 'Travel costs Hamburg' }));
  line.run('line-3', 'exp-4', 0, JSON.stringify({ description: 'Buffet and drinks' }));
  const file = db.prepare(
    `INSERT INTO expense_files (id, expense_id, expense_line_id, name, raw, deleted_at) VALUES (?, ?, ?, ?, '{}', ?)`,
  );
  file.run('file-1', 'exp-1', null, 'receipt.pdf', null); // on the expense
  file.run('file-2', null, 'line-3', 'invoice.pdf', null); // on a line only
  file.run('file-3', 'exp-3', null, 'old.pdf', '2026-03-08T00:00:00.000Z'); // deleted: does not count
}
