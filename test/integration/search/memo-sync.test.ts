import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { applyReview } from '../../../src-main/review';
import { memoized } from '../../../src-main/search/memo';
import { openCache, openCacheReader } from '../../../src-main/store/database';
import { defaultMigrationsDir } from '../../../src-main/store/migrations';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// The remembered totals (search/memo.ts) last until rows change: a sync that changes nothing
// keeps them (on a million transactions they take a second to count again), one that does
// drops them, on the app's connection and on the totals thread's alike.

const tempDir = useTempDirs();
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A day as `YYYY-MM-DD`, `days` from today (UTC): the sandbox's data ends today. */
const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A memoised value that counts how often it was computed, on one connection. */
function counted(sqlite: Database.Database) {
  let computed = 0;
  return {
    read: () => memoized(sqlite, 'test-counted', 'all', () => ++computed),
    get computed() {
      return computed;
    },
  };
}

async function setup() {
  const fixture = await connectedCore(tempDir(), {
    endDate: daysFromToday(0),
    transactions: 300,
    readLimit: 100_000,
  });
  cleanups.push(fixture.close);
  const { core, profile } = fixture;
  expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
  const cache = core.cacheOf(profile.id);
  // A second connection, read-only, as the totals thread's is.
  const reader = openCacheReader(cache.file);
  cleanups.push(() => {
    reader.close();
  });
  const app = counted(cache.sqlite);
  const thread = counted(reader);
  app.read();
  thread.read();
  return { ...fixture, cache, app, thread };
}

describe('remembered totals across a sync', () => {
  it('keeps them after a sync that changed nothing', async () => {
    const { core, profile, app, thread } = await setup();
    const before = await core.transactionTotals(profile.id, { matched: true });
    const summary = await core.sync.sync(profile.id);
    expect(summary.outcome).toBe('succeeded');
    // The trailing window was read again, written again, and found as it was.
    expect(summary.counts['bankTransactions']).toBeGreaterThan(0);
    app.read();
    thread.read();
    expect([app.computed, thread.computed]).toEqual([1, 1]);
    expect(await core.transactionTotals(profile.id, { matched: true })).toEqual(before);
  });

  it('drops them after a sync that changed a row, and after a review mark', async () => {
    const { core, profile, sandbox, cache, app, thread } = await setup();
    const before = await core.transactionTotals(profile.id, { matched: true });
    const recent = cache.sqlite
      .prepare('SELECT id FROM bank_transactions WHERE matched = 0 ORDER BY booking_date DESC LIMIT 1')
      .pluck()
      .get() as string;
    sandbox.control!.setMatched(recent, true);
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    app.read();
    thread.read();
    expect([app.computed, thread.computed]).toEqual([2, 2]);
    const after = await core.transactionTotals(profile.id, { matched: true });
    expect(after.count).toBe(before.count + 1);

    applyReview(cache, { by: 'ids', kind: 'transaction', ids: [recent] }, { action: 'setReviewed' });
    app.read();
    thread.read();
    expect([app.computed, thread.computed]).toEqual([3, 3]);
  });
});

describe('the content generation', () => {
  // The tables the remembered results read (search/*.ts), each counted by three triggers of
  // migration 0018; a column added later must be in its update trigger too.
  const countedTables = [
    'bank_accounts',
    'bank_transactions',
    'expenses',
    'expense_files',
    'expense_accounts',
    'suppliers',
    'dimensions',
    'dimension_items',
    'review_marks',
    'review_tags',
  ];

  it('counts a change of every column but synced_at of each table the searches read', () => {
    const cache = openCache(path.join(tempDir(), 'cache.sqlite'), { migrationsDir: defaultMigrationsDir() });
    cleanups.push(() => cache.close());
    const triggers = new Map(
      (
        cache.sqlite.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`).all() as Array<{
          name: string;
          sql: string;
        }>
      ).map((row) => [row.name, row.sql]),
    );
    for (const table of countedTables) {
      expect(triggers.has(`${table}_generation_insert`), table).toBe(true);
      expect(triggers.has(`${table}_generation_delete`), table).toBe(true);
      const update = triggers.get(`${table}_generation_update`) ?? '';
      const columns = (cache.sqlite.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>)
        .map((column) => column.name)
        .filter((name) => name !== 'synced_at');
      for (const column of columns)
        expect(update, `${table}.${column}`).toContain(`OLD.\`${column}\` IS NOT`);
      expect(update, table).not.toContain('synced_at');
    }
  });
});
