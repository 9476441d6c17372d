import type { ExpenseFilters, TransactionFilters } from '../../src-shared/search';
import { expenseCount } from '../search/expenses';
import { transactionTotals } from '../search/transactions';
import type { CacheDb } from '../store';

/**
 * "Needs attention": the work left in a review, as counts with the search that lists each
 * group, so the screen opens them with the ordinary search (paging, sorting, bulk marking):
 *
 * - unmatched transactions not yet marked reviewed,
 * - expenses without a receipt or invoice, not yet marked reviewed,
 * - flagged transactions and flagged expenses (until unflagged, reviewed or not).
 *
 * Marking an item reviewed is how an accountant says "seen, nothing to do", so it leaves the
 * first two groups; a flag is an open question and stays until it is taken off.
 */

export type AttentionGroup =
  | { group: 'unmatchedTransactions' | 'flaggedTransactions'; count: number; search: TransactionFilters }
  | { group: 'expensesWithoutFile' | 'flaggedExpenses'; count: number; search: ExpenseFilters };

const UNMATCHED: TransactionFilters = { matched: false, reviewed: false };
const WITHOUT_FILE: ExpenseFilters = { hasFile: false, reviewed: false };
const FLAGGED = { flagged: true };

export function needsAttention(cache: CacheDb): AttentionGroup[] {
  const transactions = (filters: TransactionFilters) => transactionTotals(cache, filters).count;
  const expenses = (filters: ExpenseFilters) => expenseCount(cache, filters);
  return attentionGroups([
    transactions(UNMATCHED),
    expenses(WITHOUT_FILE),
    transactions(FLAGGED),
    expenses(FLAGGED),
  ]);
}

/**
 * The same groups counted by `count`: the app gives the organisation's totals thread
 * (src-main/search/background-totals.ts), since on a million transactions the unmatched,
 * unreviewed ones take over a second to count, and many expenses take a while too.
 */
export async function countAttention(count: {
  transactions: (filters: TransactionFilters) => Promise<number>;
  expenses: (filters: ExpenseFilters) => Promise<number>;
}): Promise<AttentionGroup[]> {
  return attentionGroups(
    await Promise.all([
      count.transactions(UNMATCHED),
      count.expenses(WITHOUT_FILE),
      count.transactions(FLAGGED),
      count.expenses(FLAGGED),
    ]),
  );
}

/** The groups, given their counts in the groups' order. */
function attentionGroups([unmatched, withoutFile, flaggedTransactions, flaggedExpenses]: readonly [
  number,
  number,
  number,
  number,
]): AttentionGroup[] {
  return [
    { group: 'unmatchedTransactions', count: unmatched, search: UNMATCHED },
    { group: 'expensesWithoutFile', count: withoutFile, search: WITHOUT_FILE },
    { group: 'flaggedTransactions', count: flaggedTransactions, search: FLAGGED },
    { group: 'flaggedExpenses', count: flaggedExpenses, search: FLAGGED },
  ];
}
