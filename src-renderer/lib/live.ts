import type { QueryClient } from '@tanstack/react-query';
import type { CommandName } from '../../src-shared/ipc';
import { refreshCommands } from './refresh';

/** What each event makes stale. The cache changes only through sync, pushes and our own commands. */
const CHANGED_BY_SYNC: CommandName[] = [
  'transactions.search',
  'transactions.get',
  'expenses.search',
  'expenses.get',
  'suppliers.search',
  'dimensions.list',
  'dimensionItems.search',
  'expenseAccounts.list',
  'bankAccounts.list',
  'edits.list',
  'review.attention',
  'sync.history',
  // A sync that succeeded starts a keep-offline fill: the Files area follows it from its start.
  'files.offlineScope.get',
];

/** Which files are on this computer: the detail panes' receipts and the Files area's usage. */
const CHANGED_BY_FILL: CommandName[] = ['transactions.get', 'expenses.get', 'files.offlineScope.get'];

/** Keeps TanStack Query's data in step with the core's events; returns the unsubscribe. */
export function invalidateOnEvents(client: QueryClient): () => void {
  const seenJobs = new Set<string>();
  const invalidate = (names: CommandName[]) => void refreshCommands(client, names);
  const stops = [
    window.satchel.on('sync.finished', () => invalidate(CHANGED_BY_SYNC)),
    // A copy SQLite found damaged: the window shows why in place of the organisation's areas.
    window.satchel.on('cache.damaged', () => invalidate(['profiles.cacheStatus'])),
    // A copy found read-only at a write: the banner says so, and the writing controls go off.
    window.satchel.on('cache.readOnly', () => invalidate(['profiles.cacheStatus'])),
    // Online again: the keep-offline usage may say the last fill stopped for want of a network.
    window.satchel.on('app.online', (state) => {
      invalidate(['edits.list', 'files.offlineScope.get']);
      // A receipt on screen that could not be fetched for want of a network is fetched now.
      if (state.online)
        void client.refetchQueries({
          queryKey: ['files.fetch'],
          type: 'active',
          predicate: (query) => query.state.status === 'error',
        });
    }),
    // Each edit a push settles (whoever started it) shows at once: its list, its record, the count.
    window.satchel.on('edits.progress', () => invalidate(CHANGED_BY_EDIT)),
    // The keep-offline fill a sync starts ends after that sync: the panes' "Kept offline" /
    // "Not downloaded yet" follow the files it puts in place, and what its end evicted.
    window.satchel.on('files.offline', () => invalidate(CHANGED_BY_FILL)),
    // A download started, stopped or ended anywhere (the bulk bar, a resume after reconnect)
    // makes the Files area's list stale even while that area is not shown.
    window.satchel.on('downloads.progress', (progress) => {
      if (progress.status !== 'running' || !seenJobs.has(progress.jobId)) invalidate(['downloads.status']);
      seenJobs.add(progress.jobId);
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** Queries a review change makes stale. */
export const CHANGED_BY_REVIEW: CommandName[] = [
  'transactions.search',
  'transactions.get',
  'expenses.search',
  'expenses.get',
  'review.attention',
];

/**
 * Queries an offline edit (or its push) makes stale: every view that names a supplier, a
 * dimension or an item — the lists, and the expense and transaction panes, whose expenses name
 * their supplier and their lines' dimensions and items.
 */
export const CHANGED_BY_EDIT: CommandName[] = [
  'suppliers.search',
  'dimensions.list',
  'dimensionItems.search',
  'edits.list',
  'expenses.search',
  'expenses.get',
  'transactions.get',
];
