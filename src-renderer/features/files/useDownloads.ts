import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { DownloadJobShape, DownloadProgress } from '../../../src-shared/files';
import { useCommand } from '../../lib/query';

/** A job as the list shows it: the stored job, with the newest progress laid over it. */
export interface LiveJob extends DownloadJobShape {
  /** Rate, time left and rate-limit wait: known only from progress events while it runs. */
  live: Pick<DownloadProgress, 'bytesPerSecond' | 'etaSeconds' | 'waitingUntil'> | null;
}

const ELSEWHERE_REFRESH_MS = 3000;

interface Received {
  progress: DownloadProgress;
  at: number;
}

/**
 * The organisation's recent downloads: `downloads.status` for the stored state (at start, after
 * a restart, after each command), `downloads.progress` events for the live counts. Whichever is
 * newer wins; the stored state is read again when a job stops running or a file fails, so the
 * errors, the manifest and the final counts come from the core itself.
 */
export function useDownloads(profileId: string) {
  const client = useQueryClient();
  // A job another Satchel window or command runs sends no events here: read again every few
  // seconds while there is one, so that its count moves and its end shows.
  const status = useCommand(
    'downloads.status',
    { profileId },
    { refetchInterval: (data) => (data?.jobs.some((job) => job.elsewhere) ? ELSEWHERE_REFRESH_MS : false) },
  );
  const [received, setReceived] = useState<Map<string, Received>>(() => new Map());

  useEffect(() => {
    const refresh = () => void client.invalidateQueries({ queryKey: ['downloads.status'] });
    const last = new Map<string, DownloadProgress>();
    return window.satchel.on('downloads.progress', (progress) => {
      if (progress.profileId !== profileId) return;
      const before = last.get(progress.jobId);
      last.set(progress.jobId, progress);
      if (
        !before ||
        before.status !== progress.status ||
        before.files.failed !== progress.files.failed ||
        progress.status !== 'running'
      )
        refresh();
      const entry = { progress, at: Date.now() };
      setReceived((current) => new Map(current).set(progress.jobId, entry));
    });
  }, [client, profileId]);

  const storedAt = status.dataUpdatedAt;
  const jobs: LiveJob[] = (status.data?.jobs ?? []).map((job) => {
    const latest = received.get(job.id);
    if (!latest || latest.at < storedAt) {
      return { ...job, live: latest && job.status === 'running' ? pickLive(latest.progress) : null };
    }
    const { progress } = latest;
    return {
      ...job,
      status: progress.status,
      files: progress.files,
      bytes: progress.bytes,
      live: progress.status === 'running' ? pickLive(progress) : null,
    };
  });
  return { jobs, loading: status.isPending, error: status.error };
}

function pickLive(progress: DownloadProgress): LiveJob['live'] {
  return {
    bytesPerSecond: progress.bytesPerSecond,
    etaSeconds: progress.etaSeconds,
    waitingUntil: progress.waitingUntil,
  };
}
