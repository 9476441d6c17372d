import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { AppError } from '../../../src-shared/errors';
import type { EventPayload } from '../../../src-shared/ipc';
import type { ProfileSummary } from '../../../src-shared/profiles';
import { CHANGED_BY_REVIEW } from '../../lib/live';
import { refreshCommands } from '../../lib/refresh';
import {
  reviewExportMessage,
  reviewFileProgressText,
  reviewImportMessage,
  reviewInterruptedMessage,
  reviewUndoMessage,
} from './groups';
import { newId } from '../../lib/new-id';
import { call } from '../../lib/satchel';

/** "Review Acme GmbH 2026-11-24.json", without characters a file name cannot have. */
function reviewFileName(profile: ProfileSummary): string {
  const day = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const name = profile.name.replace(/[/\\:*?"<>|\p{Cc}]+/gu, ' ').trim() || 'organisation';
  return `Review ${name} ${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}.json`;
}

/**
 * Hands the review to a colleague: every review mark of the organisation written to a file
 * (`review.export`), or a colleague's file merged in (`review.import`, the newer change of each
 * facet wins; the last import can be undone, `review.undoImport`). Files are chosen with the
 * system's dialogs; a bad file is refused whole and says why. While either runs, "Stop export" or
 * "Stop import" below its bar stops it (`review.cancel`), as Ctrl+C stops the command line's:
 * an export writes nothing, an import keeps what it merged, which "Undo" can take back.
 */
export function ReviewFileSection({ profile }: { profile: ProfileSummary }) {
  const client = useQueryClient();
  const [busy, setBusy] = useState<'export' | 'import' | 'undo' | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The import just made, while it can be undone (the core keeps the organisation's last one);
  // `partly` when it was stopped part-way: what it merged so far is what undoing takes back.
  const [undoable, setUndoable] = useState<{ importId: string; partly: boolean } | null>(null);
  // The id the export or import under way was started with, for `review.cancel`.
  const running = useRef<string | null>(null);
  const [stopping, setStopping] = useState(false);
  const exportButton = useRef<HTMLButtonElement>(null);
  const importButton = useRef<HTMLButtonElement>(null);
  const stopButton = useRef<HTMLButtonElement>(null);
  // How far the export or import under way is (`review.fileProgress`), until its last event:
  // that run's events only, by its `workId`. A late event of a run that was stopped (or of
  // another window's) must not redraw, or end, the bar of the run that follows it.
  const [progress, setProgress] = useState<EventPayload<'review.fileProgress'> | null>(null);
  useEffect(
    () =>
      window.satchel.on('review.fileProgress', (event) => {
        if (event.profileId !== profile.id || event.workId !== running.current) return;
        setProgress(event.ended ? null : event);
      }),
    [profile.id],
  );
  // Shown only for the work this section started and waits for.
  const shown =
    progress &&
    (busy === 'export' ? progress.step === 'export' : busy === 'import' && progress.step !== 'export')
      ? progress
      : null;

  const run = async (action: 'export' | 'import') => {
    setMessage(null);
    setError(null);
    setUndoable(null);
    try {
      const { file } = await call('dialog.pickFile', {
        purpose: action === 'export' ? 'reviewExport' : 'reviewImport',
        ...(action === 'export' ? { suggestedName: reviewFileName(profile) } : {}),
      });
      if (!file) return;
      setProgress(null);
      setBusy(action);
      const workId = newId();
      running.current = workId;
      if (action === 'export') {
        const result = await call('review.export', { profileId: profile.id, file, workId });
        setMessage(reviewExportMessage(result));
      } else {
        const result = await call('review.import', { profileId: profile.id, file, workId });
        // The counts and lists are read again first: the result, the button back and the
        // counts below change together, as a review mark's stays busy until then (useReview).
        await refreshCommands(client, CHANGED_BY_REVIEW);
        const { interrupted, importId } = result;
        setMessage(
          interrupted ? reviewInterruptedMessage({ ...result, interrupted }) : reviewImportMessage(result),
        );
        setUndoable(importId ? { importId, partly: interrupted !== null } : null);
      }
    } catch (problem) {
      // Stopped here: said as what happened (nothing written, or nothing changed), not an error.
      if (problem instanceof AppError && problem.code === 'CANCELLED') setMessage(problem.message);
      else setError((problem as Error).message);
    } finally {
      running.current = null;
      // The Stop button goes with the work: its focus goes back to the button that started it.
      if (document.activeElement === stopButton.current)
        (action === 'export' ? exportButton : importButton).current?.focus();
      setStopping(false);
      setBusy(null);
    }
  };

  /** Stops the export or import under way between two slices of marks (`review.cancel`). */
  const stop = async () => {
    const workId = running.current;
    if (!workId || stopping) return;
    setStopping(true);
    try {
      await call('review.cancel', { profileId: profile.id, workId });
    } catch (problem) {
      setStopping(false);
      setError((problem as Error).message);
    }
  };

  const undo = async (importId: string) => {
    setError(null);
    setBusy('undo');
    try {
      const result = await call('review.undoImport', { profileId: profile.id, importId });
      await refreshCommands(client, CHANGED_BY_REVIEW);
      setUndoable(null);
      setMessage(reviewUndoMessage(result));
    } catch (problem) {
      setUndoable(null);
      setError((problem as Error).message);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="review-file-title" className="settings-section">
      <h2 id="review-file-title">Hand the review to a colleague</h2>
      <p className="muted">
        Every review mark of {profile.name} (reviewed, flags, notes, tags) in one file. A colleague imports it
        into their Satchel to go on from there; where both changed the same mark, the newer change wins.
      </p>
      <div className="actions">
        <button
          ref={exportButton}
          type="button"
          aria-disabled={busy !== null || undefined}
          onClick={() => {
            if (!busy) void run('export');
          }}
        >
          {busy === 'export' ? 'Exporting…' : 'Export review marks…'}
        </button>
        <button
          ref={importButton}
          type="button"
          aria-disabled={busy !== null || undefined}
          onClick={() => {
            if (!busy) void run('import');
          }}
        >
          {busy === 'import' ? 'Importing…' : 'Import review marks…'}
        </button>
      </div>
      {shown && (
        <div className="review-file-progress" data-testid="review-file-progress">
          <p className="muted" id="review-file-progress-text">
            {reviewFileProgressText(shown)}
          </p>
          <div
            className="progress-bar"
            role="progressbar"
            aria-labelledby="review-file-progress-text"
            aria-valuemin={0}
            aria-valuemax={shown.total}
            aria-valuenow={shown.done}
            aria-valuetext={reviewFileProgressText(shown)}
          >
            <span
              style={{ width: `${shown.total === 0 ? 100 : Math.round((shown.done / shown.total) * 100)}%` }}
            />
          </div>
        </div>
      )}
      {(busy === 'export' || busy === 'import') && (
        <div className="actions">
          <button
            ref={stopButton}
            type="button"
            aria-disabled={stopping || undefined}
            onClick={() => void stop()}
            data-testid="review-file-stop"
          >
            {stopping ? 'Stopping…' : busy === 'export' ? 'Stop export' : 'Stop import'}
          </button>
        </div>
      )}
      {message && (
        <p className="muted" role="status" data-testid="review-file-result">
          {message}
        </p>
      )}
      {undoable && (
        <div className="actions">
          <button
            type="button"
            aria-disabled={busy !== null || undefined}
            onClick={() => {
              if (!busy) void undo(undoable.importId);
            }}
          >
            {busy === 'undo'
              ? 'Undoing…'
              : undoable.partly
                ? 'Undo the marks imported so far'
                : 'Undo this import'}
          </button>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
