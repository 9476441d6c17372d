import { describe, expect, it } from 'vitest';
import { scrubbed } from '../../src-main/api/client';
import { redact } from '../../src-main/log';

describe('log redaction', () => {
  it('removes bearer tokens, form secrets, JSON secrets and API key secrets', () => {
    const line = redact(
      'POST /oauth2/token client_id=kid_1&client_secret=sk_live_abc&scope=read ' +
        'Authorization: Bearer eyJhbGciOi.payload.sig {"access_token":"tok-123","expires_in":3600} secret=hunter2',
    );
    for (const secret of ['sk_live_abc', 'eyJhbGciOi', 'tok-123', 'hunter2'])
      expect(line).not.toContain(secret);
    expect(line).toContain('client_id=kid_1');
    expect(line).toContain('"expires_in":3600');
  });
});

describe('log redaction of what the app itself names and servers quote back', () => {
  it('removes the app’s own camelCase fields (the IPC and credential shapes)', () => {
    const line = redact(
      '{"kind":"client","clientId":"kid_7","clientSecret":"hunter2-camel"} ' +
        "{ kind: 'token', accessToken: 'opaque-token-value' } apiKey=ak-1234 x-api-key: ak-5678",
    );
    for (const secret of ['hunter2-camel', 'opaque-token-value', 'ak-1234', 'ak-5678'])
      expect(line).not.toContain(secret);
    expect(line).toContain('"clientId":"kid_7"');
  });

  it('removes an Authorization header of any scheme, in a header dump or as JSON', () => {
    const line = redact(
      'authorization: Basic a2lkXzE6c2tfMQ== {"authorization":"Token abc.def"} Authorization=Digest xyz',
    );
    for (const secret of ['a2lkXzE6c2tfMQ==', 'abc.def', 'xyz']) expect(line).not.toContain(secret);
  });

  it('removes signatures and credentials in a quoted URL, keeping the rest of the address', () => {
    const line = redact(
      'GET https://files.example.com/r/1.pdf?X-Amz-Credential=AKIA123&X-Amz-Signature=f00d&sig=abc%2F&page=2 ' +
        'https://kid:sk-inline@api.example.com/v1',
    );
    for (const secret of ['AKIA123', 'f00d', 'abc%2F', 'sk-inline']) expect(line).not.toContain(secret);
    expect(line).toContain('https://files.example.com/r/1.pdf?');
    expect(line).toContain('page=2');
    expect(line).toContain('api.example.com/v1');
  });
});

describe('what a server says, as the app repeats it', () => {
  it('loses the secrets the client sent, bare or form-encoded, and what redact recognises', () => {
    const told = scrubbed('key "s3cr+t/=" (s3cr%2Bt%2F%3D) unknown for opaque-tok; client_secret=other', [
      's3cr+t/=',
      'opaque-tok',
      undefined,
    ]);
    expect(told).toBe('key "[redacted]" ([redacted]) unknown for [redacted]; client_secret=[redacted]');
  });
});
