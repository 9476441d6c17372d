import { useEffect, useState } from 'react';
import type { AppInfo, EventPayload, Notice, OnlineState } from '../../src-shared/ipc';
import type { ProfileSummary } from '../../src-shared/profiles';
import { formatCount, formatTime } from '../lib/format';
import { useCommand } from '../lib/query';
import { resourceNoun } from '../../src-shared/sync-resources';
import { endsARun, latestEnd, syncStatusText } from '../features/sync/sync-state';
import { followExport, type ExportProgress } from './running-exports';
import { editsWaitingText, openEdits } from '../features/edits/counts';

interface StatusBarProps {
  info: { status: 'loading' } | { status: 'ready'; info: AppInfo } | { status: 'failed'; message: string };
  notice: Notice | null;
  online?: OnlineState | null;
  profile?: ProfileSummary | null;
}

/**
 * Running work as the core reports it: a sync in progress (until it finishes), an export, a
 * review change of a whole search result.
 */
function useRunningWork(profileId: string | undefined) {
  const [sync, setSync] = useState<EventPayload<'sync.progress'> | null>(null);
  const [ended, setEnded] = useState<EventPayload<'sync.finished'> | null>(null);
  const [exporting, setExporting] = useState<ReadonlyMap<string, ExportProgress>>(new Map());
  const [reviewing, setReviewing] = useState<EventPayload<'review.progress'> | null>(null);
  useEffect(() => {
    const stops = [
      window.satchel.on('sync.progress', (event) => {
        if (event.profileId === profileId) setSync(event);
      }),
      window.satchel.on('sync.finished', (event) => {
        if (event.profileId !== profileId) return;
        setSync(null);
        if (endsARun(event)) setEnded(event);
      }),
      window.satchel.on('export.progress', (event) => {
        if (event.profileId === profileId) setExporting((running) => followExport(running, event));
      }),
      window.satchel.on('review.progress', (event) => {
        if (event.profileId !== profileId) return;
        // Gone with the change's last event, whether it changed every record or failed part-way.
        setReviewing(event.ended ? null : event);
      }),
    ];
    return () => {
      for (const stop of stops) stop();
      setEnded(null);
    };
  }, [profileId]);
  return { sync, ended, exporting, reviewing };
}

function ProfileStatus({ profile }: { profile: ProfileSummary }) {
  const history = useCommand('sync.history', { profileId: profile.id, limit: 5 });
  const edits = useCommand('edits.list', { profileId: profile.id });
  const { sync, ended, exporting, reviewing } = useRunningWork(profile.id);
  const end = latestEnd(history.data?.runs ?? [], ended);
  const waiting = openEdits(edits.data?.items ?? []);
  return (
    <>
      <span className="status-item" data-testid="last-synced">
        {syncStatusText(end, history.data?.lastSucceededAt ?? null, formatTime)}
      </span>
      <span
        className={waiting.problems > 0 ? 'status-item notice-warning' : 'status-item'}
        data-testid="pending-edits"
      >
        {editsWaitingText(waiting)}
      </span>
      {sync && (
        <span className="status-item" data-testid="running-work">
          Syncing {resourceNoun(sync.resource)}: {formatCount(sync.records)} records
          {sync.waitingUntil ? ' · waiting for the rate limit' : ''}
        </span>
      )}
      {[...exporting].map(([exportId, progress]) => (
        <span key={exportId} className="status-item" data-testid="running-export">
          Exporting {formatCount(progress.written)} of {formatCount(progress.total)}
        </span>
      ))}
      {reviewing && (
        <span className="status-item" data-testid="running-review">
          {reviewing.phase === 'check' ? 'Checking the review file' : 'Changing review marks'}:{' '}
          {formatCount(reviewing.done)} of {formatCount(reviewing.total)}
        </span>
      )}
    </>
  );
}

export function StatusBar({ info, notice, online = null, profile = null }: StatusBarProps) {
  return (
    <footer className="status-bar" role="status" aria-live="polite">
      <span
        className={online && !online.online ? 'status-item notice-warning' : 'status-item'}
        data-testid={online && !online.online ? 'offline' : 'online'}
      >
        <span aria-hidden="true" className={online && !online.online ? 'dot dot-off' : 'dot dot-on'} />
        {online && !online.online
          ? online.reason === 'network'
            ? 'Offline: no network. Everything stays searchable; edits wait.'
            : 'Offline: the API does not answer. Satchel checks again every minute.'
          : 'Online'}
      </span>
      {/* Keyed like the areas: the running work of the organisation shown before does not stay. */}
      {profile && <ProfileStatus key={profile.id} profile={profile} />}
      {notice && (
        <span
          className={`status-item notice notice-${notice.level}`}
          data-testid="notice"
          title={notice.message}
        >
          {notice.message}
        </span>
      )}
      <span className="status-item end" data-testid="app-version">
        {info.status === 'ready'
          ? `${info.info.name} ${info.info.version} · API ${info.info.apiVersion}`
          : info.status === 'loading'
            ? 'Starting…'
            : `Could not reach the app core: ${info.message}`}
      </span>
    </footer>
  );
}
