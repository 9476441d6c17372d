import type { AppInfo } from '../../../src-shared/ipc';
import type { AreaId } from '../../areas';
import '../../components/chrome.css';
import { AppearanceSection } from './AppearanceSection';
import { ConnectionsSection } from './ConnectionsSection';

export function SettingsView({ info, onGo }: { info: AppInfo | null; onGo(area: AreaId): void }) {
  return (
    <section className="area" data-area="settings">
      <h1 id="area-title" tabIndex={-1}>
        Settings
      </h1>
      <ConnectionsSection />
      <AppearanceSection />
      <h2>Offline files</h2>
      <p className="muted settings-section">
        Which receipts and invoices stay on this computer without being opened, and how much disk they may
        use, is set per organisation in Files.
      </p>
      <button type="button" onClick={() => onGo('files')}>
        Open Files
      </button>
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
