import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxCommand, sandboxProcess } from '../../helpers/sandbox-process';
import { sandboxToken } from '../../helpers/sandbox-token';

/** The sandbox's command line, started as developers and the download benchmark start it. */

describe('sandbox command line', () => {
  let sandbox: Awaited<ReturnType<typeof sandboxProcess>>;
  let token: string;

  beforeAll(async () => {
    sandbox = await sandboxProcess(['--transactions', '400', '--file-kb', '64']);
    token = await sandboxToken(sandbox);
  }, 30_000);
  afterAll(() => sandbox?.stop());

  test('--file-kb serves files of about that size, as listed and hashed', async () => {
    const listing = await fetch(`${sandbox.url}/v1/files/search-query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pagination: { page: 1, pageSize: 6 } }),
    });
    expect(listing.status).toBe(200);
    const { data } = (await listing.json()) as { data: Array<{ id: string; size: number; sha256: string }> };
    expect(data).toHaveLength(6);
    for (const file of data) {
      expect(file.size).toBeGreaterThanOrEqual(32 * 1024);
      expect(file.size).toBeLessThanOrEqual(96 * 1024 + 2048);
      const content = await fetch(`${sandbox.url}/v1/files/${file.id}/content`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const bytes = Buffer.from(await content.arrayBuffer());
      expect(bytes.length).toBe(file.size);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
    }
  });

  test('a --file-kb beyond what it can hold is refused, naming the range', async () => {
    const refused = await sandboxCommand(['--port', '0', '--file-kb', '200000']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--file-kb must be a whole number from 0 to 102400, not "200000".');
    const word = await sandboxCommand(['--port', '0', '--file-kb', 'large']);
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('--file-kb must be a whole number from 0 to 102400, not "large".');
  });
});
