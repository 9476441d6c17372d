import { afterEach, describe, expect, it } from 'vitest';
import { readApi, readCache, sortById } from '../../helpers/api-snapshot';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// Real sandbox over HTTP, real keychain, real SQLite cache.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('first sync', () => {
  it('leaves the cache equal to the API, record by record, for every resource', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    const summary = await setup.core.sync.sync(setup.profile.id);
    expect(summary.errors).toEqual([]);
    expect(summary.outcome).toBe('succeeded');

    const api = await readApi(setup.sandbox.url, setup.sandbox.clientId, setup.sandbox.clientSecret);
    const cache = readCache(setup.core.cacheOf(setup.profile.id));
    for (const [resource, records] of Object.entries(api)) {
      expect(records.length, resource).toBeGreaterThan(0);
      expect(cache[resource], resource).toEqual(sortById(records));
    }
    expect(summary.counts['bankTransactions']).toBe(api.bankTransactions.length);
  });

  it('stores money as integer minor units that add up to the API amounts', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    await setup.core.sync.sync(setup.profile.id);
    const sqlite = setup.core.cacheOf(setup.profile.id).sqlite;
    const rows = sqlite
      .prepare(
        'SELECT raw, amount_minor, amount_currency, typeof(amount_minor) AS kind FROM bank_transactions',
      )
      .all() as Array<{
      raw: string;
      amount_minor: number;
      amount_currency: string;
      kind: string;
    }>;
    for (const row of rows) {
      expect(row.kind).toBe('integer');
      const amount = (JSON.parse(row.raw) as { amount: { amount: string; currency: string } }).amount;
      expect(amount.currency).toBe(row.amount_currency);
      expect(amount.amount.replace('.', '').replace(/^(-?)0+(?=\d)/, '$1')).toBe(String(row.amount_minor));
    }
    const fees = sqlite.prepare('SELECT count(*) AS n FROM bank_transaction_fees').get() as { n: number };
    expect(fees.n).toBeGreaterThan(0);
  });

  it('keeps a history of runs and resumes nothing after a complete run', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    await setup.core.sync.sync(setup.profile.id);
    const second = await setup.core.sync.sync(setup.profile.id);
    expect(second.outcome).toBe('succeeded');
    // Nothing changed upstream: the second run re-reads only the trailing window and the small lists.
    expect(second.counts['suppliers']).toBeLessThan(5);
    const history = setup.core.sync.history(setup.profile.id);
    expect(history.map((run) => run.outcome)).toEqual(['succeeded', 'succeeded']);
  });
});
