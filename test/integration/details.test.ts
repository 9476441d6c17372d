import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { connectedCore } from '../helpers/sync-fixture';
import { useTempDirs } from '../helpers/temp-dir';

// The detail commands behind the review screens' panes, through the real handler table over a
// cache filled by a real sync of the sandbox.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('detail commands', () => {
  it('opens a transaction with fees, group, account and the linked expense with lines and files', async () => {
    const setup = await connectedCore(tempDir(), { transactions: 800 });
    cleanups.push(setup.close);
    const handlers = createHandlers(setup.core);
    const profileId = setup.profile.id;
    expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({
      ok: true,
      value: { outcome: 'succeeded' },
    });
    const { sqlite } = setup.core.cacheOf(profileId);

    // A card payment documented by an expense that has a file.
    const linked = sqlite
      .prepare(
        `SELECT e.id AS expenseId, e.bank_transaction_id AS transactionId
         FROM expenses e JOIN bank_transactions t ON t.id = e.bank_transaction_id
         WHERE EXISTS (SELECT 1 FROM expense_files f WHERE f.expense_id = e.id) LIMIT 1`,
      )
      .get() as { expenseId: string; transactionId: string } | undefined;
    if (!linked) throw new Error('the demo data has no card expense with a file');
    const opened = await dispatch(handlers, 'transactions.get', { profileId, id: linked.transactionId });
    if (!opened.ok) throw new Error(opened.error.message);
    const detail = opened.value as {
      transaction: { id: string; bankAccountId: string };
      account: { id: string } | null;
      expenses: Array<{ expense: { id: string }; lines: unknown[]; files: Array<{ id: string }> }>;
    };
    expect(detail.transaction.id).toBe(linked.transactionId);
    expect(detail.account?.id).toBe(detail.transaction.bankAccountId);
    const [expense] = detail.expenses;
    expect(expense?.expense.id).toBe(linked.expenseId);
    const lineCount = sqlite.prepare('SELECT count(*) FROM expense_lines WHERE expense_id = ?').pluck();
    expect(expense?.lines).toHaveLength(lineCount.get(linked.expenseId) as number);
    expect(expense?.files.length).toBeGreaterThan(0);

    // A transaction with fees, in a group with others: fees in API order, the rest of its group.
    const withFees = sqlite
      .prepare(
        `SELECT t.id, t.group_id AS groupId FROM bank_transactions t
         WHERE EXISTS (SELECT 1 FROM bank_transaction_fees f WHERE f.transaction_id = t.id)
           AND (SELECT count(*) FROM bank_transactions g WHERE g.group_id = t.group_id) > 1 LIMIT 1`,
      )
      .get() as { id: string; groupId: string } | undefined;
    if (withFees) {
      const result = await dispatch(handlers, 'transactions.get', { profileId, id: withFees.id });
      if (!result.ok) throw new Error(result.error.message);
      const value = result.value as { fees: Array<{ feeType: string }>; group: Array<{ groupId: string }> };
      const fees = sqlite
        .prepare('SELECT fee_type FROM bank_transaction_fees WHERE transaction_id = ? ORDER BY position')
        .pluck()
        .all(withFees.id);
      expect(value.fees.map((fee) => fee.feeType)).toEqual(fees);
      expect(value.group.length).toBeGreaterThan(0);
      expect(value.group.every((row) => row.groupId === withFees.groupId)).toBe(true);
    }

    // Review marks show in the detail as in the list.
    await dispatch(handlers, 'review.apply', {
      profileId,
      target: { by: 'ids', kind: 'transaction', ids: [linked.transactionId] },
      change: { action: 'flag', reason: 'Receipt unreadable' },
    });
    const again = await dispatch(handlers, 'transactions.get', { profileId, id: linked.transactionId });
    expect(again).toMatchObject({
      ok: true,
      value: { transaction: { review: { flagged: true, flagReason: 'Receipt unreadable' } } },
    });

    // The expense names its transaction as the pane shows it: date, counterparty, amount.
    const transactionRow = sqlite
      .prepare(
        `SELECT booking_date AS bookingDate, counterparty, amount_minor AS minor, amount_currency AS currency
         FROM bank_transactions WHERE id = ?`,
      )
      .get(linked.transactionId) as {
      bookingDate: string;
      counterparty: string | null;
      minor: number;
      currency: string;
    };
    const expenseResult = await dispatch(handlers, 'expenses.get', { profileId, id: linked.expenseId });
    expect(expenseResult).toEqual({
      ok: true,
      value: expect.objectContaining({
        expense: expect.objectContaining({ id: linked.expenseId }),
        bankTransactionId: linked.transactionId,
        bankTransaction: {
          id: linked.transactionId,
          bookingDate: transactionRow.bookingDate,
          counterparty: transactionRow.counterparty,
          amount: { minor: transactionRow.minor, currency: transactionRow.currency },
          deletedAt: null,
        },
      }),
    });
    // A link in another case than the transaction's id names it all the same, as a search by id finds it.
    sqlite
      .prepare(`UPDATE expenses SET bank_transaction_id = upper(bank_transaction_id) WHERE id = ?`)
      .run(linked.expenseId);
    expect(await dispatch(handlers, 'expenses.get', { profileId, id: linked.expenseId })).toMatchObject({
      ok: true,
      value: {
        bankTransactionId: linked.transactionId.toUpperCase(),
        bankTransaction: { id: linked.transactionId, counterparty: transactionRow.counterparty },
      },
    });
    // Deleted upstream, it is still named (and said to be deleted); not cached, only its id is known.
    sqlite
      .prepare(`UPDATE bank_transactions SET deleted_at = '2026-11-20T10:00:00.000Z' WHERE id = ?`)
      .run(linked.transactionId);
    expect(await dispatch(handlers, 'expenses.get', { profileId, id: linked.expenseId })).toMatchObject({
      ok: true,
      value: { bankTransaction: { id: linked.transactionId, deletedAt: '2026-11-20T10:00:00.000Z' } },
    });
    sqlite
      .prepare(`UPDATE expenses SET bank_transaction_id = 'not-cached' WHERE id = ?`)
      .run(linked.expenseId);
    expect(await dispatch(handlers, 'expenses.get', { profileId, id: linked.expenseId })).toMatchObject({
      ok: true,
      value: { bankTransactionId: 'not-cached', bankTransaction: null },
    });
    sqlite.prepare(`UPDATE expenses SET bank_transaction_id = NULL WHERE id = ?`).run(linked.expenseId);
    expect(await dispatch(handlers, 'expenses.get', { profileId, id: linked.expenseId })).toMatchObject({
      ok: true,
      value: { bankTransactionId: null, bankTransaction: null },
    });

    const accounts = await dispatch(handlers, 'bankAccounts.list', { profileId });
    const accountCount = sqlite.prepare('SELECT count(*) FROM bank_accounts').pluck().get() as number;
    expect(accounts).toMatchObject({ ok: true });
    if (accounts.ok) expect((accounts.value as { accounts: unknown[] }).accounts).toHaveLength(accountCount);

    expect(await dispatch(handlers, 'transactions.get', { profileId, id: 'no-such-id' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await dispatch(handlers, 'expenses.get', { profileId, id: 'no-such-id' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });
});
