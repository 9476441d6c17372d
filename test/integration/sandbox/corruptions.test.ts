import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { firstError, startApi, type Api } from './helpers';

// The control surface serves malformed records on request, so clients can be tested on them.
let api: Api;
beforeAll(async () => {
  api = await startApi({ transactions: 200, control: true });
});
afterAll(() => api.sandbox.stop());

const control = (method: string, path: string, body?: unknown) =>
  fetch(`${api.url}/__control${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

describe('corrupted records', () => {
  test('a corrupted transaction is served patched by both searches, its neighbours intact', async () => {
    const page = await api.call('POST', '/v0/bank-transactions/search-query', {
      body: { pagination: { page: 1, pageSize: 5 } },
    });
    const [target, neighbour] = page.body.data;
    const bad = { amount: '12.345', currency: target.amount.currency };
    const response = await control('POST', '/corruptions', {
      resource: 'bankTransactions',
      id: target.id,
      patch: { amount: bad, matched: 'yes' },
    });
    expect(response.status).toBe(201);

    const v0 = await api.call('POST', '/v0/bank-transactions/search-query', {
      body: { pagination: { page: 1, pageSize: 5 } },
    });
    expect(v0.body.data[0]).toEqual({ ...target, amount: bad, matched: 'yes' });
    expect(v0.body.data[1]).toEqual(neighbour);
    const v1 = await api.call('POST', '/v1/bank-transactions/search-query', {
      body: {
        bookingDateFrom: target.bookingDate,
        bookingDateTo: target.bookingDate,
        pagination: { pageSize: 100 },
      },
    });
    expect(v1.body.data.find((r: { id: string }) => r.id === target.id).matched).toBe('yes');
    // The stored record is untouched: filters still see the real values.
    const matched = await api.call('POST', '/v0/bank-transactions/search-query', {
      body: { ids: [target.id], matched: target.matched },
    });
    expect(matched.body.meta.pagination.totalItems).toBe(1);
  });

  test('expenses and suppliers are patched where they are served', async () => {
    const expense = api.sandbox.state.expenses[0]!;
    const supplier = api.sandbox.state.suppliers[0]!;
    api.sandbox.control!.corruptRecord({
      resource: 'expenses',
      id: expense.id,
      patch: { amount: { amount: 'twelve', currency: 'EUR' } },
    });
    api.sandbox.control!.corruptRecord({ resource: 'suppliers', id: supplier.id, patch: { status: 42 } });
    const expenses = await api.call('GET', '/v1/expenses?page_size=100');
    const served = expenses.body.data.find((e: { id: string }) => e.id === expense.id);
    expect(served.amount).toEqual({ amount: 'twelve', currency: 'EUR' });
    expect(served.description).toBe(expense.description);
    expect(api.sandbox.state.expenses[0]!.amount).not.toEqual(served.amount);
    expect((await api.call('GET', `/v1/suppliers/${supplier.id}`)).body.status).toBe(42);
  });

  test('clearing serves every record intact again', async () => {
    expect((await control('DELETE', '/corruptions')).status).toBe(204);
    const supplier = api.sandbox.state.suppliers[0]!;
    expect((await api.call('GET', `/v1/suppliers/${supplier.id}`)).body).toEqual(supplier);
  });

  test('an unknown record is 404, an invalid corruption 400 naming the field', async () => {
    const unknown = await control('POST', '/corruptions', {
      resource: 'expenses',
      id: '00000000-0000-0000-0000-000000000000',
      patch: {},
    });
    expect(unknown.status).toBe(404);
    const invalid = await control('POST', '/corruptions', {
      resource: 'teams',
      id: api.sandbox.state.suppliers[0]!.id,
      patch: {},
    });
    expect(invalid.status).toBe(400);
    expect(firstError(await invalid.json()).field).toBe('resource');
  });
});

describe('replaced files', () => {
  test('a file replaced over the control surface is listed and served as its new bytes and type', async () => {
    const spec = api.sandbox.state.files.find((file) => file.mimeType === 'application/pdf')!;
    const bytes = Buffer.from('PK\u0003\u0004 not really a zip', 'latin1');
    const response = await control('PUT', `/files/${spec.id}`, {
      contentBase64: bytes.toString('base64'),
      name: 'statement.zip',
      mimeType: 'application/zip',
    });
    expect(response.status).toBe(204);

    const listed = await api.call('POST', '/v1/files/search-query', {
      body: { expenseIds: [spec.expenseId] },
    });
    const record = listed.body.data.find((file: { id: string }) => file.id === spec.id);
    expect(record).toMatchObject({
      name: 'statement.zip',
      mimeType: 'application/zip',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    const content = await fetch(`${api.url}/v1/files/${spec.id}/content`, {
      headers: { authorization: `Bearer ${await api.token()}` },
    });
    expect(content.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await content.arrayBuffer())).toEqual(bytes);
    // An empty file is a file too.
    api.sandbox.control!.replaceFile(spec.id, { content: new Uint8Array(0) });
    const empty = await api.call('POST', '/v1/files/search-query', {
      body: { expenseIds: [spec.expenseId] },
    });
    expect(empty.body.data.find((file: { id: string }) => file.id === spec.id).size).toBe(0);
    expect((await control('PUT', '/files/no-such-file', { contentBase64: '' })).status).toBe(404);
  });
});
