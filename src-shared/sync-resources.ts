/**
 * What each resource the sync pulls (`allResources` in src-main/sync/resources.ts) is called on
 * screen — the Sync screen, the status bar; a unit test holds every one of them to a name here.
 */
export const resourceLabels: Record<string, string> = {
  bankAccounts: 'Bank accounts',
  expenseAccounts: 'Expense accounts',
  taxRates: 'Tax rates',
  users: 'Users',
  teams: 'Teams',
  departments: 'Departments',
  paymentTerms: 'Payment terms',
  dimensions: 'Dimensions',
  suppliers: 'Suppliers',
  expenses: 'Expenses',
  bankTransactions: 'Bank transactions',
};

/** A resource as a heading or a table names it: "Bank accounts". */
export function resourceLabel(resource: string): string {
  return resourceLabels[resource] ?? resource;
}

/** A resource inside a sentence: "Syncing bank accounts". */
export function resourceNoun(resource: string): string {
  return resourceLabels[resource]?.toLowerCase() ?? resource;
}
