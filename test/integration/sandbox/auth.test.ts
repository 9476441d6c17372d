import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TokenResponse } from '../../../src-shared/api';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
let clock = Date.parse('2026-11-01T10:00:00Z');
beforeAll(async () => {
  api = await startApi({ now: () => clock, tokenTtlSeconds: 3600 });
});
afterAll(() => api.sandbox.stop());

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
async function tokenRequest(body: string, contentType = 'application/x-www-form-urlencoded') {
  const response = await fetch(`${api.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}
const credentials = () => ({
  grant_type: 'client_credentials',
  client_id: api.sandbox.clientId,
  client_secret: api.sandbox.clientSecret,
});

describe('authentication', () => {
  test('token endpoint answers access_token, Bearer, expires_in 3600 and the scope', async () => {
    const { status, body } = await tokenRequest(form({ ...credentials(), scope: 'read write' }));
    expect(status).toBe(200);
    const parsed = TokenResponse.parse(body);
    expect(parsed.token_type).toBe('Bearer');
    expect(parsed.expires_in).toBe(3600);
    expect(parsed.scope).toBe('read write');
  });

  test('a token answer is never cached: Cache-Control no-store, Pragma no-cache (RFC 6749 §5.1)', async () => {
    const { status, headers } = await tokenRequest(form(credentials()));
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('pragma')).toBe('no-cache');
  });

  test('"write read" is the same grant as "read write", and the answer names it in that order', async () => {
    const { body } = await tokenRequest(form({ ...credentials(), scope: 'write  read' }));
    expect(body.scope).toBe('read write');
    const token = body.access_token as string;
    expect((await api.call('GET', '/v1/teams', { token })).status).toBe(200);
  });

  test('unknown form fields are ignored, as OAuth 2.0 requires of the token endpoint (RFC 6749 §3.2)', async () => {
    const { status, body } = await tokenRequest(form({ ...credentials(), audience: 'spend-api' }));
    expect(status).toBe(200);
    expect(body.scope).toBe('read');
  });

  test('the Bearer scheme is case-insensitive (RFC 9110 §11.1)', async () => {
    const token = await api.token('read');
    const response = await api.call('GET', '/v1/teams', {
      token: null,
      headers: { authorization: `bearer ${token}` },
    });
    expect(response.status).toBe(200);
  });

  test('scope defaults to read', async () => {
    const { body } = await tokenRequest(form(credentials()));
    expect(body.scope).toBe('read');
  });

  test('scope write alone is granted', async () => {
    const { body } = await tokenRequest(form({ ...credentials(), scope: 'write' }));
    expect(body.scope).toBe('write');
  });

  test('wrong secret is 401 invalid_client in the standard error format', async () => {
    const { status, body } = await tokenRequest(form({ ...credentials(), client_secret: 'sk_wrong' }));
    expect(status).toBe(401);
    expect(firstError(body).code).toBe('INVALID_CLIENT');
    expect(body.error).toBe('invalid_client');
  });

  test('the token endpoint challenges with Basic, as its credentials are a client id and secret', async () => {
    const { status, headers } = await tokenRequest(form({ ...credentials(), client_secret: 'sk_wrong' }));
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toBe('Basic realm="token"');
  });

  describe('HTTP Basic client authentication (RFC 6749 §2.3.1)', () => {
    // The id and secret are form-urlencoded, then joined by a colon and base64-encoded.
    const basic = (id: string, secret: string) =>
      `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    async function basicRequest(authorization: string, fields: Record<string, string>) {
      const response = await fetch(`${api.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
        body: form(fields),
      });
      return {
        status: response.status,
        headers: response.headers,
        body: (await response.json()) as Record<string, unknown>,
      };
    }

    test('the client id and secret in Authorization: Basic get a token that works', async () => {
      const { status, body } = await basicRequest(basic(api.sandbox.clientId, api.sandbox.clientSecret), {
        grant_type: 'client_credentials',
        scope: 'read',
      });
      expect(status).toBe(200);
      const token = TokenResponse.parse(body).access_token;
      expect((await api.call('GET', '/v1/teams', { token })).status).toBe(200);
    });

    test('the scheme is case-insensitive and the credentials are form-urldecoded', async () => {
      // A secret with characters that form-urlencoding escapes ("+" stands for a space there).
      const secret = 'sk_a b+c:d%é';
      const other = await startApi({ transactions: 10, clientSecret: secret });
      try {
        const encoded = Buffer.from(
          `${other.sandbox.clientId}:${new URLSearchParams({ s: secret }).toString().slice(2)}`,
        ).toString('base64');
        const response = await fetch(`${other.url}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `basic ${encoded}` },
          body: form({ grant_type: 'client_credentials' }),
        });
        expect(response.status).toBe(200);
      } finally {
        await other.sandbox.stop();
      }
    });

    test('a client id repeated in the form beside Basic is accepted when it is the same', async () => {
      const { status } = await basicRequest(basic(api.sandbox.clientId, api.sandbox.clientSecret), {
        grant_type: 'client_credentials',
        client_id: api.sandbox.clientId,
      });
      expect(status).toBe(200);
    });

    test('a wrong secret in Basic is 401 invalid_client with a Basic challenge', async () => {
      const { status, headers, body } = await basicRequest(basic(api.sandbox.clientId, 'sk_wrong'), {
        grant_type: 'client_credentials',
      });
      expect(status).toBe(401);
      expect(body.error).toBe('invalid_client');
      expect(firstError(body).code).toBe('INVALID_CLIENT');
      expect(headers.get('www-authenticate')).toBe('Basic realm="token"');
    });

    test('Basic credentials that are not base64 of "id:secret" are 401 invalid_client', async () => {
      const { status, body } = await basicRequest(`Basic ${Buffer.from('no-colon').toString('base64')}`, {
        grant_type: 'client_credentials',
      });
      expect(status).toBe(401);
      expect(body.error).toBe('invalid_client');
    });

    test('Basic and a client_secret in the form at once is 400 invalid_request', async () => {
      const { status, body } = await basicRequest(
        basic(api.sandbox.clientId, api.sandbox.clientSecret),
        credentials(),
      );
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_request');
      expect(firstError(body)).toMatchObject({ code: 'INVALID_REQUEST', field: 'client_secret' });
    });

    test('a form client_id other than the Basic one is 400 invalid_request naming client_id', async () => {
      const { status, body } = await basicRequest(basic(api.sandbox.clientId, api.sandbox.clientSecret), {
        grant_type: 'client_credentials',
        client_id: 'kid_other',
      });
      expect(status).toBe(400);
      expect(firstError(body)).toMatchObject({ code: 'INVALID_REQUEST', field: 'client_id' });
    });
  });

  test('a parameter given twice is 400 invalid_request naming it (RFC 6749 §3.2)', async () => {
    const { clientId, clientSecret } = api.sandbox;
    // The last value is not taken: a wrong secret first and the right one last gets no token.
    for (const [body, field] of [
      [
        `${form({ ...credentials(), client_secret: 'sk_wrong' })}&${form({ client_secret: clientSecret })}`,
        'client_secret',
      ],
      [`${form(credentials())}&scope=read&scope=write`, 'scope'],
      [`grant_type=client_credentials&${form(credentials())}`, 'grant_type'],
      [`${form(credentials())}&${form({ client_id: clientId })}`, 'client_id'],
    ] as const) {
      const { status, body: answer } = await tokenRequest(body);
      expect(status, field).toBe(400);
      expect(answer.error).toBe('invalid_request');
      expect(firstError(answer)).toMatchObject({
        code: 'INVALID_REQUEST',
        message: `${field} is given more than once.`,
        field,
      });
    }
    // A field the endpoint does not read is ignored however often it comes.
    const { status } = await tokenRequest(`${form(credentials())}&audience=a&audience=b`);
    expect(status).toBe(200);
  });

  test('unknown grant type is 400 naming grant_type', async () => {
    const { status, body } = await tokenRequest(form({ ...credentials(), grant_type: 'password' }));
    expect(status).toBe(400);
    expect(firstError(body)).toMatchObject({ code: 'UNSUPPORTED_GRANT_TYPE', field: 'grant_type' });
  });

  test('unknown scope is 400 naming scope', async () => {
    const { status, body } = await tokenRequest(form({ ...credentials(), scope: 'admin' }));
    expect(status).toBe(400);
    expect(firstError(body)).toMatchObject({ code: 'INVALID_SCOPE', field: 'scope' });
  });

  test('missing client_id is 400 naming it', async () => {
    const { status, body } = await tokenRequest(
      form({ grant_type: 'client_credentials', client_secret: 'x' }),
    );
    expect(status).toBe(400);
    expect(firstError(body).field).toBe('client_id');
  });

  test('token endpoint takes form encoding only: JSON is 415', async () => {
    const { status, body } = await tokenRequest(JSON.stringify(credentials()), 'application/json');
    expect(status).toBe(415);
    expect(firstError(body).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test('a call without a token is 401 with a Bearer challenge', async () => {
    const response = await api.call('GET', '/v1/bank-accounts', { token: null });
    expect(response.status).toBe(401);
    expect(firstError(response.body).code).toBe('UNAUTHORIZED');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  test('a call with an unknown token is 401', async () => {
    const response = await api.call('GET', '/v1/bank-accounts', { token: 'sbx_made_up' });
    expect(response.status).toBe(401);
    expect(firstError(response.body).code).toBe('UNAUTHORIZED');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="spend-api", error="invalid_token"');
  });

  test('a malformed Authorization header is 401', async () => {
    const response = await api.call('GET', '/v1/bank-accounts', {
      token: null,
      headers: { authorization: 'Basic abc' },
    });
    expect(response.status).toBe(401);
  });

  test('an expired token is 401 and a fresh one works', async () => {
    const { body } = await tokenRequest(form(credentials()));
    const token = body.access_token as string;
    expect((await api.call('GET', '/v1/bank-accounts', { token })).status).toBe(200);
    clock += 3601_000;
    const expired = await api.call('GET', '/v1/bank-accounts', { token });
    expect(expired.status).toBe(401);
    expect(firstError(expired.body).message).toMatch(/expired/);
    const fresh = (await tokenRequest(form(credentials()))).body.access_token as string;
    expect((await api.call('GET', '/v1/bank-accounts', { token: fresh })).status).toBe(200);
  });

  test('a read-only token cannot create: 403', async () => {
    const read = (await tokenRequest(form(credentials()))).body.access_token as string;
    const response = await api.call('POST', '/v1/suppliers', {
      token: read,
      body: { name: 'Forbidden GmbH', code: 'F-1' },
    });
    expect(response.status).toBe(403);
    expect(firstError(response.body).code).toBe('FORBIDDEN');
  });

  test('a read-only token cannot update: 403', async () => {
    const read = (await tokenRequest(form(credentials()))).body.access_token as string;
    const supplier = api.sandbox.state.suppliers[0]!;
    const response = await api.call('PATCH', `/v1/suppliers/${supplier.id}`, {
      token: read,
      body: { name: 'X' },
    });
    expect(response.status).toBe(403);
  });

  test('a write-only token cannot read: 403', async () => {
    const write = (await tokenRequest(form({ ...credentials(), scope: 'write' }))).body
      .access_token as string;
    const response = await api.call('GET', '/v1/suppliers', { token: write });
    expect(response.status).toBe(403);
  });

  test('search-query needs read, not write', async () => {
    const read = (await tokenRequest(form(credentials()))).body.access_token as string;
    const response = await api.call('POST', '/v0/bank-transactions/search-query', { token: read, body: {} });
    expect(response.status).toBe(200);
  });
});
