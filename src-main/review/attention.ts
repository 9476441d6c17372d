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

export function needsAttention(cache: CacheDb): AttentionGroup[] {
  const transactions = (filters: TransactionFilters) => transactionTotals(cache, filters).count;
  const expenses = (filters: ExpenseFilters) => expenseCount(cache, filters);
  const unmatched: TransactionFilters = { matched: false, reviewed: false };
  const withoutFile: ExpenseFilters = { hasFile: false, reviewed: false };
  const flagged = { flagged: true };
  return [
    { group: 'unmatchedTransactions', count: transactions(unmatched), search: unmatched },
    { group: 'expensesWithoutFile', count: expenses(withoutFile), search: withoutFile },
    { group: 'flaggedTransactions', count: transactions(flagged), search: flagged },
    { group: 'flaggedExpenses', count: expenses(flagged), search: flagged },
  ];
}
