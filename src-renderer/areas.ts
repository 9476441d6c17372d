/** The areas of the app, in sidebar order. Each has a folder under features/. */
export const areas = [
  { id: 'transactions', label: 'Transactions', key: '1' },
  { id: 'expenses', label: 'Expenses', key: '2' },
  { id: 'suppliers', label: 'Suppliers', key: '3' },
  { id: 'dimensions', label: 'Dimensions', key: '8' },
  { id: 'files', label: 'Files', key: '4' },
  { id: 'sync', label: 'Sync', key: '5' },
  // Settings stays last in the sidebar. Areas added later keep the digits they were given
  // (Needs attention 7, Dimensions 8), so no one's learnt shortcut changes.
  { id: 'attention', label: 'Needs attention', key: '7' },
  { id: 'settings', label: 'Settings', key: '6' },
] as const;

export type AreaId = (typeof areas)[number]['id'];
