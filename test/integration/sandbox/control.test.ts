import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BankTransaction, Supplier } from '../../../src-shared/api';
import { sandboxToken } from '../../helpers/sandbox-token';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
let clock = Date.parse('2026-11-10T08:00:00Z');
beforeAll(async () => {
  // Tokens outlive the clock jumps below.
  api = await startApi({ now: () => clock, control: true, tokenTtlSeconds: 90 * 86_400 });
});
afterAll(() => api.sandbox.stop());

const control = (method: string, path: string, body?: unknown) =>
  fetch(`${api.url}/__control${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
const v0 = (body: unknown) => api.call('POST', '/v0/bank-transactions/search-query', { body });

describe('control surface', () => {
  test('control routes are 404 when the sandbox starts without control', async () => {
    const plain = await startApi({ transactions: 50 });
    try {
      const response = await fetch(`${plain.url}/__control/faults`);
      expect(response.status).toBe(404);
      expect(plain.sandbox.control).toBeUndefined();
    } finally {
      await plain.sandbox.stop();
    }
  });

  test('adding a transaction makes it searchable with its update time', async () => {
    clock += 1000;
    const response = await control('POST', '/transactions', {
      bankAccountId: api.sandbox.state.reference.wallets[0]!.id,
      amount: '-42.50',
      bookingDate: '2026-11-09',
      counterparty: 'Zeppelin Café',
    });
    expect(response.status).toBe(201);
    const created = BankTransaction.parse(await response.json());
    const found = await v0({ freeText: 'zeppelin' });
    expect(found.body.data.map((r: { id: string }) => r.id)).toEqual([created.id]);
    expect(created.updateTime).toBe('2026-11-10T08:00:01Z');
    const newest = await v0({ pagination: { page: 1, pageSize: 1 } });
    expect(newest.body.data[0].id).toBe(created.id);
  });

  test('flipping matched is visible to the matched filter', async () => {
    const target = (await v0({ matched: false, pagination: { page: 1, pageSize: 1 } })).body.data[0];
    clock += 1000;
    const response = await control('PUT', `/transactions/${target.id}/matched`, { matched: true });
    expect(response.status).toBe(200);
    const after = BankTransaction.parse((await v0({ ids: [target.id] })).body.data[0]);
    expect(after.matched).toBe(true);
    expect(after.updateTime > target.updateTime).toBe(true);
  });

  test('deleting a transaction removes it from both searches', async () => {
    const target = (
      await v0({ pagination: { page: 1, pageSize: 1 }, sorting: { field: 'bookingDate', direction: 'ASC' } })
    ).body.data[0];
    expect((await control('DELETE', `/transactions/${target.id}`)).status).toBe(204);
    expect((await v0({ ids: [target.id] })).body.meta.pagination.totalItems).toBe(0);
    const v1 = await api.call('POST', '/v1/bank-transactions/search-query', {
      body: {
        bookingDateFrom: target.bookingDate,
        bookingDateTo: target.bookingDate,
        pagination: { pageSize: 100 },
      },
    });
    expect(v1.body.data.map((r: { id: string }) => r.id)).not.toContain(target.id);
  });

  test('editing a supplier updates updateTime so update_time__gte finds it', async () => {
    clock = Date.parse('2026-11-20T12:00:00Z');
    const supplier = api.sandbox.state.suppliers[20]!;
    const response = await control('PATCH', `/suppliers/${supplier.id}`, { name: 'Edited Outside GmbH' });
    expect(Supplier.parse(await response.json()).updateTime).toBe('2026-11-20T12:00:00Z');
    const since = await api.call('GET', '/v1/suppliers?update_time__gte=2026-11-20T00:00:00Z');
    expect(since.body.data.map((s: { id: string }) => s.id)).toEqual([supplier.id]);
  });

  test('editing an expense updates updateTime so update_time__gte finds it', async () => {
    clock = Date.parse('2026-11-21T12:00:00Z');
    const expense = api.sandbox.state.expenses[3]!;
    expect((await control('PATCH', `/expenses/${expense.id}`, { status: 'APPROVED' })).status).toBe(200);
    const since = await api.call('GET', '/v1/expenses?update_time__gte=2026-11-21T00:00:00Z');
    expect(since.body.data.map((e: { id: string }) => e.id)).toEqual([expense.id]);
    expect(since.body.data[0].status).toBe('APPROVED');
  });

  test("an expense's bank transaction can be changed to a live one or taken off, nothing else", async () => {
    clock = Date.parse('2026-11-22T12:00:00Z');
    const expense = api.sandbox.state.expenses.find((e) => e.bankTransactionId)!;
    const served = async () => {
      const since = await api.call('GET', '/v1/expenses?update_time__gte=2026-11-22T00:00:00Z');
      expect(since.body.data.map((e: { id: string }) => e.id)).toEqual([expense.id]);
      return since.body.data[0].bankTransactionId as string | null;
    };
    const other = (await v0({ pagination: { page: 1, pageSize: 1 } })).body.data[0].id as string;
    const link = (id: string | null) =>
      control('PATCH', `/expenses/${expense.id}`, { bankTransactionId: id });
    expect((await link(other.toUpperCase())).status).toBe(200);
    expect(await served()).toBe(other);
    expect((await link(null)).status).toBe(200);
    expect(await served()).toBeNull();
    // Unknown, deleted or not an id: refused, the expense as it was.
    expect((await link('00000000-0000-4000-8000-00000000beef')).status).toBe(404);
    expect((await control('DELETE', `/transactions/${other}`)).status).toBe(204);
    expect((await link(other)).status).toBe(404);
    expect((await link('not-an-id')).status).toBe(400);
    expect(await served()).toBeNull();
  });

  test("a line's description can be changed; an unknown line changes nothing", async () => {
    clock = Date.parse('2026-11-23T12:00:00Z');
    const expense = api.sandbox.state.expenses.find((e) => e.lines.length >= 2)!;
    const [first, second] = [expense.lines[0]!, expense.lines[1]!];
    const served = async () => {
      const since = await api.call('GET', '/v1/expenses?update_time__gte=2026-11-23T00:00:00Z');
      expect(since.body.data.map((e: { id: string }) => e.id)).toEqual([expense.id]);
      return (since.body.data[0].lines as Array<{ id: string; description: string }>).map(
        (l) => l.description,
      );
    };
    const change = (lines: unknown) => control('PATCH', `/expenses/${expense.id}`, { lines });
    expect((await change([{ id: second.id.toUpperCase(), description: 'Walrus feed' }])).status).toBe(200);
    const after = await served();
    expect(after[1]).toBe('Walrus feed');
    // One unknown line: 404, and the known line beside it keeps its description.
    const refused = await change([
      { id: first.id, description: 'Not applied' },
      { id: '00000000-0000-4000-8000-00000000beef', description: 'x' },
    ]);
    expect(refused.status).toBe(404);
    expect(await served()).toEqual(after);
    expect((await change([{ id: first.id }])).status).toBe(400);
  });

  test('invalid control input is 400 in the standard format', async () => {
    const response = await control('POST', '/transactions', {
      bankAccountId: api.sandbox.state.reference.wallets[0]!.id,
      amount: '12,50',
      bookingDate: '2026-11-09',
      counterparty: 'X',
    });
    expect(response.status).toBe(400);
    expect(firstError(await response.json()).field).toBe('amount');
  });

  test('fault: latency delays the matching route', async () => {
    await control('POST', '/faults', { match: 'listTeams', latencyMs: 300, times: 1 });
    const started = performance.now();
    expect((await api.call('GET', '/v1/teams')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
  });

  test('fault: 503 with Retry-After, then normal service', async () => {
    await control('POST', '/faults', {
      match: '/v1/departments',
      status: 503,
      retryAfterSeconds: 2,
      times: 1,
    });
    const failed = await api.call('GET', '/v1/departments');
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('2');
    expect(firstError(failed.body).code).toBe('SERVICE_UNAVAILABLE');
    expect((await api.call('GET', '/v1/departments')).status).toBe(200);
  });

  test('fault: dropped connection makes fetch fail', async () => {
    await control('POST', '/faults', { match: 'listUsers', drop: true, times: 1 });
    await expect(
      fetch(`${api.url}/v1/users`, { headers: { authorization: `Bearer ${await api.token()}` } }),
    ).rejects.toThrow();
    expect((await api.call('GET', '/v1/users')).status).toBe(200);
  });

  test('fault: a JSON answer cut off after its headers promised the whole of it', async () => {
    await control('POST', '/faults', { match: 'listUsers', truncateBodyAt: 40, times: 1 });
    const response = await fetch(`${api.url}/v1/users`, {
      headers: { authorization: `Bearer ${await api.token()}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(40);
    expect(response.headers.get('x-ratelimit-scope')).toBe('read');
    await expect(response.text()).rejects.toThrow();
    const whole = await api.call('GET', '/v1/users');
    expect(whole.status).toBe(200);
    expect(Number(whole.headers.get('content-length'))).toBe(Number(response.headers.get('content-length')));
  });

  test('fault: a slow body in the number of pieces asked for, the whole of it', async () => {
    const token = await api.token();
    const whole = await fetch(`${api.url}/v1/users`, { headers: { authorization: `Bearer ${token}` } });
    const expected = Buffer.from(await whole.arrayBuffer());
    await control('POST', '/faults', { match: 'listUsers', slowBodyMs: 900, slowBodyPieces: 3, times: 1 });
    const started = Date.now();
    const response = await fetch(`${api.url}/v1/users`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBe(expected.length);
    const pieces: Uint8Array[] = [];
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) pieces.push(chunk);
    // The first piece at once, then one every 300 ms: two gaps.
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect(pieces).toHaveLength(3);
    expect(Buffer.concat(pieces).equals(expected)).toBe(true);
  });

  test('fault: forced 429 with Retry-After and Remaining 0', async () => {
    await control('POST', '/faults', { match: 'listPaymentTerms', rateLimit: true, times: 1 });
    const limited = await api.call('GET', '/v1/payment-terms');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    await control('POST', '/rate-limits/reset');
    expect((await api.call('GET', '/v1/payment-terms')).status).toBe(200);
  });

  test('faults can be listed and cleared', async () => {
    await control('POST', '/faults', { match: '*', latencyMs: 1 });
    expect(
      ((await (await control('GET', '/faults')).json()) as { data: unknown[] }).data.length,
    ).toBeGreaterThan(0);
    expect((await control('DELETE', '/faults')).status).toBe(204);
    expect(((await (await control('GET', '/faults')).json()) as { data: unknown[] }).data).toEqual([]);
  });

  test('expiring tokens forces a new sign-in', async () => {
    const token = await api.token('read');
    expect((await control('POST', '/tokens/expire')).status).toBe(204);
    expect((await api.call('GET', '/v1/teams', { token })).status).toBe(401);
  });

  test('replacing the client secret refuses the old one and every token issued with it', async () => {
    const { url, clientId, clientSecret } = api.sandbox;
    const signIn = (secret: string) =>
      fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: secret,
        }),
      });
    // A fresh token: the cached ones were expired by the test before.
    const token = await sandboxToken(api.sandbox);
    expect((await control('PUT', '/client-secret', { clientSecret: '' })).status).toBe(400);
    expect((await api.call('GET', '/v1/teams', { token })).status).toBe(200);
    expect((await control('PUT', '/client-secret', { clientSecret: 'sk_rotated' })).status).toBe(204);
    expect((await api.call('GET', '/v1/teams', { token })).status).toBe(401);
    expect((await signIn(clientSecret)).status).toBe(401);
    expect((await signIn('sk_rotated')).status).toBe(200);
    // Back to the secret the other tests sign in with.
    api.sandbox.control!.replaceClientSecret(clientSecret);
    expect((await signIn(clientSecret)).status).toBe(200);
  });
});
