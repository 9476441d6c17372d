import { useState } from 'react';
import type { DownloadJobShape } from '../../../src-shared/files';
import type { ProfileSummary } from '../../../src-shared/profiles';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { DownloadDialog } from './DownloadDialog';
import { filesCount } from './format';
import { JobList } from './JobList';
import { OfflineSection } from './OfflineSection';
import { useDownloads } from './useDownloads';
import './files.css';

/**
 * Receipts and invoices: bulk downloads into a folder for an auditor (with live progress,
 * pause, resume, cancel and retry) and what this organisation keeps offline.
 */
export function FilesView({ profile }: { profile: ProfileSummary }) {
  const [dialogOpen, setDialogOpen] = useState(false);
  const [started, setStarted] = useState<string | null>(null);
  const { jobs, error } = useDownloads(profile.id);
  // A download records its queue in the offline copy: off while the copy is read-only.
  const readOnly = useReadOnly();

  const onStarted = (job: DownloadJobShape, resumed: boolean, waitingForNetwork: boolean) =>
    setStarted(
      waitingForNetwork
        ? `The download of ${filesCount(job.files.total)} to ${job.destination} waits for the network; it starts by itself when the network is back.`
        : `${resumed ? 'Continued the unfinished download of' : 'Started the download of'} ${filesCount(job.files.total)} to ${job.destination}.`,
    );

  return (
    <section className="area files-area" data-area="files">
      <div className="area-head">
        <h1 id="area-title" tabIndex={-1}>
          Files
        </h1>
        <p className="muted">{profile.name}</p>
      </div>
      <p className="muted">
        Receipts and invoices, downloaded in bulk to a folder with a manifest for an auditor, and kept offline
        for previews.
      </p>

      <section aria-labelledby="downloads-title">
        <div className="section-head">
          <h2 id="downloads-title">Downloads</h2>
          <button
            type="button"
            className="primary"
            {...writeControl(readOnly)}
            onClick={() => setDialogOpen(true)}
          >
            Download files…
          </button>
        </div>
        {started && (
          <p className="muted" role="status">
            {started}
          </p>
        )}
        {error && (
          <p className="form-error" role="alert">
            {error.message}
          </p>
        )}
        <JobList profileId={profile.id} jobs={jobs} />
      </section>

      <OfflineSection profileId={profile.id} />

      {dialogOpen && (
        <DownloadDialog profileId={profile.id} onClose={() => setDialogOpen(false)} onStarted={onStarted} />
      )}
    </section>
  );
}
