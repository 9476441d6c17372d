import path from 'node:path';
import { afterEach } from 'vitest';
import { useTempDirs } from '../../helpers/temp-dir';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../../src-main/store';

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
