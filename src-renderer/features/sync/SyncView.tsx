import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { ProfileSummary } from '../../../src-shared/profiles';
import { useLatestEvent } from '../../lib/events';
import { useCommand, useCommandMutation } from '../../lib/query';

const resourceLabels: Record<string, string> = {
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

const label = (resource: string) => resourceLabels[resource] ?? resource;
const time = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

export function SyncView({ profile }: { profile: ProfileSummary }) {
  const client = useQueryClient();
  const history = useCommand('sync.history', { profileId: profile.id, limit: 20 });
  const start = useCommandMutation('sync.start', ['sync.history']);
  const cancel = useCommandMutation('sync.cancel');
  const progress = useLatestEvent('sync.progress', (event) => event.profileId === profile.id);
  const finished = useLatestEvent('sync.finished', (event) => event.profileId === profile.id);

  useEffect(() => {
    if (finished) void client.invalidateQueries({ queryKey: ['sync.history'] });
  }, [finished, client]);

  const running = start.isPending;
  return (
    <section className="area" data-area="sync">
      <h1 id="area-title">Sync</h1>
      <p className="muted">
        {profile.name} · <span className="mono">{profile.baseUrl}</span>
      </p>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={running}
          onClick={() => start.mutate({ profileId: profile.id, full: false })}
        >
          Sync now
        </button>
        <button
          type="button"
          disabled={running}
          onClick={() => start.mutate({ profileId: profile.id, full: true })}
        >
          Repair (read everything again)
        </button>
        {running && (
          <button type="button" onClick={() => cancel.mutate({ profileId: profile.id })}>
            Cancel
          </button>
        )}
      </div>
      {running && progress && (
        <p className="progress" role="status" data-testid="sync-progress">
          {label(progress.resource)}: {progress.records.toLocaleString()} records ·{' '}
          {progress.requests.toLocaleString()} requests
          {progress.waitingUntil &&
            ` · waiting for the rate limit until ${new Date(progress.waitingUntil).toLocaleTimeString()}`}
        </p>
      )}
      {start.error && (
        <p className="form-error" role="alert">
          {start.error.message}
        </p>
      )}
      <h2>History</h2>
      {history.data && history.data.runs.length > 0 ? (
        <table className="history" data-testid="sync-history">
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Finished</th>
              <th scope="col">Outcome</th>
              <th scope="col" className="number">
                Records
              </th>
              <th scope="col">Problems</th>
            </tr>
          </thead>
          <tbody>
            {history.data.runs.map((run) => (
              <tr key={run.id}>
                <td>{time(run.startedAt)}</td>
                <td>{time(run.finishedAt)}</td>
                <td className={`outcome outcome-${run.outcome}`}>{run.outcome}</td>
                <td className="number">
                  {Object.values(run.counts)
                    .reduce((sum, n) => sum + n, 0)
                    .toLocaleString()}
                </td>
                <td>
                  {run.errors.length === 0
                    ? '—'
                    : run.errors.slice(0, 3).map((error, index) => (
                        <div key={index}>
                          {label(error.resource)}
                          {error.recordId ? ` ${error.recordId}` : ''}
                          {error.field ? ` (${error.field})` : ''}: {error.message}
                        </div>
                      ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">This organisation has not been synced yet.</p>
      )}
    </section>
  );
}
