import { useQueryClient } from '@tanstack/react-query';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { useEffect, useRef, useState } from 'react';
import type { EventPayload } from '../../../src-shared/ipc';
import type { ProfileSummary } from '../../../src-shared/profiles';
import '../../components/chrome.css';
import { useLatestEvent } from '../../lib/events';
import { formatCount, formatTime } from '../../lib/format';
import { useCommand, useCommandMutation } from '../../lib/query';
import { resourceLabel } from '../../../src-shared/sync-resources';
import { budgetShare, endsARun, isRunning, latestEnd, outcomeLabel } from './sync-state';

const scopeLabel = (scope: string) =>
  scope === 'read' ? 'Read requests' : scope === 'write' ? 'Write requests (edits)' : `${scope} requests`;

function OnlineLine() {
  const initial = useCommand('app.online', {});
  const latest = useLatestEvent('app.online');
  const online = latest ?? initial.data;
  if (!online) return <dd>Checking…</dd>;
  if (online.online) return <dd data-testid="sync-online">Online</dd>;
  return (
    <dd className="notice-warning" data-testid="sync-online">
      Offline since {formatTime(online.since)}:{' '}
      {online.reason === 'network'
        ? 'no network. Sync starts by itself when it is back.'
        : 'the API does not answer. Satchel checks again every minute.'}
    </dd>
  );
}

function RateLimits({ profileId, running }: { profileId: string; running: boolean }) {
  // The governor's view changes with every request: read it again while a sync runs.
  const limits = useCommand('sync.rateLimits', { profileId }, running ? { refetchInterval: 2000 } : {});
  const buckets = limits.data?.buckets ?? [];
  if (buckets.length === 0)
    return <p className="muted">Known after the first request to the API in this session.</p>;
  return (
    <dl className="facts" data-testid="rate-limits">
      {buckets.map((bucket) => (
        <div key={bucket.scope} className="fact-group">
          <dt>{scopeLabel(bucket.scope)}</dt>
          <dd>
            <span className="budget-bar" aria-hidden="true">
              <span style={{ width: `${Math.round(budgetShare(bucket) * 100)}%` }} />
            </span>
            {formatCount(bucket.remaining)} of {formatCount(bucket.limit)} left until{' '}
            {formatTime(bucket.resetAt)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The progress of the organisation's run going on: its latest `sync.progress`, until a
 * `sync.finished` ends it (then null; see isRunning).
 */
function useRunProgress(profileId: string) {
  const [progress, setProgress] = useState<EventPayload<'sync.progress'> | null>(null);
  useEffect(() => {
    const stops = [
      window.satchel.on('sync.progress', (event) => {
        if (event.profileId === profileId) setProgress(event);
      }),
      window.satchel.on('sync.finished', (event) => {
        if (event.profileId === profileId) setProgress(null);
      }),
    ];
    return () => {
      for (const stop of stops) stop();
      setProgress(null);
    };
  }, [profileId]);
  return progress;
}

export function SyncView({ profile }: { profile: ProfileSummary }) {
  const client = useQueryClient();
  const history = useCommand('sync.history', { profileId: profile.id, limit: 20 });
  const start = useCommandMutation('sync.start', ['sync.history', 'sync.rateLimits']);
  const cancel = useCommandMutation('sync.cancel');
  const progress = useRunProgress(profile.id);
  // A refusal because another process syncs is no run's end (see endsARun).
  const finished = useLatestEvent(
    'sync.finished',
    (event) => event.profileId === profile.id && endsARun(event),
  );

  const { reset: resetStart } = start;
  useEffect(() => {
    if (finished) {
      void client.invalidateQueries({ queryKey: ['sync.history'] });
      void client.invalidateQueries({ queryKey: ['sync.rateLimits'] });
      // Why the last Sync now was refused (no network) no longer holds once a run has ended.
      resetStart();
    }
  }, [finished, client, resetStart]);

  const running = isRunning(start.isPending, progress);
  // A read-only copy: Sync now and Repair stay, off, with the reason (lib/read-only.ts).
  const readOnly = useReadOnly();
  // Why the run that just ended failed (the network, the credentials, a cache that refused to
  // write): what stopped it is its last problem.
  const failure =
    !running && finished?.outcome === 'failed' ? (finished.errors.at(-1)?.message ?? null) : null;
  const last = latestEnd(history.data?.runs ?? [], finished);

  // Sync now and Repair are disabled while the run they start goes on, and Cancel goes with the
  // run: each would drop the focus on the page, where no key acts. The focus follows the run
  // instead: to Cancel while it runs, then back to the button that started it.
  const syncButton = useRef<HTMLButtonElement>(null);
  const repairButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const pressed = useRef<'sync' | 'repair' | null>(null);
  useEffect(() => {
    if (!pressed.current) return;
    const focused = document.activeElement;
    const lost =
      !focused || focused === document.body || (focused instanceof HTMLButtonElement && focused.disabled);
    if (running) {
      if (lost) cancelButton.current?.focus();
      return;
    }
    if (lost) (pressed.current === 'repair' ? repairButton : syncButton).current?.focus();
    pressed.current = null;
  });
  const startRun = (full: boolean) => {
    pressed.current = full ? 'repair' : 'sync';
    start.mutate({ profileId: profile.id, full });
  };
  return (
    <section className="area" data-area="sync">
      <h1 id="area-title" tabIndex={-1}>
        Sync
      </h1>
      <p className="muted">
        {profile.name} · <span className="mono">{profile.baseUrl}</span>
      </p>
      <dl className="facts sync-facts">
        <dt>Connection</dt>
        <OnlineLine />
        <dt>Last sync</dt>
        <dd data-testid="sync-last">
          {last ? `${formatTime(last.finishedAt)} · ${outcomeLabel(last.outcome)}` : 'Never'}
        </dd>
      </dl>
      <div className="actions">
        <button
          type="button"
          className="primary"
          ref={syncButton}
          {...writeControl(readOnly, running)}
          onClick={() => startRun(false)}
        >
          Sync now
        </button>
        <button
          type="button"
          ref={repairButton}
          {...writeControl(readOnly, running)}
          onClick={() => startRun(true)}
        >
          Repair (read everything again)
        </button>
        {running && (
          <button
            type="button"
            ref={cancelButton}
            onClick={() => {
              // A run started elsewhere (the background, the menu): Sync now takes the focus after.
              pressed.current ??= 'sync';
              cancel.mutate({ profileId: profile.id });
            }}
          >
            Cancel
          </button>
        )}
      </div>
      <div role="status" aria-live="polite">
        {running && progress && (
          <p className="progress" data-testid="sync-progress">
            {resourceLabel(progress.resource)}: {formatCount(progress.records)} records ·{' '}
            {formatCount(progress.requests)} requests
            {progress.waitingUntil &&
              ` · waiting for the rate limit until ${formatTime(progress.waitingUntil)}`}
          </p>
        )}
        {running && !progress && <p className="progress">Starting…</p>}
      </div>
      {start.error && (
        <p className="form-error" role="alert">
          {start.error.message}
        </p>
      )}
      {failure && failure !== start.error?.message && (
        <p className="form-error" role="alert" data-testid="sync-failure">
          The last sync failed: {failure}
        </p>
      )}
      <h2>Rate limit</h2>
      <RateLimits profileId={profile.id} running={running} />
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
                <td>{formatTime(run.startedAt)}</td>
                <td>{formatTime(run.finishedAt)}</td>
                <td className={`outcome outcome-${run.outcome}`}>{outcomeLabel(run.outcome)}</td>
                <td className="number">
                  {formatCount(Object.values(run.counts).reduce((sum, n) => sum + n, 0))}
                </td>
                <td>
                  {run.errors.length === 0 ? (
                    '—'
                  ) : (
                    <details>
                      <summary>
                        {run.errors.length === 1 ? '1 problem' : `${formatCount(run.errors.length)} problems`}
                      </summary>
                      <ul className="run-errors">
                        {run.errors.map((error, index) => (
                          <li key={index}>
                            {/* No resource: a problem of the run as a whole. */}
                            {error.resource && (
                              <>
                                {resourceLabel(error.resource)}
                                {error.recordId ? ` ${error.recordId}` : ''}
                                {error.field ? ` (${error.field})` : ''}:{' '}
                              </>
                            )}
                            {error.message}
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
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
