import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { AppError } from '../../../src-shared/errors';
import { cacheExtension } from '../../../src-shared/file-template';
import { call } from '../../lib/satchel';
import './preview.css';

// pdf.js (and its worker) is fetched the first time a PDF is shown, not with the first screen.
const PdfView = lazy(() => import('./PdfView'));

export interface PreviewFile {
  id: string;
  name: string | null;
  mimeType: string | null;
  /** Whether a checked copy is on disk already (no network needed). */
  downloaded: boolean;
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

/** What went wrong, said so that the accountant knows what to do. */
function fetchProblem(error: Error, downloaded: boolean): string {
  const code = error instanceof AppError ? error.code : null;
  if (!downloaded && (code === 'OFFLINE' || code === 'TIMEOUT'))
    return 'Not downloaded yet and Satchel is offline. The receipt can be opened once the network is back.';
  if (code === 'AUTH_FAILED')
    return 'Not downloaded yet, and the organisation refused the credentials: re-enter them in Settings.';
  return `The receipt could not be opened: ${error.message}`;
}

/**
 * A receipt or invoice shown in the app: the cached copy (fetched first if it is not on disk),
 * images as they are, PDFs drawn by pdf.js a page at a time.
 */
export function FilePreview({ profileId, file }: { profileId: string; file: PreviewFile }) {
  const kind = kindOf(file);
  const label = file.name ?? file.id;
  const fetched = useQuery({
    queryKey: ['files.fetch', { profileId, fileId: file.id }],
    queryFn: () => call('files.fetch', { profileId, fileId: file.id }),
    enabled: kind !== 'other',
  });
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

  if (kind === 'other')
    return (
      <p className="muted preview-note">
        No preview for this type of file ({file.mimeType ?? 'unknown'}). Download it to a folder from Files to
        open it in another app.
      </p>
    );
  if (fetched.error)
    return (
      <div className="preview-problem" role="alert">
        <p>{fetchProblem(fetched.error, file.downloaded)}</p>
        <button
          type="button"
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
  const { url } = fetched.data;
  // A new answer of files.fetch (same URL, a fresh copy) loads the file again.
  const version = `${url}#${fetched.dataUpdatedAt}`;
  const lost = () => setUnreadable(true);
  return (
    <div className="preview" data-testid="file-preview" ref={wrapper} tabIndex={-1}>
      {kind === 'image' ? (
        <img key={version} className="preview-image" src={url} alt={`Receipt ${label}`} onError={lost} />
      ) : (
        <Suspense
          fallback={
            <p className="muted preview-note" role="status">
              Opening the PDF…
            </p>
          }
        >
          <PdfView key={version} url={url} label={label} onUnreadable={lost} />
        </Suspense>
      )}
    </div>
  );
}
