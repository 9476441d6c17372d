import { describe, expect, it } from 'vitest';
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
