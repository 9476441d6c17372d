import type { AppInfo, Notice, OnlineState } from '../../src-shared/ipc';

interface StatusBarProps {
  info: { status: 'loading' } | { status: 'ready'; info: AppInfo } | { status: 'failed'; message: string };
  notice: Notice | null;
  online?: OnlineState | null;
}

export function StatusBar({ info, notice, online = null }: StatusBarProps) {
  return (
    <footer className="status-bar" role="status" aria-live="polite">
      <span className="status-item" data-testid="app-version">
        {info.status === 'ready'
          ? `${info.info.name} ${info.info.version} · API ${info.info.apiVersion}`
          : info.status === 'loading'
            ? 'Starting…'
            : `Could not reach the app core: ${info.message}`}
      </span>
      {online && !online.online && (
        <span className="status-item notice notice-warning" data-testid="offline">
          {online.reason === 'network'
            ? 'Offline: no network. Everything stays searchable; edits wait.'
            : 'Offline: the API does not answer. Satchel checks again every minute.'}
        </span>
      )}
      {notice && (
        <span className={`status-item notice notice-${notice.level}`} data-testid="notice">
          {notice.message}
        </span>
      )}
    </footer>
  );
}
