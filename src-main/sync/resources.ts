import { bankAccountsSync } from './bank-accounts';
import { bankTransactionsSync } from './bank-transactions';
import { expensesSync } from './expenses';
import {
  departmentsSync,
  dimensionsSync,
  expenseAccountsSync,
  paymentTermsSync,
  taxRatesSync,
  teamsSync,
  usersSync,
} from './reference';
import { suppliersSync } from './suppliers';
import type { ResourceSync } from './types';

/**
 * Every resource, in pull order: reference data first (what the big lists point at), then
 * suppliers, expenses with their files, and the bank transactions last (the largest).
 */
export const allResources: readonly ResourceSync[] = [
  bankAccountsSync,
  expenseAccountsSync,
  taxRatesSync,
  usersSync,
  teamsSync,
  departmentsSync,
  paymentTermsSync,
  dimensionsSync,
  suppliersSync,
  expensesSync,
  bankTransactionsSync,
];
