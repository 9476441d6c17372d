import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BankTransactionPage, type BankTransaction } from '../../../src-shared/api';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.sandbox.stop());

const search = async (
  body: unknown,
): Promise<{ data: BankTransaction[]; total: number; status: number; raw: unknown }> => {
  const response = await api.call('POST', '/v0/bank-transactions/search-query', { body });
  if (response.status !== 200) return { data: [], total: 0, status: response.status, raw: response.body };
  const page = BankTransactionPage.parse(response.body);
  return { data: page.data, total: page.meta.pagination.totalItems, status: 200, raw: response.body };
};
const all = (body: Record<string, unknown> = {}) =>
  search({ ...body, pagination: { page: 1, pageSize: 100 } });

describe('v0 bank-transaction search', () => {
  test('every filter is optional: an empty body lists everything', async () => {
    const result = await search({});
    expect(result.status).toBe(200);
    expect(result.total).toBe(api.sandbox.state.table.size());
  });

  test('default page size is 20', async () => {
    const response = await api.call('POST', '/v0/bank-transactions/search-query', { body: {} });
    expect(response.body.data).toHaveLength(20);
    expect(response.body.meta.pagination.pageSize).toBe(20);
  });

  test('default sort is bookingDate descending, ties by id', async () => {
    const { data } = await all();
    expect(
      data.every(
        (r, i) =>
          i === 0 ||
          data[i - 1]!.bookingDate > r.bookingDate ||
          (data[i - 1]!.bookingDate === r.bookingDate && data[i - 1]!.id > r.id),
      ),
    ).toBe(true);
  });

  test('ids looks up specific transactions', async () => {
    const { data } = await all();
    const ids = [data[3]!.id, data[40]!.id];
    const found = await search({ ids });
    expect(found.data.map((r) => r.id).sort()).toEqual([...ids].sort());
  });

  test('unknown ids match nothing', async () => {
    expect((await search({ ids: ['11111111-2222-4333-8444-555555555555'] })).total).toBe(0);
  });

  test('only bookingDateFrom: a half-open range', async () => {
    const result = await all({ bookingDateFrom: '2026-10-01' });
    expect(result.total).toBeGreaterThan(0);
    expect(result.data.every((r) => r.bookingDate >= '2026-10-01')).toBe(true);
  });

  test('only bookingDateTo: a half-open range', async () => {
    const result = await search({
      bookingDateTo: '2024-01-31',
      sorting: { field: 'bookingDate', direction: 'DESC' },
    });
    expect(result.total).toBeGreaterThan(0);
    expect(result.data.every((r) => r.bookingDate <= '2024-01-31')).toBe(true);
  });

  test('both bounds: inclusive range', async () => {
    const result = await all({ bookingDateFrom: '2025-05-01', bookingDateTo: '2025-05-02' });
    expect(result.data.every((r) => r.bookingDate === '2025-05-01' || r.bookingDate === '2025-05-02')).toBe(
      true,
    );
    expect(new Set(result.data.map((r) => r.bookingDate)).size).toBe(2);
  });

  test('accountIds filters by account', async () => {
    const id = api.sandbox.state.reference.wallets[3]!.id;
    const result = await all({ accountIds: [id] });
    expect(result.total).toBeGreaterThan(0);
    expect(result.data.every((r) => r.bankAccountId === id)).toBe(true);
  });

  test('matched true and false partition the transactions (~70 % matched)', async () => {
    const yes = await all({ matched: true });
    const no = await all({ matched: false });
    expect(yes.data.every((r) => r.matched)).toBe(true);
    expect(no.data.every((r) => !r.matched)).toBe(true);
    const size = api.sandbox.state.table.size();
    expect(yes.total + no.total).toBe(size);
    expect(yes.total / size).toBeGreaterThan(0.6);
    expect(yes.total / size).toBeLessThan(0.8);
  });

  test('freeText matches counterparty case-insensitively as a substring', async () => {
    const result = await all({ freeText: 'uBeR' });
    expect(result.total).toBeGreaterThan(0);
    expect(result.data.every((r) => r.counterparty.toLowerCase().includes('uber'))).toBe(true);
  });

  test('freeText matches part of an id', async () => {
    const { data } = await all();
    const target = data[7]!;
    const result = await all({ freeText: target.id.slice(9, 23).toUpperCase() });
    expect(result.data.map((r) => r.id)).toContain(target.id);
  });

  test('freeText matches a groupId', async () => {
    const { data } = await all();
    const target = data[11]!;
    const result = await all({ freeText: target.groupId });
    expect(result.data.length).toBeGreaterThan(0);
    expect(result.data.every((r) => r.groupId === target.groupId)).toBe(true);
  });

  test('freeText matches bankAccountNumber', async () => {
    const result = await all({ freeText: 'GB29NWBK' });
    expect(result.total).toBeGreaterThan(0);
    expect(
      result.data.every(
        (r) => r.bankAccountNumber.includes('GB29NWBK') || r.counterparty.toUpperCase().includes('GB29NWBK'),
      ),
    ).toBe(true);
  });

  test('blank freeText is no filter', async () => {
    expect((await search({ freeText: '   ' })).total).toBe(api.sandbox.state.table.size());
  });

  test('filters combine with AND', async () => {
    const id = api.sandbox.state.reference.wallets[0]!.id;
    const result = await all({
      accountIds: [id],
      matched: false,
      freeText: 'rewe',
      bookingDateFrom: '2024-01-01',
    });
    expect(result.total).toBeGreaterThan(0);
    expect(
      result.data.every(
        (r) =>
          r.bankAccountId === id &&
          !r.matched &&
          r.counterparty.toLowerCase().includes('rewe') &&
          r.bookingDate >= '2024-01-01',
      ),
    ).toBe(true);
  });

  test('invalid filter values are 400 naming the field', async () => {
    expect(firstError((await search({ matched: 'yes' })).raw).field).toBe('matched');
    expect(firstError((await search({ ids: ['x'] })).raw).field).toBe('ids.0');
    expect(firstError((await search({ accountIds: [] })).raw).field).toBe('accountIds');
    expect(firstError((await search({ bookingDateFrom: '2026-13-01' })).raw).field).toBe('bookingDateFrom');
  });

  test('groupIds group related transactions: some groups hold several', async () => {
    const { data } = await search({
      pagination: { page: 1, pageSize: 100 },
      sorting: { field: 'bookingDate', direction: 'ASC' },
    });
    const table = api.sandbox.state.table;
    expect(table.groupCount()).toBeLessThan(table.size());
    expect(data.every((r) => /^[0-9a-f-]{36}$/.test(r.groupId))).toBe(true);
  });
});
