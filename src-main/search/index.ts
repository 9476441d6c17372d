/** Offline search over the organisation cache (docs/search-and-review.md). */
export { searchTransactions, transactionTotals, transactionsByRowId } from './transactions';
export { transactionWhere } from './transaction-where';
export { transactionPosition } from './transaction-position';
export { searchExpenses, expenseCount, expenseWhere } from './expenses';
export { searchSuppliers } from './suppliers';
export { listDimensions, listExpenseAccounts, searchDimensionItems } from './dimensions';
