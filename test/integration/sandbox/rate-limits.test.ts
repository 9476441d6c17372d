import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxToken } from '../../helpers/sandbox-token';
import { RATE_HEADERS, firstError, startApi, type Api } from './helpers';

let api: Api;
let clock = Date.parse('2026-11-01T10:00:05Z');
beforeAll(async () => {
  api = await startApi({ now: () => clock, readLimit: 5, writeLimit: 2, windowSeconds: 10, control: true });
});
afterAll(() => api.sandbox.stop());

const expectRateHeaders = (headers: Headers) => {
  for (const name of RATE_HEADERS) expect(headers.get(name), name).not.toBeNull();
};

/** The token endpoint, form-encoded, answered like `api.call`. */
const tokenCall = async (secret: string) => {
  const response = await fetch(`${api.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: api.sandbox.clientId,
      client_secret: secret,
    }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
};

describe('rate limits', () => {
  test('every successful answer carries the four headers with the read scope', async () => {
    api.sandbox.control!.resetRateLimits();
    const response = await api.call('GET', '/v1/bank-accounts');
    expectRateHeaders(response.headers);
    expect(response.headers.get('x-ratelimit-scope')).toBe('read');
    expect(response.headers.get('x-ratelimit-limit')).toBe('5');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  test('error answers carry the headers too (401, 404, 405, 400)', async () => {
    expectRateHeaders((await api.call('GET', '/v1/bank-accounts', { token: null })).headers);
    expectRateHeaders((await api.call('GET', '/v1/nowhere')).headers);
    expectRateHeaders((await api.call('DELETE', '/v1/suppliers')).headers);
    expectRateHeaders((await api.call('POST', '/v1/bank-transactions/search-query', { body: {} })).headers);
  });

  test('every other kind of answer carries them too, with the scope the operation draws on', async () => {
    const control = api.sandbox.control!;
    const file = api.sandbox.state.files[0]!;
    const sha = api.sandbox.state.fileRecord(file).sha256;
    const content = `/v1/files/${file.id}/content`;
    const readOnly = await api.token('read');
    const cases: [string, () => ReturnType<Api['call']>, number, string][] = [
      ['token 200', () => tokenCall(api.sandbox.clientSecret), 200, 'read'],
      ['token 401', () => tokenCall('wrong'), 401, 'read'],
      ['openapi', () => api.call('GET', '/openapi.json', { token: null }), 200, 'read'],
      [
        '403',
        () => api.call('POST', '/v1/dimensions', { token: readOnly, body: { name: 'N', code: 'N' } }),
        403,
        'write',
      ],
      ['406', () => api.call('GET', '/v1/teams', { headers: { accept: 'text/html' } }), 406, 'read'],
      [
        '410',
        () => api.call('PUT', `/v1/dimensions/${api.sandbox.state.dimensions[0]!.id}`, { body: {} }),
        410,
        'write',
      ],
      [
        '415',
        () =>
          api.call('POST', '/v1/dimensions', { body: 'name=x', headers: { 'content-type': 'text/plain' } }),
        415,
        'write',
      ],
      ['206', () => api.call('GET', content, { headers: { range: 'bytes=0-9' } }), 206, 'read'],
      ['304', () => api.call('GET', content, { headers: { 'if-none-match': `"${sha}"` } }), 304, 'read'],
      ['416', () => api.call('GET', content, { headers: { range: 'bytes=999999999-' } }), 416, 'read'],
    ];
    for (const [label, send, status, scope] of cases) {
      control.resetRateLimits();
      const response = await send();
      expect(response.status, label).toBe(status);
      expectRateHeaders(response.headers);
      expect(response.headers.get('x-ratelimit-scope'), label).toBe(scope);
    }
    control.resetRateLimits();
    control.addFault({ match: 'listTeams', status: 503, times: 1 });
    const unavailable = await api.call('GET', '/v1/teams');
    expect(unavailable.status).toBe(503);
    expectRateHeaders(unavailable.headers);
    control.clearFaults();
  });

  test('reset is the end of the fixed window in Unix seconds', async () => {
    const response = await api.call('GET', '/v1/bank-accounts', { token: null });
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBe(Math.floor(clock / 10_000) * 10 + 10);
  });

  test('writes draw on the write bucket', async () => {
    api.sandbox.control!.resetRateLimits();
    const response = await api.call('POST', '/v1/dimensions', { body: { name: 'Rate', code: 'RATE-1' } });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-ratelimit-scope')).toBe('write');
    expect(response.headers.get('x-ratelimit-limit')).toBe('2');
  });

  test('an empty bucket answers 429 with Retry-After and the standard body', async () => {
    api.sandbox.control!.resetRateLimits();
    for (let i = 0; i < 5; i++) expect((await api.call('GET', '/v1/teams')).status).toBe(200);
    const limited = await api.call('GET', '/v1/teams');
    expect(limited.status).toBe(429);
    expect(firstError(limited.body).code).toBe('RATE_LIMITED');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
  });

  test('read and write buckets are separate', async () => {
    api.sandbox.control!.resetRateLimits();
    for (let i = 0; i < 5; i++) await api.call('GET', '/v1/teams');
    expect((await api.call('GET', '/v1/teams')).status).toBe(429);
    const write = await api.call('POST', '/v1/dimensions', { body: { name: 'Separate', code: 'SEP-1' } });
    expect(write.status).toBe(201);
  });

  test('the bucket refills when the window resets', async () => {
    api.sandbox.control!.resetRateLimits();
    for (let i = 0; i < 5; i++) await api.call('GET', '/v1/teams');
    expect((await api.call('GET', '/v1/teams')).status).toBe(429);
    clock += 10_000;
    const after = await api.call('GET', '/v1/teams');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  test('limits are per API key, not per token: two tokens of one key share a bucket', async () => {
    api.sandbox.control!.resetRateLimits();
    const first = await api.token('read');
    const second = await api.token('read write');
    expect(first).not.toBe(second);
    for (let i = 0; i < 5; i++)
      expect((await api.call('GET', '/v1/teams', { token: first })).status).toBe(200);
    expect((await api.call('GET', '/v1/teams', { token: second })).status).toBe(429);
  });

  test('answers that are not counted (401 of an expired token, 413) show the bucket as it stands', async () => {
    const other = await startApi({
      now: () => clock,
      readLimit: 3,
      writeLimit: 2,
      windowSeconds: 3600,
      tokenTtlSeconds: 2,
      transactions: 100,
    });
    const remaining = (response: { headers: Headers }) => response.headers.get('x-ratelimit-remaining');
    try {
      const stale = await sandboxToken(other.sandbox, 'read write');
      clock += 3000;
      let last = await other.call('GET', '/v1/teams');
      for (let i = 0; i < 2; i++) last = await other.call('GET', '/v1/teams');
      expect(remaining(last)).toBe('0');
      const reset = last.headers.get('x-ratelimit-reset');

      const expired = await other.call('GET', '/v1/teams', { token: stale });
      expect(expired.status).toBe(401);
      expect(remaining(expired)).toBe('0');
      expect(expired.headers.get('x-ratelimit-reset')).toBe(reset);

      // Uncounted operations still answer with the bucket empty.
      const openapi = await other.call('GET', '/openapi.json', { token: null });
      expect(openapi.status).toBe(200);
      expect(remaining(openapi)).toBe('0');
      await expect(sandboxToken(other.sandbox)).resolves.toMatch(/./);

      const big = JSON.stringify({ name: 'x'.repeat(1_100_000) });
      const tooLarge = await other.call('POST', '/v0/bank-transactions/search-query', { body: big });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.headers.get('x-ratelimit-scope')).toBe('read');
      expect(remaining(tooLarge)).toBe('0');
      expect(tooLarge.headers.get('x-ratelimit-reset')).toBe(reset);

      const write = await other.call('POST', '/v1/dimensions', { body: { name: 'Peek', code: 'PEEK-1' } });
      expect(remaining(write)).toBe('1');
      const tooLargeWrite = await other.call('POST', '/v1/suppliers', { body: big });
      expect(tooLargeWrite.status).toBe(413);
      expect(tooLargeWrite.headers.get('x-ratelimit-scope')).toBe('write');
      expect(remaining(tooLargeWrite)).toBe('1');
      // Showing the bucket spent nothing: the last write of the window still gets through.
      const next = await other.call('POST', '/v1/dimensions', { body: { name: 'Peek 2', code: 'PEEK-2' } });
      expect(next.status).toBe(201);
      expect(remaining(next)).toBe('0');
    } finally {
      await other.sandbox.stop();
    }
  });

  test('limits and window are configurable', async () => {
    const other = await startApi({ readLimit: 1, windowSeconds: 3600, transactions: 100 });
    try {
      const ok = await other.call('GET', '/v1/teams');
      expect(ok.headers.get('x-ratelimit-limit')).toBe('1');
      expect((await other.call('GET', '/v1/teams')).status).toBe(429);
    } finally {
      await other.sandbox.stop();
    }
  });
});
