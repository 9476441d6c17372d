import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApiErrorBody } from '../../../src-shared/api';
import { RATE_HEADERS, firstError, startApi, type Api } from './helpers';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.sandbox.stop());

describe('errors', () => {
  test('unknown path is 404 in the standard format', async () => {
    const response = await api.call('GET', '/v1/no-such-thing');
    expect(response.status).toBe(404);
    expect(ApiErrorBody.safeParse(response.body).success).toBe(true);
    expect(firstError(response.body).code).toBe('NOT_FOUND');
  });

  test('unknown record id is 404', async () => {
    const response = await api.call('GET', '/v1/suppliers/11111111-2222-4333-8444-555555555555');
    expect(response.status).toBe(404);
    expect(firstError(response.body).code).toBe('NOT_FOUND');
  });

  test('wrong method on a known path is 405 with Allow', async () => {
    const response = await api.call('GET', '/v0/bank-transactions/search-query');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(firstError(response.body).code).toBe('METHOD_NOT_ALLOWED');
  });

  test('a path that only looks like a known one is 404, not 405', async () => {
    for (const path of ['/openapiXjson', '/openapi-json']) {
      const response = await api.call('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('allow'), path).toBeNull();
      expect(firstError(response.body).code, path).toBe('NOT_FOUND');
    }
  });

  test('405 Allow lists every method of the path', async () => {
    const response = await api.call('DELETE', `/v1/suppliers/${api.sandbox.state.suppliers[0]!.id}`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PATCH');
  });

  test('an Accept the server cannot meet is 406', async () => {
    const response = await api.call('GET', '/v1/teams', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(406);
    expect(firstError(response.body).code).toBe('NOT_ACCEPTABLE');
  });

  test('Accept with wildcards and parameters is honoured', async () => {
    expect(
      (await api.call('GET', '/v1/teams', { headers: { accept: 'text/html, application/*;q=0.8' } })).status,
    ).toBe(200);
    expect((await api.call('GET', '/v1/teams', { headers: { accept: 'application/json;q=0' } })).status).toBe(
      406,
    );
  });

  test('the most specific Accept range decides: a q=0 on application/json is not undone by */*', async () => {
    const status = async (accept: string) =>
      (await api.call('GET', '/v1/teams', { headers: { accept } })).status;
    expect(await status('application/json;q=0, */*')).toBe(406);
    expect(await status('*/*, application/json; q=0')).toBe(406);
    expect(await status('application/*;q=0, */*')).toBe(406);
    expect(await status('application/json;q=0, application/*')).toBe(406);
    expect(await status('application/*;q=0, application/json')).toBe(200);
    expect(await status('*/*;q=0, application/json;q=0.5')).toBe(200);
    expect(await status('text/*;q=0, */*')).toBe(200);
  });

  test('a body that is not JSON is 415', async () => {
    const response = await api.call('POST', '/v0/bank-transactions/search-query', {
      body: 'ids=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(firstError(response.body).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test('malformed JSON is 400 INVALID_JSON, not 500', async () => {
    const response = await api.call('POST', '/v0/bank-transactions/search-query', { body: '{"freeText": ' });
    expect(response.status).toBe(400);
    expect(firstError(response.body).code).toBe('INVALID_JSON');
  });

  test('a JSON body of the wrong shape is 400, not 500', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      const response = await api.call('POST', '/v0/bank-transactions/search-query', { body });
      expect(response.status, body).toBe(400);
      expect(firstError(response.body).code).toBe('VALIDATION_ERROR');
    }
  });

  test('an unknown body member is 400 naming it', async () => {
    const response = await api.call('POST', '/v0/bank-transactions/search-query', {
      body: { freetext: 'x' },
    });
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('freetext');
  });

  test('a member of the wrong type says what was expected; a missing one says Required', async () => {
    const wrong = await api.call('POST', '/v0/bank-transactions/search-query', { body: { matched: 'yes' } });
    expect(wrong.status).toBe(400);
    expect(firstError(wrong.body)).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Expected a boolean.',
      field: 'matched',
    });
    const nested = await api.call('POST', '/v0/bank-transactions/search-query', {
      body: { pagination: { page: '2' } },
    });
    expect(firstError(nested.body)).toMatchObject({
      message: 'Expected a number.',
      field: 'pagination.page',
    });
    const missing = await api.call('POST', '/v1/bank-transactions/search-query', {
      body: { bookingDateTo: '2026-03-31' },
    });
    expect(firstError(missing.body)).toMatchObject({ message: 'Required.', field: 'bookingDateFrom' });
    const notString = await api.call('POST', '/v1/bank-transactions/search-query', {
      body: { bookingDateFrom: 20260101, bookingDateTo: '2026-03-31' },
    });
    expect(firstError(notString.body)).toMatchObject({
      message: 'Expected a string.',
      field: 'bookingDateFrom',
    });
    const notObject = await api.call('POST', '/v0/bank-transactions/search-query', { body: '[]' });
    expect(firstError(notObject.body).message).toBe('Expected an object.');
    const name = await api.call('POST', '/v1/suppliers', { body: { name: 42, code: 'TYPE-1' } });
    expect(firstError(name.body)).toEqual({
      code: 'NAME_REQUIRED',
      message: 'Expected a string.',
      field: 'name',
    });
    const noName = await api.call('POST', '/v1/suppliers', { body: { code: 'TYPE-2' } });
    expect(firstError(noName.body)).toMatchObject({
      code: 'NAME_REQUIRED',
      message: 'Required.',
      field: 'name',
    });
  });

  test('an unknown query parameter is 400 naming it', async () => {
    const response = await api.call('GET', '/v1/suppliers?pageSize=5');
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('pageSize');
  });

  test('a path that is not valid percent-encoding is 400 in the standard format, with rate headers', async () => {
    for (const [method, path] of [
      ['GET', '/v1/suppliers/%zz'],
      ['GET', '/v1/files/%E0%A4%A/content'],
      ['POST', '/v1/bank-transactions/search-query%'],
    ] as const) {
      const response = await api.call(method, path, method === 'POST' ? { body: {} } : {});
      expect(response.status, path).toBe(400);
      expect(ApiErrorBody.safeParse(response.body).success, path).toBe(true);
      expect(firstError(response.body).code, path).toBe('VALIDATION_ERROR');
      expect(response.headers.get('content-type'), path).toBe('application/json; charset=utf-8');
      for (const name of RATE_HEADERS) expect(response.headers.get(name), `${path} ${name}`).not.toBeNull();
    }
  });

  test('a path id longer than any id is 404 in the standard format, with rate headers', async () => {
    const response = await api.call('GET', `/v1/suppliers/${'a'.repeat(150)}`);
    expect(response.status).toBe(404);
    expect(firstError(response.body).code).toBe('NOT_FOUND');
    for (const name of RATE_HEADERS) expect(response.headers.get(name), name).not.toBeNull();
  });

  test('a body over 1 MB is 413 in the standard format', async () => {
    const response = await api.call('POST', '/v0/bank-transactions/search-query', {
      body: JSON.stringify({ freeText: 'x'.repeat(1_100_000) }),
    });
    expect(response.status).toBe(413);
    expect(firstError(response.body).code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('error bodies never carry a stack trace', async () => {
    const responses = await Promise.all([
      api.call('POST', '/v0/bank-transactions/search-query', { body: '{' }),
      api.call('GET', '/v1/suppliers?page=0'),
      api.call('GET', '/v1/files/not-a-uuid/content'),
    ]);
    for (const response of responses) {
      expect(response.status).toBeLessThan(500);
      expect(JSON.stringify(response.body)).not.toMatch(/at .*\.ts:\d+|Error:|node_modules/);
    }
  });

  test('responses are application/json; charset=utf-8', async () => {
    const ok = await api.call('GET', '/v1/teams');
    const error = await api.call('GET', '/v1/none');
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(error.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});
