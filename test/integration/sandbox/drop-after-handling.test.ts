import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startApi, type Api } from './helpers';

// `dropAfterHandling`: the operation runs, then the connection is lost before the answer —
// the case a client must reconcile by looking the record up before sending it again.
let api: Api;
beforeAll(async () => {
  api = await startApi({ transactions: 50, control: true });
});
afterAll(() => api.sandbox.stop());

describe('fault: drop after handling', () => {
  test('a create happens although the client only sees a dropped connection', async () => {
    api.sandbox.control!.addFault({ match: 'createSupplier', dropAfterHandling: true, times: 1 });
    const before = api.sandbox.state.suppliers.length;
    await expect(
      fetch(`${api.url}/v1/suppliers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await api.token()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Lost Answer GmbH', code: 'LOST-1' }),
      }),
    ).rejects.toThrow();
    expect(api.sandbox.state.suppliers.length).toBe(before + 1);
    const listed = await api.call('GET', `/v1/suppliers?page_size=100&page=${Math.ceil((before + 1) / 100)}`);
    expect(listed.body.data.map((s: { number: string }) => s.number)).toContain('LOST-1');
    // The rule fired once: the next create is answered.
    const next = await api.call('POST', '/v1/suppliers', { body: { name: 'Answered GmbH', code: 'LOST-2' } });
    expect(next.status).toBe(201);
  });

  test('a failing operation is answered with its error, not dropped', async () => {
    const code = api.sandbox.state.suppliers[0]!.number;
    await fetch(`${api.url}/__control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: 'createSupplier', dropAfterHandling: true, times: 1 }),
    });
    const duplicate = await api.call('POST', '/v1/suppliers', { body: { name: 'Dup', code } });
    expect(duplicate.status).toBe(400);
    await fetch(`${api.url}/__control/faults`, { method: 'DELETE' });
  });
});
