import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { AppError } from '../../../src-shared/errors';
import { cacheExtension } from '../../../src-shared/file-template';
import { useModifierShortcut } from '../../lib/platform';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { call } from '../../lib/satchel';
import { DownloadDialog } from '../files/DownloadDialog';
import { useDownloads } from '../files/useDownloads';
import { ImageView } from './ImageView';
import type { PdfProblem } from './PdfView';
import type { Turn } from './viewer';
import './preview.css';

// pdf.js (and its worker) is fetched the first time a PDF is shown, not with the first screen.
const PdfView = lazy(() => import('./PdfView'));

export interface PreviewFile {
  id: string;
  name: string | null;
  mimeType: string | null;
  /** Whether a checked copy is on disk already (no network needed). */
  downloaded: boolean;
  /** Bytes, as the record says; null when unknown. */
  size?: number | null;
}

/** What the file turned out to be when it was opened: not what its type promised. */
type Problem = PdfProblem | { kind: 'image' };

function problemText(problem: Problem, file: PreviewFile): string {
  switch (problem.kind) {
    case 'password':
      return 'This PDF is locked with a password, so Satchel cannot show it.';
    case 'damaged':
      return 'This file is not a readable PDF: it is damaged, cut short, or not a PDF at all.';
    case 'image':
      return `This file is not a readable image (it came as ${file.mimeType ?? 'an image'}): it is damaged, or a file of another kind.`;
    case 'failed':
      return `The PDF could not be shown (${problem.detail}).`;
  }
}

/** A save started from the preview: its job, followed until it ends. */
interface Saving {
  jobId: string;
  waitingForNetwork: boolean;
}

/**
 * What became of the copy, in the download dialog's words: saved in the destination folder
 * (named), or why not. Read from the job as the Files area reads it (`useDownloads`).
 */
function SaveOutcome({ profileId, saving }: { profileId: string; saving: Saving }) {
  const shortcut = useModifierShortcut();
  const job = useDownloads(profileId).jobs.find((candidate) => candidate.id === saving.jobId);
  if (job?.status === 'completed' && job.files.failed === 0)
    return <>Saved the copy in the destination folder {job.destination}.</>;
  if (job?.status === 'completed')
    return <>The copy could not be saved: {job.errors[0]?.error ?? 'the file failed.'}</>;
  if (job?.status === 'cancelled') return <>The copy was cancelled; nothing was saved.</>;
  if (job?.status === 'paused')
    return (
      <>
        The copy is paused{job.problem ? `: ${job.problem}` : '.'} Resume it in Files ({shortcut('4')}).
      </>
    );
  return saving.waitingForNetwork ? (
    <>
      The copy waits for the network and is saved by itself when it is back; follow it in Files (
      {shortcut('4')}).
    </>
  ) : (
    <>Saving the copy; follow it in Files ({shortcut('4')}).</>
  );
}

/**
 * "Save a copy…": the download dialog for this one file, which puts it in a folder of the
 * user's choice (from there it opens in whatever app the system has for it). The dialog's keys
 * stay in it: its Esc closes the dialog, not the pane around it. The note beside the button
 * follows the copy to its end and stays until dismissed or another copy is asked for; the
 * focus comes back to the button when the dialog or the note goes.
 */
function SaveCopy({ profileId, file, label }: { profileId: string; file: PreviewFile; label: string }) {
  const [open, setOpen] = useState(false);
  const [saving, setSaving] = useState<Saving | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  // A copy is a download, which a read-only offline copy cannot record: off, with the reason.
  const readOnly = useReadOnly();
  return (
    <>
      <button
        ref={button}
        type="button"
        {...writeControl(readOnly)}
        aria-label={`Save a copy of ${label}…`}
        onClick={() => {
          setSaving(null);
          setOpen(true);
        }}
      >
        Save a copy…
      </button>
      {saving && (
        <span className="preview-save-note">
          <span className="muted" role="status">
            <SaveOutcome profileId={profileId} saving={saving} />
          </span>{' '}
          <button
            type="button"
            aria-label="Dismiss the note on the copy"
            onClick={() => {
              setSaving(null);
              button.current?.focus();
            }}
          >
            Dismiss
          </button>
        </span>
      )}
      {open && (
        <div className="preview-dialog-host" onKeyDown={(event) => event.stopPropagation()}>
          <DownloadDialog
            profileId={profileId}
            choices={[
              {
                id: 'file',
                label: `This file (${label})`,
                scope: { by: 'ids', kind: 'file', ids: [file.id] },
              },
            ]}
            initialChoice="file"
            onClose={() => {
              setOpen(false);
              button.current?.focus();
            }}
            onStarted={(job, _resumed, waitingForNetwork) => setSaving({ jobId: job.id, waitingForNetwork })}
          />
        </div>
      )}
    </>
  );
}

type Kind = 'image' | 'pdf' | 'other';

const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp']);

/**
 * What the preview can do with the file: decided by the extension its cached copy gets (from
 * the type, else the name, as for a file sent as `application/octet-stream`), which is also
 * what the file route serves it as.
 */
function kindOf(file: PreviewFile): Kind {
  const extension = cacheExtension(file.name, file.mimeType);
  if (extension === '.pdf') return 'pdf';
  return IMAGE_EXTENSIONS.has(extension) ? 'image' : 'other';
}

/** The copy could not be fetched, and Satchel is offline: it is fetched once the network is back. */
class NoNetwork extends AppError {}

/**
 * `files.fetch`. A fetch that got no answer is "offline" only when the app's own state says so
 * (asked then); one that broke off midway (the API reached, the line cut) has its own code,
 * `BROKEN_OFF`, and so has a connection reset before the server answered, `CONNECTION_RESET`,
 * and a server error, `SERVER_ERROR`: none is ever called offline.
 */
async function fetchCopy(profileId: string, fileId: string) {
  try {
    return await call('files.fetch', { profileId, fileId });
  } catch (error) {
    if (!(error instanceof AppError) || (error.code !== 'OFFLINE' && error.code !== 'TIMEOUT')) throw error;
    const state = await call('app.online', {}).catch(() => null);
    throw state?.online === false ? new NoNetwork(error.code, error.message) : error;
  }
}

/** What went wrong, said so that the accountant knows what to do. */
function fetchProblem(error: Error, downloaded: boolean): string {
  const code = error instanceof AppError ? error.code : null;
  if (!downloaded && error instanceof NoNetwork)
    return 'Not downloaded yet and Satchel is offline. The receipt opens by itself once the network is back.';
  if (code === 'BROKEN_OFF')
    return 'The download of the receipt broke off; what arrived is kept, and Try again continues it.';
  // The core's words name the server and the cause (a reset, a server error, no answer in
  // time) and end in "try again", which the button below does.
  if (code === 'CONNECTION_RESET' || code === 'SERVER_ERROR' || code === 'TIMEOUT') return error.message;
  if (code === 'OFFLINE')
    return `The receipt could not be fetched: ${error.message} Try again when you like.`;
  if (code === 'AUTH_FAILED')
    return 'Not downloaded yet, and the organisation refused the credentials: re-enter them in Settings.';
  return `The receipt could not be opened: ${error.message}`;
}

/**
 * A receipt or invoice shown in the app: the cached copy (fetched first if it is not on disk),
 * images as they are, PDFs drawn by pdf.js a page at a time. The turn is the caller's, per file
 * (`useFileTurn`, for the session): it outlives this preview (hidden and shown again, a fresh
 * copy loaded, the expense left and opened again) and is never saved.
 */
export function FilePreview({
  profileId,
  file,
  turn,
  onTurn,
}: {
  profileId: string;
  file: PreviewFile;
  turn: Turn;
  onTurn(turn: Turn): void;
}) {
  const kind = kindOf(file);
  const label = file.name ?? file.id;
  // An empty file is not fetched: there is nothing to show, whatever its type.
  const empty = file.size === 0;
  const fetched = useQuery({
    queryKey: ['files.fetch', { profileId, fileId: file.id }],
    queryFn: () => fetchCopy(profileId, file.id),
    enabled: kind !== 'other' && !empty,
  });
  // What the copy turned out to be, for the copy it was found in: a new copy (the record
  // changed, fetched again) gets a new look.
  const [found, setFound] = useState<{ copy: number; problem: Problem } | null>(null);
  const problem = found?.copy === fetched.dataUpdatedAt ? found.problem : null;
  const setProblem = (seen: Problem) => setFound({ copy: fetched.dataUpdatedAt, problem: seen });
  // A file fetched now is kept offline from now on: the details that said otherwise are stale.
  const client = useQueryClient();
  // The copy went away after it was fetched (the offline budget evicted it): fetch it again.
  const [unreadable, setUnreadable] = useState(false);
  // The button that asked for the new copy goes away with the message: the focus moves to the
  // preview, so it stays in the pane (Esc, the review keys).
  const wrapper = useRef<HTMLDivElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (unreadable || !refocus.current || !wrapper.current) return;
    refocus.current = false;
    wrapper.current.focus();
  }, [unreadable, fetched.data]);
  const justDownloaded = fetched.data !== undefined && !file.downloaded;
  useEffect(() => {
    if (!justDownloaded) return;
    for (const name of ['transactions.get', 'expenses.get'])
      void client.invalidateQueries({ queryKey: [name] });
  }, [justDownloaded, client]);

  // Asking again after a failure always fetches the file (a copy on this computer opens without
  // failing) and records the copy: a read-only offline copy would refuse it, so the buttons that
  // ask are off there, with the reason, as the other writing controls are.
  const readOnly = useReadOnly();
  const saveCopy = <SaveCopy profileId={profileId} file={file} label={label} />;
  if (kind === 'other')
    return (
      <div className="preview-problem preview-problem-quiet">
        <p>
          No preview for this type of file ({file.mimeType ?? 'unknown'}). Save a copy to a folder to open it
          in another app.
        </p>
        {saveCopy}
      </div>
    );
  if (empty)
    return (
      <p className="preview-problem" role="alert">
        This file is empty (0 bytes): there is nothing to show. Ask for the receipt to be sent again.
      </p>
    );
  if (fetched.error)
    return (
      <div className="preview-problem" role="alert">
        <p>{fetchProblem(fetched.error, file.downloaded)}</p>
        <button
          type="button"
          {...writeControl(readOnly)}
          aria-disabled={fetched.isFetching}
          onClick={() => {
            if (fetched.isFetching) return;
            refocus.current = true;
            void fetched.refetch();
          }}
        >
          Try again
        </button>
      </div>
    );
  if (!fetched.data)
    return (
      <p className="muted preview-note" role="status">
        {file.downloaded ? 'Opening the receipt…' : 'Downloading the receipt…'}
      </p>
    );
  if (unreadable)
    return (
      <div className="preview-problem" role="alert">
        <p>
          The copy on this computer could not be read; it may have been removed to stay within the offline
          space.
        </p>
        <button
          type="button"
          {...writeControl(readOnly)}
          aria-disabled={fetched.isFetching}
          // Shown again once the new copy is there, so it is not read before it exists. Not
          // `disabled` while it works: a disabled button would drop the focus.
          onClick={() => {
            if (fetched.isFetching) return;
            void fetched.refetch().then(() => {
              refocus.current = true;
              setUnreadable(false);
            });
          }}
        >
          Fetch it again
        </button>
      </div>
    );
  if (problem)
    return (
      <div className="preview-problem" role="alert">
        <p>{problemText(problem, file)} Save a copy to a folder to open it in another app.</p>
        {saveCopy}
      </div>
    );
  const { url } = fetched.data;
  // A new answer of files.fetch (same URL, a fresh copy) loads the file again.
  const version = `${url}#${fetched.dataUpdatedAt}`;
  const lost = () => setUnreadable(true);
  // An image that does not load is either gone from the cache (the route answers 404) or not
  // an image at all: the route is asked which.
  const imageFailed = () => {
    fetch(url, { method: 'HEAD' }).then(
      (response) => (response.status === 404 ? lost() : setProblem({ kind: 'image' })),
      lost,
    );
  };
  return (
    <div className="preview" data-testid="file-preview" ref={wrapper} tabIndex={-1}>
      {kind === 'image' ? (
        <ImageView key={version} url={url} label={label} turn={turn} onTurn={onTurn} onError={imageFailed} />
      ) : (
        <Suspense
          fallback={
            <p className="muted preview-note" role="status">
              Opening the PDF…
            </p>
          }
        >
          <PdfView
            key={version}
            url={url}
            label={label}
            turn={turn}
            onTurn={onTurn}
            onUnreadable={lost}
            onProblem={setProblem}
          />
        </Suspense>
      )}
    </div>
  );
}
