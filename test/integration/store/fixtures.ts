import path from 'node:path';
import { afterEach } from 'vitest';
import { useTempDirs } from '../../helpers/temp-dir';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../../src-main/store';
import { bankTransactions } from '../../../src-main/store/schema';
import { createRandom } from '../../../src-sandbox/data/random';

/** Opens caches in fresh temporary folders and closes them after each test. */
export function useCaches() {
  const tempDir = useTempDirs('satchel-store-');
  const open: CacheDb[] = [];
  afterEach(() => {
    for (const cache of open.splice(0)) cache.close();
  });
  return {
    tempDir,
    /** A cache file path in a new temporary folder. */
    file: (name = 'org.sqlite') => path.join(tempDir(), name),
    open(file: string, migrationsDir = defaultMigrationsDir()): CacheDb {
      const cache = openCache(file, { migrationsDir });
      open.push(cache);
      return cache;
    },
  };
}

let counter = 0;

/** A bank transaction row as sync would write it, with the raw record beside the columns. */
export function transactionRow(overrides: Record<string, unknown> = {}) {
  counter += 1;
  const id = `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`;
  const row = {
    id,
    bankAccountId: 'acc-1',
    transactionType: 'CARD',
    amountMinor: -1234,
    amountCurrency: 'EUR',
    bookingDate: '2026-03-01',
    valueDate: '2026-03-02',
    description: 'Card payment',
    counterparty: 'Deutsche Bahn',
    groupId: `grp-${counter}`,
    bankAccountNumber: 'DE89370400440532013000',
    matched: false,
    ...overrides,
  };
  return { ...row, raw: JSON.stringify({ ...row, amount: { amount: '-12.34', currency: 'EUR' } }) };
}

/**
 * Writes `rows` transactions with counterparties picked from `names` (from a fixed seed),
 * random group ids and account numbers; with `days`, booking dates picked from them, and
 * with `deletedShare`, that share of rows deleted upstream.
 */
export function writeRandomTransactions(
  cache: CacheDb,
  rows: number,
  options: { names: readonly string[]; seed: number; days?: readonly string[]; deletedShare?: number },
): void {
  const random = createRandom(options.seed, 1);
  for (let i = 0; i < rows; i++)
    cache.db
      .insert(bankTransactions)
      .values(
        transactionRow({
          counterparty: random.pick(options.names),
          ...(options.days ? { bookingDate: random.pick(options.days) } : {}),
          groupId: random.chance(0.2) ? null : `g-${random.int(0, 99)}`,
          bankAccountNumber: random.pick(['DE89370400440532013000', 'GB33BUKB20201555555555', null]),
          ...(options.deletedShare && random.chance(options.deletedShare)
            ? { deletedAt: '2026-04-01T00:00:00Z' }
            : {}),
        }),
      )
      .run();
}
