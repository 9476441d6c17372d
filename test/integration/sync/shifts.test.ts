import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../../src-main/store';
import { runSync } from '../../../src-main/sync/engine';
import { allResources } from '../../../src-main/sync/resources';
import { bankTransactionsSync } from '../../../src-main/sync/bank-transactions';
import { suppliersSync } from '../../../src-main/sync/suppliers';
import { startSandbox, type SandboxOptions } from '../../../src-sandbox';
import { readApi } from '../../helpers/api-snapshot';
import { sandboxClient } from '../../helpers/sandbox-sync';
import { useTempDirs } from '../../helpers/temp-dir';

// Offset pages against a list that changes while it is read, and records the client cannot
// parse in a read that marks what it did not see as deleted.

const tempDir = useTempDirs();
const stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function setup(options: Partial<SandboxOptions> = {}) {
  // The data ends today, so the trailing window every later sync reads again is full of it.
  const endDate = new Date().toISOString().slice(0, 10);
  const sandbox = await startSandbox({
    port: 0,
    seed: 7,
    transactions: 600,
    control: true,
    endDate,
    ...options,
  });
  stops.push(() => sandbox.stop());
  const cache = openCache(path.join(tempDir(), 'cache.sqlite'), { migrationsDir: defaultMigrationsDir() });
  stops.push(() => cache.close());
  const client = sandboxClient(sandbox, { random: () => 0 });
  const control = sandbox.control;
  if (!control) throw new Error('the sandbox was started without its control surface');
  return { sandbox, cache, client, control };
}

const ids = (cache: CacheDb, sql: string, ...params: unknown[]) =>
  new Set((cache.sqlite.prepare(sql).all(...params) as Array<{ id: string }>).map((row) => row.id));

const deletedAt = (cache: CacheDb, table: string, id: string) =>
  (
    cache.sqlite.prepare(`SELECT deleted_at FROM ${table} WHERE id = ?`).get(id) as {
      deleted_at: string | null;
    }
  ).deleted_at;

/** The booking dates of the window the sync is reading, from its cursor (the trailing window moves with today). */
function windowBeingRead(cache: CacheDb): [string, string] {
  const cursor = cache.sqlite
    .prepare(
      `SELECT json_extract(cursor, '$.from') AS "from", json_extract(cursor, '$.to') AS "to"
              FROM sync_checkpoints WHERE resource = 'bankTransactions'`,
    )
    .get() as { from: string | null; to: string | null };
  if (!cursor.from || !cursor.to) throw new Error('no window is being read');
  return [cursor.from, cursor.to];
}

describe('a list that changes while it is paged', () => {
  it('misses no supplier when one already read is edited before the next page', async () => {
    const { sandbox, cache, client, control } = await setup();
    let edited: string | null = null;
    const first = await runSync({
      cache,
      client,
      resources: [suppliersSync],
      onProgress: (progress) => {
        if (edited || progress.resource !== 'suppliers' || progress.records < 100) return;
        // A colleague edits a supplier of page 1: it moves to the end of the list, and every
        // later supplier one place up.
        const [id] = ids(cache, 'SELECT id FROM suppliers ORDER BY update_time, id LIMIT 1');
        edited = id ?? null;
        control.updateSupplier(edited!, { name: 'Edited by a colleague' });
      },
    });
    expect(first.outcome).toBe('succeeded');
    expect(edited).not.toBeNull();
    const cached = ids(cache, 'SELECT id FROM suppliers');
    expect(sandbox.state.suppliers.filter((supplier) => !cached.has(supplier.id)).map((s) => s.id)).toEqual(
      [],
    );
    expect(cache.sqlite.prepare('SELECT name FROM suppliers WHERE id = ?').get(edited)).toEqual({
      name: 'Edited by a colleague',
    });
  });

  it('reads a window again when a transaction already read is removed upstream', async () => {
    const { cache, client, control } = await setup({ transactions: 5000 });
    expect((await runSync({ cache, client, resources: allResources })).outcome).toBe('succeeded');

    let gone: string | null = null;
    let shifted: string | null = null;
    const second = await runSync({
      cache,
      client,
      resources: [bankTransactionsSync],
      onProgress: (progress) => {
        if (gone || progress.resource !== 'bankTransactions' || progress.records < 100) return;
        // The trailing window in the order the search serves it: the first row is on the page
        // already read; removing it moves the first row of page 2 onto page 1.
        const window = [
          ...ids(
            cache,
            `SELECT id FROM bank_transactions
             WHERE booking_date BETWEEN ? AND ? AND deleted_at IS NULL ORDER BY booking_date, id`,
            ...windowBeingRead(cache),
          ),
        ];
        expect(window.length).toBeGreaterThan(150);
        gone = window[0]!;
        shifted = window[100]!;
        control.deleteTransaction(gone);
      },
    });
    expect(second.outcome).toBe('succeeded');
    expect(gone).not.toBeNull();
    expect({
      gone: deletedAt(cache, 'bank_transactions', gone!) !== null,
      shifted: deletedAt(cache, 'bank_transactions', shifted!),
    }).toEqual({
      gone: true,
      shifted: null,
    });
  });

  it('stores the whole history when a transaction is removed during the first sync', async () => {
    const { sandbox, cache, client, control } = await setup({ transactions: 5000, readLimit: 100_000 });
    let gone: string | null = null;
    const first = await runSync({
      cache,
      client,
      resources: allResources,
      onProgress: (progress) => {
        if (gone || progress.resource !== 'bankTransactions' || progress.records < 100) return;
        const [id] = ids(cache, 'SELECT id FROM bank_transactions ORDER BY booking_date, id LIMIT 1');
        gone = id ?? null;
        control.deleteTransaction(gone!); // a reversed card payment, say
      },
    });
    expect(first.outcome).toBe('succeeded');
    expect(gone).not.toBeNull();
    const api = await readApi(sandbox.url, sandbox.clientId, sandbox.clientSecret);
    const live = ids(cache, 'SELECT id FROM bank_transactions WHERE deleted_at IS NULL');
    const missing = (api.bankTransactions as Array<{ id: string; bookingDate: string }>)
      .filter((transaction) => !live.has(transaction.id))
      .map((transaction) => `${transaction.id} ${transaction.bookingDate}`);
    expect(missing).toEqual([]);
    expect(live.has(gone!)).toBe(false);
  }, 120_000);
});

describe('a record the client cannot read in a complete read', () => {
  it('is reported and keeps its last good version, not marked deleted', async () => {
    const { sandbox, cache, client, control } = await setup();
    expect((await runSync({ cache, client, resources: allResources })).outcome).toBe('succeeded');
    const [transaction] = ids(
      cache,
      // The latest: inside the trailing window every sync reads again, whatever today is.
      `SELECT id FROM bank_transactions ORDER BY booking_date DESC, id LIMIT 1`,
    );
    const account = sandbox.state.reference.wallets[0]!.id;
    const user = sandbox.state.reference.users[0]!.id;
    // A transaction type, an account and a user this client cannot read.
    control.corruptRecord({ resource: 'bankTransactions', id: transaction!, patch: { amount: '12.50' } });
    control.corruptRecord({ resource: 'bankAccounts', id: account, patch: { name: 42 } });
    control.corruptRecord({ resource: 'users', id: user, patch: { email: ['two', 'addresses'] } });

    const second = await runSync({ cache, client, resources: allResources });
    expect(second.outcome).toBe('partial');
    expect(second.errors.map((error) => [error.resource, error.recordId]).sort()).toEqual(
      [
        ['bankAccounts', account],
        ['bankTransactions', transaction],
        ['users', user],
      ].sort(),
    );
    expect(deletedAt(cache, 'bank_transactions', transaction!)).toBeNull();
    expect(deletedAt(cache, 'bank_accounts', account)).toBeNull();
    expect(deletedAt(cache, 'users', user)).toBeNull();
    // Readable again, it is simply stored.
    control.clearCorruptions();
    expect((await runSync({ cache, client, resources: allResources })).outcome).toBe('succeeded');
  });
});
