/** Read-only detail queries behind the detail panes: one record with what opening it shows. */
export { bankAccountSummaries, transactionDetail } from './transactions';
export { expenseDetail, expenseDetails } from './expenses';
export { supplierDetail, type SupplierDetail } from './suppliers';
