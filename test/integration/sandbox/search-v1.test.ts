import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BankTransactionPage, type BankTransaction } from '../../../src-shared/api';
import { parseMoney } from '../../../src-shared/money';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.sandbox.stop());

const PATH = '/v1/bank-transactions/search-query';
const range = { bookingDateFrom: '2026-01-01', bookingDateTo: '2026-03-31' };
const search = (body: unknown) => api.call('POST', PATH, { body });
const wallets = () => api.sandbox.state.reference.wallets;

/** Reference order: bookingDate then id, both descending. */
function isDescending(records: BankTransaction[]): boolean {
  return records.every((record, i) => {
    const next = records[i + 1];
    return (
      !next ||
      record.bookingDate > next.bookingDate ||
      (record.bookingDate === next.bookingDate && record.id > next.id)
    );
  });
}

describe('v1 bank-transaction search', () => {
  test('answers a page envelope of bank transactions that parses with the shared schema', async () => {
    const response = await search(range);
    expect(response.status).toBe(200);
    const page = BankTransactionPage.parse(response.body);
    expect(page.data.length).toBe(20);
    expect(page.meta.pagination).toMatchObject({ page: 1, pageSize: 20 });
  });

  test('bookingDateFrom is required: 400 naming it', async () => {
    const response = await search({ bookingDateTo: '2026-03-31' });
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('bookingDateFrom');
  });

  test('bookingDateTo is required: 400 naming it', async () => {
    const response = await search({ bookingDateFrom: '2026-01-01' });
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('bookingDateTo');
  });

  test('an empty body is 400 (dates are required)', async () => {
    const response = await api.call('POST', PATH, {});
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toMatch(/^bookingDate/);
  });

  test('a malformed or impossible date is 400 naming it', async () => {
    expect(firstError((await search({ ...range, bookingDateFrom: '01.01.2026' })).body).field).toBe(
      'bookingDateFrom',
    );
    expect(firstError((await search({ ...range, bookingDateTo: '2026-02-30' })).body).field).toBe(
      'bookingDateTo',
    );
  });

  test('from after to is 400 naming bookingDateFrom', async () => {
    const response = await search({ bookingDateFrom: '2026-04-01', bookingDateTo: '2026-03-01' });
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('bookingDateFrom');
  });

  test('a malformed date is reported alone, without a false order error', async () => {
    for (const body of [
      { bookingDateFrom: '2026-02-30', bookingDateTo: '2026-01-01' },
      { bookingDateFrom: '31.12.2026', bookingDateTo: '2026-01-01' },
      { bookingDateFrom: '2026-04-01', bookingDateTo: '2026-13-01' },
    ]) {
      for (const path of [PATH, '/v0/bank-transactions/search-query']) {
        const response = await api.call('POST', path, { body });
        expect(response.status).toBe(400);
        const messages = (response.body.errors as { message: string }[]).map((e) => e.message);
        expect(messages, `${path} ${JSON.stringify(body)}`).toHaveLength(1);
        expect(messages[0]).not.toMatch(/after/);
      }
    }
  });

  test('accountIds and bankAccountId together is 400 naming bankAccountId', async () => {
    const id = wallets()[0]!.id;
    const response = await search({ ...range, accountIds: [id], bankAccountId: id });
    expect(response.status).toBe(400);
    expect(firstError(response.body)).toMatchObject({ code: 'VALIDATION_ERROR', field: 'bankAccountId' });
  });

  test('dates are inclusive at both ends', async () => {
    const day = { bookingDateFrom: '2026-02-10', bookingDateTo: '2026-02-10' };
    const response = await search({ ...day, pagination: { pageSize: 100 } });
    const records = BankTransactionPage.parse(response.body).data;
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.bookingDate === '2026-02-10')).toBe(true);
  });

  test('accountIds filters by bank account', async () => {
    const ids = [wallets()[2]!.id, wallets()[3]!.id];
    const records = BankTransactionPage.parse(
      (await search({ ...range, accountIds: ids, pagination: { pageSize: 100 } })).body,
    ).data;
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => ids.includes(r.bankAccountId))).toBe(true);
  });

  test('deprecated bankAccountId is still accepted and filters the same way', async () => {
    const id = wallets()[2]!.id;
    const byOld = (await search({ ...range, bankAccountId: id, pagination: { pageSize: 100 } })).body;
    const byNew = (await search({ ...range, accountIds: [id], pagination: { pageSize: 100 } })).body;
    expect(byOld.meta.pagination.totalItems).toBeGreaterThan(0);
    expect(byOld).toEqual(byNew);
  });

  test('default sort is bookingDate descending with ties broken by id', async () => {
    const records = BankTransactionPage.parse(
      (await search({ ...range, pagination: { pageSize: 100 } })).body,
    ).data;
    expect(records.length).toBe(100);
    expect(isDescending(records)).toBe(true);
  });

  test('sorting ASC by amount orders by amount with ties by id', async () => {
    const records = BankTransactionPage.parse(
      (
        await search({
          ...range,
          sorting: { field: 'amount', direction: 'ASC' },
          pagination: { pageSize: 100 },
        })
      ).body,
    ).data;
    expect(records).toHaveLength(100);
    // Minor units by the project's money parser, never a float: the order the sandbox keeps.
    const inOrder = records.every((r, i) => {
      const next = records[i + 1];
      if (!next) return true;
      const [a, b] = [parseMoney(r.amount).minor, parseMoney(next.amount).minor];
      return a < b || (a === b && r.id < next.id);
    });
    expect(inOrder).toBe(true);
  });

  test('default page size is 20 (chosen for v1 as for v0)', async () => {
    const body = (await search(range)).body;
    expect(body.data).toHaveLength(20);
    expect(body.meta.pagination).toMatchObject({ page: 1, pageSize: 20, hasMore: true });
  });

  test('every sort field orders ASC by (field, id); DESC is exactly ASC reversed, ties included', async () => {
    const wide = { bookingDateFrom: '2026-10-01', bookingDateTo: '2026-10-31' };
    const total = (await search({ ...wide, pagination: { pageSize: 1 } })).body.meta.pagination.totalItems;
    expect(total).toBeGreaterThan(20);
    expect(total).toBeLessThanOrEqual(100);
    const ids = async (sorting: unknown) =>
      BankTransactionPage.parse((await search({ ...wide, sorting, pagination: { pageSize: 100 } })).body)
        .data;
    const minor = (r: BankTransaction) => parseMoney(r.amount).minor;
    const keys: Record<string, (r: BankTransaction) => string | number> = {
      bookingDate: (r) => r.bookingDate,
      valueDate: (r) => r.valueDate,
      amount: minor,
      id: (r) => r.id,
    };
    for (const [field, key] of Object.entries(keys)) {
      const ascending = await ids({ field, direction: 'ASC' });
      expect(ascending, field).toHaveLength(total);
      const inOrder = ascending.every((r, i) => {
        const next = ascending[i + 1];
        return !next || key(r) < key(next) || (key(r) === key(next) && r.id < next.id);
      });
      expect(inOrder, field).toBe(true);
      const descending = await ids({ field, direction: 'DESC' });
      expect(
        descending.map((r) => r.id),
        field,
      ).toEqual(ascending.map((r) => r.id).reverse());
      // direction defaults to DESC
      expect(
        (await ids({ field })).map((r) => r.id),
        field,
      ).toEqual(descending.map((r) => r.id));
    }
  });

  test('an unknown sort direction is 400 naming sorting.direction', async () => {
    const response = await search({ ...range, sorting: { field: 'amount', direction: 'down' } });
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('sorting.direction');
  });

  test('an unknown sort field is 400 naming sorting.field', async () => {
    const response = await search({ ...range, sorting: { field: 'counterpartyName', direction: 'ASC' } });
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('sorting.field');
  });

  test('pages do not overlap and cover totalItems exactly', async () => {
    const first = (await search({ ...range, pagination: { page: 1, pageSize: 100 } })).body;
    const total = first.meta.pagination.totalItems as number;
    const seen = new Set<string>();
    for (let page = 1; page <= first.meta.pagination.totalPages; page++) {
      const body = (await search({ ...range, pagination: { page, pageSize: 100 } })).body;
      for (const record of body.data) seen.add(record.id);
      expect(body.meta.pagination.hasMore).toBe(page < first.meta.pagination.totalPages);
    }
    expect(seen.size).toBe(total);
  });

  test('pageSize over 100 is 400 naming pagination.pageSize', async () => {
    const response = await search({ ...range, pagination: { page: 1, pageSize: 101 } });
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('pagination.pageSize');
  });

  test('page 0 is 400 naming pagination.page', async () => {
    expect(firstError((await search({ ...range, pagination: { page: 0, pageSize: 10 } })).body).field).toBe(
      'pagination.page',
    );
  });

  test('a page past the end is empty with the right meta', async () => {
    const body = (await search({ ...range, pagination: { page: 9999, pageSize: 100 } })).body;
    expect(body.data).toEqual([]);
    expect(body.meta.pagination.hasMore).toBe(false);
  });

  test('amounts include fees and fees are typed', async () => {
    const records = BankTransactionPage.parse(
      (
        await search({
          bookingDateFrom: '2024-01-01',
          bookingDateTo: '2026-10-31',
          pagination: { pageSize: 100 },
        })
      ).body,
    ).data;
    for (const record of records) {
      for (const fee of record.fees) {
        expect(['FX_FEE', 'PAYMENT_FEE']).toContain(fee.feeType);
        expect(fee.amount.currency).toBe(record.amount.currency);
      }
    }
  });
});
