import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApiClient } from '../../../src-main/api/client';
import { openCache, defaultMigrationsDir } from '../../../src-main/store';
import { runSync } from '../../../src-main/sync/engine';
import { allResources } from '../../../src-main/sync/resources';
import { startSandbox, type Sandbox } from '../../../src-sandbox';
import { readApi, readCache, sortById } from '../../helpers/api-snapshot';
import { useTempDirs } from '../../helpers/temp-dir';

// The engine and the client against a sandbox that misbehaves on purpose.
const tempDir = useTempDirs();
const stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function setup(
  options: Parameters<typeof startSandbox>[0] = {},
  clientOptions: Partial<Parameters<typeof createApiClient>[0]> = {},
) {
  const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 800, control: true, ...options });
  stops.push(() => sandbox.stop());
  const cache = openCache(path.join(tempDir(), 'cache.sqlite'), { migrationsDir: defaultMigrationsDir() });
  stops.push(() => cache.close());
  const statuses: number[] = [];
  const client = createApiClient({
    baseUrl: sandbox.url,
    credentials: async () => ({
      kind: 'client',
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
    }),
    onResponse: ({ status }) => statuses.push(status),
    random: () => 0, // the shortest backoff keeps the test quick; jitter is covered in unit tests
    timeoutMs: 2_000,
    ...clientOptions,
  });
  return { sandbox, cache, client, statuses };
}

async function expectExact(sandbox: Sandbox, cache: Parameters<typeof readCache>[0]) {
  const api = await readApi(sandbox.url, sandbox.clientId, sandbox.clientSecret);
  const local = readCache(cache);
  for (const [resource, records] of Object.entries(api))
    expect(local[resource], resource).toEqual(sortById(records));
}

describe('sync under faults', () => {
  it('ends exact through 5xx answers, dropped connections, slow answers and 429 bursts', async () => {
    // A forced 429 empties the bucket until the window resets: a short window keeps it brief.
    const { sandbox, cache, client, statuses } = await setup({ windowSeconds: 2, readLimit: 1000 });
    const control = sandbox.control!;
    control.addFault({ match: '/v1/bank-transactions/search-query', status: 503, times: 3, skip: 2 });
    control.addFault({ match: '/v1/suppliers', drop: true, times: 2 });
    control.addFault({ match: '/v1/expenses', latencyMs: 3_000, times: 1 }); // beyond the client timeout
    control.addFault({ match: '/v1/files/search-query', status: 500, times: 2 });
    control.addFault({ match: '*', rateLimit: true, times: 3, skip: 10 });
    control.addFault({ match: '*', latencyMs: 20, times: 50 });

    const summary = await runSync({ cache, client, resources: allResources });
    expect(summary.errors).toEqual([]);
    expect(summary.outcome).toBe('succeeded');
    expect(statuses).toContain(503);
    expect(statuses).toContain(500);
    expect(statuses).toContain(429);
    control.clearFaults();
    await expectExact(sandbox, cache);
  });

  it('retries a server error after rate-limit waits, and does not sit out a long maintenance', async () => {
    const { sandbox, cache, client, statuses } = await setup({ windowSeconds: 1, readLimit: 1000 });
    const control = sandbox.control!;
    // Five 429s on the first request of the suppliers, then a 503: the waits for the rate
    // limit used to use up the retries, and the 503 ended the resource.
    control.addFault({ match: '/v1/suppliers', rateLimit: true, retryAfterSeconds: 0, times: 5 });
    control.addFault({ match: '/v1/suppliers', status: 503, times: 1, skip: 5 });
    const through = await runSync({ cache, client, resources: allResources });
    expect(through.errors).toEqual([]);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
    expect(statuses).toContain(503);

    // A 503 that asks for an hour is reported at once, not waited for.
    control.addFault({ match: '/v1/suppliers', status: 503, retryAfterSeconds: 3600, times: 1 });
    const started = Date.now();
    const down = await runSync({ cache, client, resources: allResources });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(down.outcome).toBe('partial');
    expect(down.errors).toEqual([
      expect.objectContaining({
        resource: 'suppliers',
        code: 'SERVER_ERROR',
        message: expect.stringContaining('503'),
      }),
    ]);
    // The server's sentence ends with its own full stop, not with two.
    expect(down.errors[0]?.message).toBe('The API failed (503): Injected fault. Try again later.');
  });

  it('waits for the window instead of earning a 429 when the budget is known', async () => {
    const { sandbox, cache, client, statuses } = await setup({ readLimit: 25, windowSeconds: 2 });
    const summary = await runSync({ cache, client, resources: allResources });
    expect(summary.outcome).toBe('succeeded');
    expect(statuses.length).toBeGreaterThan(25);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    await expectExact(sandbox, cache);
  });

  it("sends another operation's first request only when the read budget has room", async () => {
    const { client, statuses } = await setup({ readLimit: 4, windowSeconds: 2 });
    const read = (path: string) => client.request({ method: 'GET', path, schema: z.unknown() });
    // Begin early in a window (they are aligned to the epoch), so that its budget is spent
    // well before it ends.
    const into = Date.now() % 2_000;
    if (into > 200) await new Promise((resolve) => setTimeout(resolve, 2_000 - into + 20));
    for (let i = 0; i < 4; i += 1) await read('/v1/suppliers');
    // The bucket is empty; the next operation's scope is not known yet. Sent at once (the
    // first request of a sync's next resource at the end of a window), it earned a 429.
    await read('/v1/expenses');
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    expect(statuses).toHaveLength(6); // the sign-in, four reads, and this one
  });

  it('signs in again once when the token is refused, and names bad credentials clearly', async () => {
    const { sandbox, cache, client } = await setup();
    await runSync({ cache, client, resources: allResources });
    sandbox.control!.expireTokens();
    const again = await runSync({ cache, client, resources: allResources });
    expect(again.outcome).toBe('succeeded');

    const wrong = createApiClient({
      baseUrl: sandbox.url,
      credentials: async () => ({ kind: 'client', clientId: sandbox.clientId, clientSecret: 'sk_wrong' }),
    });
    const failed = await runSync({ cache, client: wrong, resources: allResources });
    expect(failed.outcome).toBe('failed');
    expect(failed.errors[0]).toMatchObject({ code: 'AUTH_FAILED' });
    expect(failed.errors[0]?.message).toMatch(/Enter the API key again/);
    expect(JSON.stringify(failed)).not.toContain('sk_wrong');

    // A sign-in the server fails (5xx to the end of the retries) is not the credentials' fault.
    sandbox.control!.expireTokens();
    sandbox.control!.addFault({ match: '/oauth2/token', status: 503, times: 6 });
    const down = await runSync({ cache, client, resources: allResources });
    expect(down.outcome).not.toBe('succeeded');
    expect(down.errors[0]?.message).toMatch(
      /^The API's sign-in failed \(503\): .*The credentials were not the problem; try again later\.$/,
    );
  });

  it('reads again a list page whose answer broke off after its headers', async () => {
    const { sandbox, cache, client } = await setup({ readLimit: 1000 });
    // The second page of suppliers arrives with its headers and 300 bytes of its JSON, then
    // the connection is cut: a broken connection, not a malformed answer, so it is asked again.
    const cut = sandbox.control!.addFault({ match: 'listSuppliers', truncateBodyAt: 300, skip: 1, times: 1 });
    const summary = await runSync({ cache, client, resources: allResources });
    expect(summary.errors).toEqual([]);
    expect(summary.outcome).toBe('succeeded');
    expect(sandbox.control!.faultFired(cut)).toBe(1);
    await expectExact(sandbox, cache);
  });

  it('ends the run with the reset when a list page breaks off every time, storing none of it', async () => {
    const { sandbox, cache, client } = await setup({ readLimit: 1000 }, { maxRetries: 2 });
    const api = await readApi(sandbox.url, sandbox.clientId, sandbox.clientSecret);
    expect(api['suppliers']!.length).toBeGreaterThan(100); // more than the first page of 100
    const cut = sandbox.control!.addFault({ match: 'listSuppliers', truncateBodyAt: 300, skip: 1 });
    const summary = await runSync({ cache, client, resources: allResources });
    const host = new URL(sandbox.url).host;
    expect(summary.outcome).toBe('failed');
    expect(summary.errors).toEqual([
      {
        resource: 'suppliers',
        code: 'CONNECTION_RESET',
        message: `The connection to ${host} was reset before the server's answer was complete. Try again later.`,
      },
    ]);
    expect(sandbox.control!.faultFired(cut)).toBe(3); // the first attempt and two retries
    // The first page is stored with its checkpoint; nothing of the page that broke off is.
    sandbox.control!.clearFaults();
    const firstPage = await client.request({
      method: 'GET',
      path: '/v1/suppliers',
      query: { page: 1, page_size: 100 },
      schema: z.object({ data: z.array(z.object({ id: z.string() })) }),
    });
    const stored = cache.sqlite.prepare('SELECT id FROM suppliers ORDER BY id').all() as { id: string }[];
    expect(stored.map((row) => row.id)).toEqual(firstPage.data.map((row) => row.id).sort());
  });

  it('reports an unreachable API as offline and keeps what was stored', async () => {
    const { sandbox, cache, client } = await setup();
    await runSync({ cache, client, resources: allResources });
    await sandbox.stop();
    const offline = createApiClient({
      baseUrl: sandbox.url,
      credentials: async () => ({
        kind: 'client',
        clientId: sandbox.clientId,
        clientSecret: sandbox.clientSecret,
      }),
      maxRetries: 1,
      random: () => 0,
    });
    const summary = await runSync({ cache, client: offline, resources: allResources });
    expect(summary.outcome).toBe('failed');
    expect(summary.errors[0]?.code).toBe('OFFLINE');
    const kept = cache.sqlite
      .prepare('SELECT count(*) AS n FROM bank_transactions WHERE deleted_at IS NULL')
      .get() as { n: number };
    expect(kept.n).toBe(800);
  });
  it('reads every page of lists whose answers carry no page metadata', async () => {
    // A server that leaves out `meta` (no `hasMore`): a full page means there may be more. Ending
    // after the first page used to leave expenses past it out for good (the high-water mark moved
    // on) and take suppliers past it for deleted.
    const { sandbox, cache, client } = await setup({ readLimit: 1000 });
    const api = await readApi(sandbox.url, sandbox.clientId, sandbox.clientSecret);
    expect(api['expenses']!.length).toBeGreaterThan(100); // more than one page of 100
    expect(api['suppliers']!.length).toBeGreaterThan(100);
    const fault = sandbox.control!.addFault({ match: '*', omitListMeta: true });

    const summary = await runSync({ cache, client, resources: allResources });
    expect(summary.errors).toEqual([]);
    expect(sandbox.control!.faultFired(fault)).toBeGreaterThan(0);
    sandbox.control!.clearFaults();
    await expectExact(sandbox, cache);
  });
});
