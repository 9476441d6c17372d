import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import type { CommandName } from '../../../src-shared/ipc';
import { formatCount, formatTime, humanize } from '../../lib/format';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { call } from '../../lib/satchel';
import {
  checkOutcome,
  formatByteSize,
  formatClock,
  failureText,
  filesOf,
  formatDuration,
  joinPath,
  percentDone,
  progressAnnouncement,
  shownRate,
  statusWord,
} from './format';
import type { LiveJob } from './useDownloads';

/** Failed files listed at once; the rest are counted (all of them can be retried). */
const ERRORS_SHOWN = 50;

type JobCommand = Extract<
  CommandName,
  'downloads.pause' | 'downloads.resume' | 'downloads.cancel' | 'downloads.retry' | 'downloads.check'
>;

/** The organisation's recent downloads, newest first. */
export function JobList({ profileId, jobs }: { profileId: string; jobs: LiveJob[] }) {
  if (jobs.length === 0) return <p className="empty">No download yet. Start one with “Download files…”.</p>;
  return (
    <ul className="jobs" aria-label="Downloads">
      {jobs.map((job) => (
        <JobCard key={job.id} profileId={profileId} job={job} />
      ))}
    </ul>
  );
}

function JobCard({ profileId, job }: { profileId: string; job: LiveJob }) {
  const id = useId();
  const client = useQueryClient();
  const [confirmCancel, setConfirmCancel] = useState(false);
  const controls = useRef<HTMLDivElement>(null);
  /**
   * Whether focus stays with this card's controls, from the use of one until the user puts focus
   * anywhere else: the button pressed may vanish (Pause becomes Resume once the job stopped;
   * Check folder gives way to Pause while the job it started runs, however long, and comes back
   * when it ends), and focus must not fall to the page meanwhile.
   */
  const keepFocus = useRef(false);
  const title = useRef<HTMLHeadingElement>(null);
  const [busy, setBusy] = useState(false);
  // Pause, resume, retry, cancel and the folder check write the job's state into the offline
  // copy: off, with the reason, while it is read-only. Show folder and the list still work.
  const readOnly = useReadOnly();
  const off = (disabled: boolean) => writeControl(readOnly, disabled);
  useEffect(() => {
    // Focus put, or a click made, outside the controls is the user's: left where it is.
    const elsewhere = (event: Event) => {
      const group = controls.current;
      if (group && event.target instanceof Node && !group.contains(event.target)) keepFocus.current = false;
    };
    document.addEventListener('focusin', elsewhere);
    document.addEventListener('pointerdown', elsewhere, true);
    return () => {
      document.removeEventListener('focusin', elsewhere);
      document.removeEventListener('pointerdown', elsewhere, true);
    };
  }, []);
  useEffect(() => {
    const group = controls.current;
    if (!group || !keepFocus.current || group.contains(document.activeElement)) return;
    if (document.activeElement && document.activeElement !== document.body) keepFocus.current = false;
    else {
      // No control left (cancelled, or finished once the last failed file came): the card itself.
      const next = group.querySelector<HTMLButtonElement>('button:not(:disabled)');
      if (next) next.focus();
      else if (!busy) title.current?.focus();
    }
  });
  const [error, setError] = useState<string | null>(null);
  /** What the last "Check folder" found, until another control is used. */
  const [checked, setChecked] = useState<string | null>(null);
  const { files, bytes } = job;
  const finished = job.status === 'completed' || job.status === 'cancelled';
  // A job left running or pending by a closed app or a lost network has no runner: it goes on by
  // itself when Satchel starts online or comes back online, or now with Resume.
  const interrupted = !job.active && !job.elsewhere && (job.status === 'running' || job.status === 'pending');
  const running = job.status === 'running' && !interrupted && !job.elsewhere;
  const settled = files.done + files.failed;
  // The failed files listed are the stored state's; the count is the newest (a retry started
  // elsewhere may have fetched them since): with none failed, there is nothing to retry, and
  // a finished job's missing files are Check folder's.
  const retryable = files.failed > 0 && job.status !== 'cancelled' && !job.elsewhere;
  const rate = job.live ? shownRate(job.live.bytesPerSecond) : null;

  const run = async (command: JobCommand, fileIds?: string[]) => {
    keepFocus.current = true;
    setBusy(true);
    setError(null);
    setChecked(null);
    try {
      const ref = { profileId, jobId: job.id };
      if (command === 'downloads.retry') await call(command, fileIds ? { ...ref, fileIds } : ref);
      else if (command === 'downloads.check') {
        const found = await call(command, ref);
        setChecked(
          checkOutcome({
            missing: found.missing,
            done: found.job.files.done,
            failed: found.job.files.failed,
            waitingForNetwork: found.waitingForNetwork,
          }),
        );
      } else await call(command, ref);
      setConfirmCancel(false);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
      await client.invalidateQueries({ queryKey: ['downloads.status'] });
    }
  };

  // Outside the controls above: showing the folder changes nothing in the job, and its button
  // must not take the focus the controls hand on when the last of them goes.
  const openFolder = async () => {
    setError(null);
    try {
      await call('downloads.openFolder', { profileId, jobId: job.id });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      // Gone meanwhile, say: the card then says so and the button is disabled.
      await client.invalidateQueries({ queryKey: ['downloads.status'] });
    }
  };

  return (
    <li className="job" aria-labelledby={`${id}-title`} data-testid="download-job" data-status={job.status}>
      <div className="job-head">
        <h3 id={`${id}-title`} ref={title} className="mono" tabIndex={-1}>
          {job.destination}
        </h3>
        <span
          className={`badge badge-job-${job.elsewhere ? 'running' : interrupted ? 'interrupted' : job.status}`}
        >
          {job.elsewhere ? 'Running elsewhere' : interrupted ? 'Interrupted' : statusWord(job.status)}
        </span>
      </div>
      <p className="muted job-meta">
        {humanize(job.layout === 'flat' ? 'one folder' : `by ${job.layout}`)} ·{' '}
        <span className="mono">{job.template}</span> · started {formatTime(job.createdAt)}
        {job.finishedAt && ` · ended ${formatTime(job.finishedAt)}`}
      </p>
      <p className="job-folder">
        <button
          type="button"
          disabled={!job.folderExists}
          aria-describedby={job.folderExists ? undefined : `${id}-folder-gone`}
          onClick={() => void openFolder()}
        >
          Open folder
        </button>
        {!job.folderExists && (
          <span id={`${id}-folder-gone`} className="muted" data-testid="folder-gone">
            This folder is no longer there: it was moved, renamed or deleted.
          </span>
        )}
      </p>
      {job.problem && (job.status === 'paused' || interrupted) && (
        <p className="job-problem" data-testid="job-problem">
          Stopped: {job.problem}
        </p>
      )}
      {job.elsewhere && (
        <p className="muted" data-testid="job-elsewhere">
          Running in another Satchel window or command: pause or cancel it there. This list follows its count.
        </p>
      )}
      {interrupted && (
        <p className="muted" data-testid="job-interrupted">
          Goes on by itself when Satchel is online again, or now with Resume.
        </p>
      )}

      <div
        className="progress-bar"
        role="progressbar"
        aria-labelledby={`${id}-title`}
        aria-valuemin={0}
        aria-valuemax={files.total}
        aria-valuenow={settled}
        aria-valuetext={filesOf(settled, files.total)}
      >
        <span style={{ width: `${percentDone(settled, files.total)}%` }} />
      </div>
      <p className="job-figures" data-testid="job-figures">
        <strong>{filesOf(files.done, files.total)}</strong>
        {' · '}
        {formatByteSize(bytes.done)} of {formatByteSize(bytes.total)}
        {running && job.live && (
          <>
            {rate !== null && (
              <>
                {' · '}
                {rate}
              </>
            )}
            {job.live.waitingUntil ? (
              <span className="waiting">
                {' · '}waiting for the rate limit until {formatClock(job.live.waitingUntil)}
              </span>
            ) : null}
            {job.live.etaSeconds !== null && job.live.etaSeconds > 0 && (
              <> · about {formatDuration(job.live.etaSeconds)} left</>
            )}
          </>
        )}
        {files.failed > 0 && (
          <span className="job-failed">
            {' · '}
            {formatCount(files.failed)} failed
          </span>
        )}
      </p>
      {(running || job.status === 'pending') && (
        <p className="visually-hidden" role="status">
          {progressAnnouncement(job.status, files.done, files.total)}
        </p>
      )}

      {finished && (
        <div className="job-summary" data-testid="job-summary">
          <dl className="facts">
            <dt>Fetched</dt>
            <dd>{formatCount(files.fetched)}</dd>
            <dt>Copied from the offline cache</dt>
            <dd>{formatCount(files.copied)}</dd>
            <dt>Already in the folder</dt>
            <dd>{formatCount(files.present)}</dd>
            {files.pending > 0 && (
              <>
                <dt>Not downloaded</dt>
                <dd>{formatCount(files.pending)}</dd>
              </>
            )}
            {job.manifest && (
              <>
                <dt>Manifest</dt>
                <dd className="mono" data-testid="manifest-path">
                  {joinPath(job.destination, job.manifest)}
                </dd>
              </>
            )}
          </dl>
        </div>
      )}

      <div ref={controls} className="actions" role="group" aria-label="Download controls">
        {(running || (job.status === 'pending' && job.active)) && (
          <button type="button" {...off(busy)} onClick={() => void run('downloads.pause')}>
            Pause
          </button>
        )}
        {(job.status === 'paused' || interrupted) && (
          <button
            type="button"
            className="primary"
            {...off(busy)}
            onClick={() => void run('downloads.resume')}
          >
            Resume
          </button>
        )}
        {/* First of a finished card's controls: focus comes back to it when the check is done. */}
        {job.status === 'completed' && (
          <button
            type="button"
            {...(readOnly
              ? off(busy)
              : {
                  disabled: busy || !job.folderExists,
                  'aria-describedby': job.folderExists ? undefined : `${id}-folder-gone`,
                })}
            onClick={() => void run('downloads.check')}
          >
            Check folder
          </button>
        )}
        {job.errors.length > 0 && retryable && (
          <button type="button" {...off(busy)} onClick={() => void run('downloads.retry')}>
            Retry all failed
          </button>
        )}
        {!finished &&
          !job.elsewhere &&
          (confirmCancel ? (
            <span className="confirm" role="group" aria-label="Confirm cancelling the download">
              Cancel this download? Files already downloaded stay.
              <button
                type="button"
                className="danger"
                autoFocus
                {...off(busy)}
                onClick={() => void run('downloads.cancel')}
              >
                Yes, cancel it
              </button>
              <button
                type="button"
                onClick={() => {
                  keepFocus.current = true;
                  setConfirmCancel(false);
                }}
              >
                Keep downloading
              </button>
            </span>
          ) : (
            <button type="button" {...off(busy)} onClick={() => setConfirmCancel(true)}>
              Cancel…
            </button>
          ))}
      </div>
      <p className={checked ? 'job-checked' : 'visually-hidden'} role="status" data-testid="job-checked">
        {checked}
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}

      {job.errors.length > 0 && (
        <details className="job-errors" open={job.errors.length <= 5}>
          <summary>
            {formatCount(job.errors.length)} {job.errors.length === 1 ? 'file' : 'files'} failed
          </summary>
          <ul>
            {job.errors.slice(0, ERRORS_SHOWN).map((failure) => (
              <li key={failure.fileId}>
                <span className="mono">{failure.relativePath}</span>
                <span className="field-error">{failureText(failure.error, failure.attempts)}</span>
                {retryable && (
                  <button
                    type="button"
                    {...off(busy)}
                    aria-label={`Retry ${failure.relativePath}`}
                    onClick={() => void run('downloads.retry', [failure.fileId])}
                  >
                    Retry
                  </button>
                )}
              </li>
            ))}
          </ul>
          {job.errors.length > ERRORS_SHOWN && (
            <p className="muted">
              and {formatCount(job.errors.length - ERRORS_SHOWN)} more; “Retry all failed” takes them all.
            </p>
          )}
        </details>
      )}
    </li>
  );
}
