import type { AppInfo } from '../../src-shared/ipc';
import type { AreaId } from '../areas';
import type { ProfileSummary } from '../../src-shared/profiles';
import { ExpensesView } from './expenses/ExpensesView';
import { FilesView } from './files/FilesView';
import { SettingsView } from './settings/SettingsView';
import { SuppliersView } from './suppliers/SuppliersView';
import { SyncView } from './sync/SyncView';
import { TransactionsView } from './transactions/TransactionsView';

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
  files: { title: 'Files', text: 'Receipts and invoices, kept offline and downloadable in bulk.' },
  sync: {
    title: 'Sync',
    text: 'When the cache was last brought up to date, and what is waiting to be sent.',
  },
};

export function AreaView({
  area,
  info,
  profile,
  onGo = () => undefined,
}: {
  area: AreaId;
  info: AppInfo | null;
  profile: ProfileSummary | null;
  onGo?(area: AreaId): void;
}) {
  if (area === 'settings') return <SettingsView info={info} onGo={onGo} />;
  if (profile) {
    // Keyed by organisation: switching starts each screen afresh.
    if (area === 'sync') return <SyncView key={profile.id} profile={profile} />;
    if (area === 'transactions') return <TransactionsView key={profile.id} profile={profile} />;
    if (area === 'expenses') return <ExpensesView key={profile.id} profile={profile} />;
    if (area === 'suppliers') return <SuppliersView key={profile.id} profile={profile} />;
    if (area === 'files') return <FilesView key={profile.id} profile={profile} />;
  }
  const summary = summaries[area];
  return (
    <section className="area" data-area={area}>
      <h1 id="area-title">{summary.title}</h1>
      <p className="muted">{summary.text}</p>
      <p className="empty">No organisation is connected yet.</p>
    </section>
  );
}
