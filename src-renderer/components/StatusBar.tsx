import type { AppInfo, Notice } from '../../src-shared/ipc';

interface StatusBarProps {
  info: { status: 'loading' } | { status: 'ready'; info: AppInfo } | { status: 'failed'; message: string };
  notice: Notice | null;
}

export function StatusBar({ info, notice }: StatusBarProps) {
  return (
    <footer className="status-bar" role="status" aria-live="polite">
      <span className="status-item" data-testid="app-version">
        {info.status === 'ready'
          ? `${info.info.name} ${info.info.version} · API ${info.info.apiVersion}`
          : info.status === 'loading'
            ? 'Starting…'
            : `Could not reach the app core: ${info.message}`}
      </span>
      {notice && (
        <span className={`status-item notice notice-${notice.level}`} data-testid="notice">
          {notice.message}
        </span>
      )}
    </footer>
  );
}
