import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  COST_CARRIER_DIMENSION_ID,
  COST_CENTER_DIMENSION_ID,
  BankTransactionPage,
  DepartmentPage,
  ExpenseAccountPage,
  ExpensePage,
  PaymentTermPage,
  TaxRatePage,
  TeamPage,
  UserPage,
  type Expense,
} from '../../../src-shared/api';
import { parseAmount } from '../../../src-shared/money';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
const expenses: Expense[] = [];
beforeAll(async () => {
  api = await startApi();
  for (let page = 1; ; page++) {
    const body = ExpensePage.parse((await api.call('GET', `/v1/expenses?page=${page}&page_size=100`)).body);
    expenses.push(...body.data);
    if (!body.meta.pagination.hasMore) break;
  }
});
afterAll(() => api.sandbox.stop());

const lines = () => expenses.flatMap((e) => e.lines);

describe('expenses', () => {
  test('paged list of all expenses, ordered by updateTime', async () => {
    expect(expenses.length).toBe(api.sandbox.state.expenses.length);
    expect(expenses.map((e) => e.updateTime)).toEqual([...expenses.map((e) => e.updateTime)].sort());
  });

  test('update_time__gte and __lte filter by updateTime', async () => {
    const body = ExpensePage.parse(
      (
        await api.call(
          'GET',
          '/v1/expenses?update_time__gte=2026-09-01T00:00:00Z&update_time__lte=2026-09-30&page_size=100',
        )
      ).body,
    );
    expect(body.data.length).toBeGreaterThan(0);
    expect(
      body.data.every(
        (e) => e.updateTime >= '2026-09-01T00:00:00Z' && e.updateTime <= '2026-09-30T23:59:59Z',
      ),
    ).toBe(true);
  });

  test('lines of all five types occur', () => {
    expect(new Set(lines().map((l) => l.type))).toEqual(
      new Set([
        'REIMBURSEMENT_INVOICE_LINE',
        'REIMBURSEMENT_INVOICE_LINE_SPLIT',
        'CARD_TRANSACTION_LINE',
        'FX_FEE',
        'INVOICE_LINE',
      ]),
    );
  });

  test('expenses are tied to card transactions, invoices and reimbursements', () => {
    expect(new Set(expenses.map((e) => e.type))).toEqual(
      new Set(['CARD_TRANSACTION', 'INVOICE', 'REIMBURSEMENT']),
    );
  });

  test('split lines point to a REIMBURSEMENT_INVOICE_LINE parent and add up to its gross', () => {
    for (const expense of expenses) {
      for (const parent of expense.lines.filter((l) => l.type === 'REIMBURSEMENT_INVOICE_LINE')) {
        const splits = expense.lines.filter((l) => l.parentLineId === parent.id);
        if (splits.length === 0) continue;
        expect(splits.every((s) => s.type === 'REIMBURSEMENT_INVOICE_LINE_SPLIT')).toBe(true);
        const sum = splits.reduce(
          (total, s) => total + parseAmount(s.grossAmount.amount, s.grossAmount.currency),
          0,
        );
        expect(sum).toBe(parseAmount(parent.grossAmount.amount, parent.grossAmount.currency));
      }
    }
  });

  test('exportMetadata has firstExportTime and lastExportTime', () => {
    expect(
      expenses.every((e) => 'firstExportTime' in e.exportMetadata && 'lastExportTime' in e.exportMetadata),
    ).toBe(true);
    expect(expenses.some((e) => e.exportMetadata.firstExportTime !== null)).toBe(true);
  });

  test('card merchants carry atm, true for ATM withdrawals', () => {
    const merchants = expenses
      .filter((e) => e.type === 'CARD_TRANSACTION')
      .map((e) => e.expenseMetadata.merchant);
    expect(merchants.every((m) => m !== null && typeof m.atm === 'boolean')).toBe(true);
    expect(merchants.some((m) => m!.atm)).toBe(true);
    expect(merchants.some((m) => !m!.atm)).toBe(true);
  });

  test('cost center and cost carrier appear in dimensions and in the deprecated line fields', () => {
    const line = lines().find((l) => l.costCarrierId !== null)!;
    expect(line.dimensions).toContainEqual({
      dimensionId: COST_CENTER_DIMENSION_ID,
      dimensionItemId: line.costCenterId,
    });
    expect(line.dimensions).toContainEqual({
      dimensionId: COST_CARRIER_DIMENSION_ID,
      dimensionItemId: line.costCarrierId,
    });
  });

  test('FX fee line on a foreign-currency card transaction: no dimensions, home amounts filled, net = the FX fee', async () => {
    const expense = expenses.find((e) => e.lines.some((l) => l.type === 'FX_FEE'))!;
    const fxLine = expense.lines.find((l) => l.type === 'FX_FEE')!;
    expect(fxLine.dimensions).toEqual([]);
    expect(fxLine.costCenterId).toBeNull();
    expect(fxLine.homeAmount.currency).toBe('EUR');
    expect(parseAmount(fxLine.homeAmount.amount, 'EUR')).toBeGreaterThan(0);
    const found = BankTransactionPage.parse(
      (
        await api.call('POST', '/v0/bank-transactions/search-query', {
          body: { ids: [expense.bankTransactionId] },
        })
      ).body,
    ).data[0]!;
    expect(expense.amount.currency).not.toBe(found.amount.currency); // charged abroad
    const fee = found.fees.find((f) => f.feeType === 'FX_FEE')!;
    expect(fxLine.netAmount.currency).toBe(fee.amount.currency);
    expect(parseAmount(fxLine.netAmount.amount, fee.amount.currency)).toBe(
      -parseAmount(fee.amount.amount, fee.amount.currency),
    );
  });

  test('card expenses document matched card transactions', async () => {
    const expense = expenses.find((e) => e.type === 'CARD_TRANSACTION' && !e.expenseMetadata.merchant?.atm)!;
    const found = BankTransactionPage.parse(
      (
        await api.call('POST', '/v0/bank-transactions/search-query', {
          body: { ids: [expense.bankTransactionId] },
        })
      ).body,
    ).data[0]!;
    expect(found).toMatchObject({ transactionType: 'CARD', matched: true });
  });
});

describe('reference lists', () => {
  test('expense accounts: list and get by id', async () => {
    const list = ExpenseAccountPage.parse((await api.call('GET', '/v1/expense-accounts')).body);
    expect((await api.call('GET', `/v1/expense-accounts/${list.data[0]!.id}`)).body.id).toBe(
      list.data[0]!.id,
    );
  });

  test('tax rates: type filter', async () => {
    const all = TaxRatePage.parse((await api.call('GET', '/v1/tax-rates')).body);
    const standard = TaxRatePage.parse((await api.call('GET', '/v1/tax-rates?type=STANDARD')).body);
    expect(standard.data.length).toBeGreaterThan(0);
    expect(standard.data.length).toBeLessThan(all.data.length);
    expect(standard.data.every((r) => r.type === 'STANDARD')).toBe(true);
    expect((await api.call('GET', `/v1/tax-rates/${standard.data[0]!.id}`)).status).toBe(200);
  });

  test('tax rates: unknown type is 400 naming type', async () => {
    expect(firstError((await api.call('GET', '/v1/tax-rates?type=LUXURY')).body).field).toBe('type');
  });

  test('users: roles include PURCHASER; get by id', async () => {
    const users = UserPage.parse((await api.call('GET', '/v1/users?page_size=100')).body);
    expect(users.data.some((u) => u.roles.includes('PURCHASER'))).toBe(true);
    expect((await api.call('GET', `/v1/users/${users.data[0]!.id}`)).body.email).toBe(users.data[0]!.email);
  });

  test('teams, departments and payment terms: list and get by id', async () => {
    for (const [path, schema] of [
      ['/v1/teams', TeamPage],
      ['/v1/departments', DepartmentPage],
      ['/v1/payment-terms', PaymentTermPage],
    ] as const) {
      const list = schema.parse((await api.call('GET', path)).body);
      expect(list.data.length, path).toBeGreaterThan(0);
      const one = await api.call('GET', `${path}/${list.data[0]!.id}`);
      expect(one.status, path).toBe(200);
      expect(one.body.id).toBe(list.data[0]!.id);
      expect((await api.call('GET', `${path}/11111111-2222-4333-8444-555555555555`)).status, path).toBe(404);
    }
  });
});
