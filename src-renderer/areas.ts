/** The areas of the app, in sidebar order. Each has a folder under features/. */
export const areas = [
  { id: 'transactions', label: 'Transactions', key: '1' },
  { id: 'expenses', label: 'Expenses', key: '2' },
  { id: 'suppliers', label: 'Suppliers', key: '3' },
  { id: 'files', label: 'Files', key: '4' },
  { id: 'sync', label: 'Sync', key: '5' },
  // Settings stays last in the sidebar; "Needs attention" came later, so its digit is 7.
  { id: 'attention', label: 'Needs attention', key: '7' },
  { id: 'settings', label: 'Settings', key: '6' },
] as const;

export type AreaId = (typeof areas)[number]['id'];
