import type { AppInfo } from '../../../src-shared/ipc';
import { ConnectionsSection } from './ConnectionsSection';

export function SettingsView({ info }: { info: AppInfo | null }) {
  return (
    <section className="area" data-area="settings">
      <h1 id="area-title">Settings</h1>
      <ConnectionsSection />
      <h2>About this installation</h2>
      {info ? (
        <dl className="facts" data-testid="app-info">
          <dt>Version</dt>
          <dd>{info.version}</dd>
          <dt>Spend API</dt>
          <dd>{info.apiVersion}</dd>
          <dt>Cache schema</dt>
          <dd>{info.schemaVersion}</dd>
          <dt>Data folder</dt>
          <dd className="mono">{info.dataDir}</dd>
          <dt>Platform</dt>
          <dd>{info.platform}</dd>
        </dl>
      ) : (
        <p className="muted">Loading…</p>
      )}
    </section>
  );
}
