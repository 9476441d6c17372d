import { lazy, Suspense } from 'react';
import type { AppInfo } from '../../src-shared/ipc';
import type { AreaId } from '../areas';
import type { ProfileSummary } from '../../src-shared/profiles';
import type { Opening } from './attention/groups';
import { TransactionsView } from './transactions/TransactionsView';

// Transactions is the first screen and ships in the main bundle; every other area is loaded
// when it is first opened, so the first rows wait for less script (docs/screens.md).
const ExpensesView = lazy(() => import('./expenses/ExpensesView').then((m) => ({ default: m.ExpensesView })));
const FilesView = lazy(() => import('./files/FilesView').then((m) => ({ default: m.FilesView })));
const SettingsView = lazy(() => import('./settings/SettingsView').then((m) => ({ default: m.SettingsView })));
const SuppliersView = lazy(() =>
  import('./suppliers/SuppliersView').then((m) => ({ default: m.SuppliersView })),
);
const DimensionsView = lazy(() =>
  import('./dimensions/DimensionsView').then((m) => ({ default: m.DimensionsView })),
);
const SyncView = lazy(() => import('./sync/SyncView').then((m) => ({ default: m.SyncView })));
const AttentionView = lazy(() =>
  import('./attention/AttentionView').then((m) => ({ default: m.AttentionView })),
);

const summaries: Record<Exclude<AreaId, 'settings'>, { title: string; text: string }> = {
  transactions: {
    title: 'Transactions',
    text: 'Bank transactions of the connected organisation, searchable offline.',
  },
  expenses: { title: 'Expenses', text: 'Expenses with their lines and receipts.' },
  suppliers: {
    title: 'Suppliers',
    text: 'Suppliers, editable offline; edits are sent when you are back online.',
  },
  dimensions: {
    title: 'Dimensions',
    text: 'Cost centers, cost carriers, projects and their items, editable offline.',
  },
  files: { title: 'Files', text: 'Receipts and invoices, kept offline and downloadable in bulk.' },
  sync: {
    title: 'Sync',
    text: 'When the cache was last brought up to date, and what is waiting to be sent.',
  },
  attention: {
    title: 'Needs attention',
    text: 'Unmatched transactions, expenses without a receipt and flagged items, counted.',
  },
};

export function AreaView({
  area,
  info,
  profile,
  opening = null,
  onOpen = () => undefined,
  onGo = () => undefined,
}: {
  area: AreaId;
  info: AppInfo | null;
  profile: ProfileSummary | null;
  /** A list opened from "Needs attention" (with its serial: opening it again starts afresh). */
  opening?: (Opening & { serial: number }) | null;
  onOpen?(opening: Opening): void;
  onGo?(area: AreaId): void;
}) {
  return (
    <Suspense
      fallback={
        <p className="muted" role="status">
          Loading…
        </p>
      }
    >
      <Area area={area} info={info} profile={profile} opening={opening} onOpen={onOpen} onGo={onGo} />
    </Suspense>
  );
}

function Area({
  area,
  info,
  profile,
  opening,
  onOpen,
  onGo,
}: {
  area: AreaId;
  info: AppInfo | null;
  profile: ProfileSummary | null;
  opening: (Opening & { serial: number }) | null;
  onOpen(opening: Opening): void;
  onGo(area: AreaId): void;
}) {
  if (area === 'settings') return <SettingsView info={info} onGo={onGo} />;
  if (profile) {
    // Keyed by organisation (and by the list opened): switching starts each screen afresh.
    const key = `${profile.id}:${opening?.serial ?? 0}`;
    if (area === 'sync') return <SyncView key={key} profile={profile} />;
    if (area === 'transactions')
      return (
        <TransactionsView
          key={key}
          profile={profile}
          initialFilters={opening?.area === 'transactions' ? opening.filters : undefined}
        />
      );
    if (area === 'expenses')
      return (
        <ExpensesView
          key={key}
          profile={profile}
          initialFilters={opening?.area === 'expenses' ? opening.filters : undefined}
          onOpen={onOpen}
        />
      );
    if (area === 'suppliers') return <SuppliersView key={key} profile={profile} />;
    if (area === 'dimensions') return <DimensionsView key={key} profile={profile} onOpen={onOpen} />;
    if (area === 'files') return <FilesView key={key} profile={profile} />;
    if (area === 'attention') return <AttentionView key={key} profile={profile} onOpen={onOpen} />;
  }
  const summary = summaries[area];
  return (
    <section className="area" data-area={area}>
      <h1 id="area-title" tabIndex={-1}>
        {summary.title}
      </h1>
      <p className="muted">{summary.text}</p>
      <p className="empty">No organisation is connected yet.</p>
    </section>
  );
}
