import { afterEach, describe, expect, it } from 'vitest';
import type { SyncSummaryShape } from '../../../src-shared/ipc';
import { readApi, readCache, sortById } from '../../helpers/api-snapshot';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

type Setup = Awaited<ReturnType<typeof connectedCore>>;

/** A day as `YYYY-MM-DD`, `days` from today (UTC). */
function daysFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * A sandbox whose data ends today: the trailing window every later sync reads again then holds
 * its latest transactions, whatever day the test runs on.
 */
function connectedToday(dir: string) {
  return connectedCore(dir, { endDate: daysFromToday(0) });
}

async function expectExact(setup: Setup) {
  const api = await readApi(setup.sandbox.url, setup.sandbox.clientId, setup.sandbox.clientSecret);
  const cache = readCache(setup.core.cacheOf(setup.profile.id));
  for (const [resource, records] of Object.entries(api))
    expect(cache[resource], resource).toEqual(sortById(records));
}

/** Transactions of the trailing window, newest first, straight from the API. */
async function recentTransactions(setup: Setup) {
  const api = await readApi(setup.sandbox.url, setup.sandbox.clientId, setup.sandbox.clientSecret);
  return (
    api.bankTransactions as Array<{
      id: string;
      bookingDate: string;
      matched: boolean;
      bankAccountId: string;
    }>
  )
    .filter((t) => t.bookingDate >= daysFromToday(-30))
    .sort((a, b) => (a.bookingDate < b.bookingDate ? 1 : -1));
}

/** Each cached expense's bank transaction (the column), by expense id. */
function links(setup: Setup): Map<string, string | null> {
  const rows = setup.core
    .cacheOf(setup.profile.id)
    .sqlite.prepare('SELECT id, bank_transaction_id AS link FROM expenses')
    .all() as Array<{ id: string; link: string | null }>;
  return new Map(rows.map((row) => [row.id, row.link]));
}

/** The same from the sandbox's own records. */
function apiLinks(setup: Setup): Map<string, string | null> {
  return new Map(setup.sandbox.state.expenses.map((e) => [e.id, e.bankTransactionId ?? null]));
}

describe('later syncs', () => {
  it('bring new, changed and deleted transactions and supplier and expense edits, and nothing else', async () => {
    const setup = await connectedToday(tempDir());
    cleanups.push(setup.close);
    const control = setup.sandbox.control;
    if (!control) throw new Error('the sandbox was started without its control surface');
    await setup.core.sync.sync(setup.profile.id);

    const [flip, gone, account] = await recentTransactions(setup);
    if (!flip || !gone || !account) throw new Error('the demo data has no recent transactions');
    const added = control.addTransaction({
      bankAccountId: account.bankAccountId,
      amount: '-42.50',
      bookingDate: daysFromToday(-1),
      counterparty: 'Late Night Bakery',
      paymentFee: '-0.50',
    });
    control.setMatched(flip.id, !flip.matched);
    control.deleteTransaction(gone.id);
    const supplier = setup.sandbox.state.suppliers[3];
    const expense = setup.sandbox.state.expenses[5];
    const [unlinked, relinked] = setup.sandbox.state.expenses.filter(
      (e) => e.bankTransactionId && e.id !== expense?.id,
    );
    if (!supplier || !expense || !unlinked || !relinked)
      throw new Error('the demo data has too few suppliers or expenses');
    expect(links(setup)).toEqual(apiLinks(setup));
    control.updateSupplier(supplier.id, { name: `${supplier.name} (renamed)` });
    control.updateExpense(expense.id, { description: 'Corrected description' });
    // A receipt moved to another transaction, and one taken off its transaction.
    control.updateExpense(relinked.id, { bankTransactionId: added.id });
    control.updateExpense(unlinked.id, { bankTransactionId: null });

    const summary: SyncSummaryShape = await setup.core.sync.sync(setup.profile.id);
    expect(summary.outcome).toBe('succeeded');
    await expectExact(setup);

    const sqlite = setup.core.cacheOf(setup.profile.id).sqlite;
    const row = (id: string) =>
      sqlite.prepare('SELECT matched, deleted_at FROM bank_transactions WHERE id = ?').get(id) as
        { matched: number; deleted_at: string | null } | undefined;
    expect(row(added.id)).toMatchObject({ deleted_at: null });
    expect(row(flip.id)?.matched).toBe(flip.matched ? 0 : 1);
    expect(row(gone.id)?.deleted_at).not.toBeNull();
    // Each expense's bank transaction, as its own column, follows the API.
    expect(links(setup)).toEqual(apiLinks(setup));
    expect(links(setup).get(relinked.id)).toBe(added.id);
    expect(links(setup).get(unlinked.id)).toBeNull();
    // Incremental: only what changed (plus the ten-minute overlap) comes again.
    expect(summary.counts['suppliers']).toBeLessThanOrEqual(5);
    expect(summary.counts['expenses']).toBeLessThanOrEqual(5);
  });

  it('repair reads everything again and ends equal', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    await setup.core.sync.sync(setup.profile.id);
    const repair = await setup.core.sync.sync(setup.profile.id, { full: true });
    expect(repair.outcome).toBe('succeeded');
    expect(repair.counts['suppliers']).toBe(setup.sandbox.state.suppliers.length);
    await expectExact(setup);
  });
});
