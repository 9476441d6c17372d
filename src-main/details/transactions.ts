import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { AppError } from '../../src-shared/errors';
import type { BankAccountSummary, ExpenseDetail, TransactionDetail } from '../../src-shared/details';
import type { TransactionRow } from '../../src-shared/search';
import { searchTransactions } from '../search';
import { bankAccounts, bankTransactionFees, bankTransactions, expenses, type CacheDb } from '../store';
import { expenseDetails } from './expenses';

const GROUP_LIMIT = 50;

/** The rows of these ids as the list shows them (review state included), deleted ones too. */
function rowsOf(cache: CacheDb, ids: string[]): TransactionRow[] {
  if (ids.length === 0) return [];
  return searchTransactions(cache, {
    filters: { ids, includeDeleted: true },
    pagination: { page: 1, pageSize: Math.min(ids.length, 500) },
    withTotals: false,
  }).rows;
}

export function bankAccountSummaries(cache: CacheDb): BankAccountSummary[] {
  return cache.db
    .select({
      id: bankAccounts.id,
      name: bankAccounts.name,
      currency: bankAccounts.currency,
      accountNumber: bankAccounts.accountNumber,
      status: bankAccounts.status,
    })
    .from(bankAccounts)
    .where(sql`${bankAccounts.deletedAt} IS NULL`)
    .orderBy(asc(bankAccounts.name), asc(bankAccounts.id))
    .all();
}

/**
 * One transaction with everything its detail pane shows. The expense link lives in the
 * expense (`expenses.bank_transaction_id`, indexed).
 */
export function transactionDetail(cache: CacheDb, id: string): TransactionDetail {
  const [transaction] = rowsOf(cache, [id]);
  if (!transaction) {
    throw new AppError('NOT_FOUND', `Transaction ${id} is not in the offline copy. Sync, then try again.`);
  }
  const { db } = cache;
  const account =
    db
      .select({
        id: bankAccounts.id,
        name: bankAccounts.name,
        currency: bankAccounts.currency,
        accountNumber: bankAccounts.accountNumber,
        status: bankAccounts.status,
      })
      .from(bankAccounts)
      .where(eq(bankAccounts.id, transaction.bankAccountId))
      .get() ?? null;
  const fees = db
    .select({
      feeType: bankTransactionFees.feeType,
      minor: bankTransactionFees.amountMinor,
      currency: bankTransactionFees.amountCurrency,
    })
    .from(bankTransactionFees)
    .where(eq(bankTransactionFees.transactionId, transaction.id))
    .orderBy(asc(bankTransactionFees.position))
    .all()
    .map((fee) => ({ feeType: fee.feeType, amount: { minor: fee.minor, currency: fee.currency } }));
  const groupIds = transaction.groupId
    ? db
        .select({ id: bankTransactions.id })
        .from(bankTransactions)
        .where(
          and(eq(bankTransactions.groupId, transaction.groupId), ne(bankTransactions.id, transaction.id)),
        )
        .orderBy(asc(bankTransactions.bookingDate), asc(bankTransactions.id))
        .limit(GROUP_LIMIT)
        .all()
        .map((row) => row.id)
    : [];
  const expenseIds = db
    .select({ id: expenses.id })
    .from(expenses)
    .where(eq(expenses.bankTransactionId, transaction.id))
    .orderBy(asc(expenses.id))
    .limit(10)
    .all()
    .map((row) => row.id);
  const linked: ExpenseDetail[] = expenseDetails(cache, expenseIds);
  return { transaction, account, fees, group: rowsOf(cache, groupIds), expenses: linked };
}
