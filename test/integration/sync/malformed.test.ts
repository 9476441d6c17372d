import { afterEach, describe, expect, it } from 'vitest';
import { readApi, readCache, sortById } from '../../helpers/api-snapshot';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// A malformed record is reported by id and field; the rest of its page is kept. The sandbox
// serves the bad records through its control surface (real HTTP, real cache).
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('malformed records', () => {
  it('skips and reports each bad record by id and field, and stores the rest of its page', async () => {
    // Three syncs and two reads of the whole API come close to 180 reads a minute, and the
    // empty windows up to today add more each quarter: a higher limit keeps the rate limit
    // (tested elsewhere) out of this test on any date.
    const setup = await connectedCore(tempDir(), { readLimit: 1000 });
    cleanups.push(setup.close);
    const { sandbox } = setup;
    const control = sandbox.control!;

    // A transaction from the middle of the history (not the first one, which the probe reads)
    // with an amount its currency cannot hold, and an expense with the same fault.
    const transactions = sortById(
      (await readApi(sandbox.url, sandbox.clientId, sandbox.clientSecret)).bankTransactions,
    ) as Array<{ id: string; amount: { currency: string } }>;
    const badTransaction = transactions[Math.floor(transactions.length / 2)]!;
    const badExpense = sandbox.state.expenses[Math.floor(sandbox.state.expenses.length / 2)]!;
    control.corruptRecord({
      resource: 'bankTransactions',
      id: badTransaction.id,
      patch: { amount: { amount: '12.345', currency: badTransaction.amount.currency } },
    });
    control.corruptRecord({
      resource: 'expenses',
      id: badExpense.id,
      patch: { amount: { amount: '12.345', currency: 'EUR' } },
    });

    const summary = await setup.core.sync.sync(setup.profile.id);
    expect(summary.outcome).toBe('partial');
    const expected = [
      { resource: 'bankTransactions', recordId: badTransaction.id, field: 'amount', code: 'BAD_RECORD' },
      { resource: 'expenses', recordId: badExpense.id, field: 'amount', code: 'BAD_RECORD' },
    ];
    expect(summary.errors.map(({ message: _message, ...error }) => error)).toEqual(
      expect.arrayContaining(expected),
    );
    expect(summary.errors).toHaveLength(2);
    for (const error of summary.errors) expect(error.message).toMatch(/cannot read/);

    // Everything else is stored exactly as the API serves it.
    const bad = new Set([badTransaction.id, badExpense.id]);
    const api = await readApi(sandbox.url, sandbox.clientId, sandbox.clientSecret);
    const cache = readCache(setup.core.cacheOf(setup.profile.id));
    for (const [resource, records] of Object.entries(api)) {
      const kept = records.filter(
        (record) => !bad.has(record.id) && !bad.has((record as { expenseId?: string }).expenseId ?? ''),
      );
      expect(cache[resource], resource).toEqual(sortById(kept));
    }
    expect(cache['bankTransactions']).toHaveLength(api.bankTransactions.length - 1);
    expect(cache['expenses']).toHaveLength(api.expenses.length - 1);

    // The run history keeps the errors for the sync screen.
    const [run] = setup.core.sync.history(setup.profile.id, 1);
    expect(run?.outcome).toBe('partial');
    expect(JSON.parse(run?.errors ?? '[]')).toEqual(summary.errors);

    // Once the API serves the records intact they arrive: the expense with its next change
    // (update_time__gte), the old transaction only by a repair (it lies before the trailing
    // window a normal sync re-reads).
    control.clearCorruptions();
    control.updateExpense(badExpense.id, { description: 'Served intact again' });
    const again = await setup.core.sync.sync(setup.profile.id);
    expect(again.errors).toEqual([]);
    expect(readCache(setup.core.cacheOf(setup.profile.id))['expenses']).toHaveLength(api.expenses.length);
    const repair = await setup.core.sync.sync(setup.profile.id, { full: true });
    expect(repair.outcome).toBe('succeeded');
    const cached = setup.core
      .cacheOf(setup.profile.id)
      .sqlite.prepare('SELECT count(*) AS n FROM bank_transactions WHERE id = ?')
      .get(badTransaction.id) as { n: number };
    expect(cached.n).toBe(1);
  });

  it('stores a status or type the app does not know yet, as it came', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    const { sandbox } = setup;
    const control = sandbox.control!;
    const transaction = sandbox.state.expenses.find((e) => e.bankTransactionId)!.bankTransactionId!;
    const expense = sandbox.state.expenses[3]!;
    const supplier = sandbox.state.suppliers[4]!;
    const user = sandbox.state.reference.users[0]!;
    // Values a newer server may add: the spec does not show the full sets.
    control.corruptRecord({
      resource: 'bankTransactions',
      id: transaction,
      patch: { transactionType: 'CASHBACK' },
    });
    control.corruptRecord({
      resource: 'expenses',
      id: expense.id,
      patch: { status: 'ARCHIVED', subType: 'DEPOSIT' },
    });
    control.corruptRecord({ resource: 'suppliers', id: supplier.id, patch: { status: 'MERGED' } });
    control.corruptRecord({ resource: 'users', id: user.id, patch: { roles: ['AUDITOR'] } });

    const summary = await setup.core.sync.sync(setup.profile.id);
    expect(summary.errors).toEqual([]);
    expect(summary.outcome).toBe('succeeded');
    const sqlite = setup.core.cacheOf(setup.profile.id).sqlite;
    const one = (sql: string, id: string) => sqlite.prepare(sql).get(id);
    expect(one('SELECT transaction_type AS t FROM bank_transactions WHERE id = ?', transaction)).toEqual({
      t: 'CASHBACK',
    });
    expect(one('SELECT status FROM expenses WHERE id = ?', expense.id)).toEqual({ status: 'ARCHIVED' });
    expect(one('SELECT status FROM suppliers WHERE id = ?', supplier.id)).toEqual({ status: 'MERGED' });
    expect(one("SELECT json_extract(raw, '$.roles') AS roles FROM users WHERE id = ?", user.id)).toEqual({
      roles: '["AUDITOR"]',
    });
  });
});
