import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { AppError } from '../../../src-shared/errors';
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

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function kindOf(mimeType: string | null): Kind {
  const type = (mimeType ?? '').toLowerCase().split(';')[0]?.trim() ?? '';
  if (type === 'application/pdf') return 'pdf';
  return IMAGE_TYPES.has(type) ? 'image' : 'other';
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
  const kind = kindOf(file.mimeType);
  const label = file.name ?? file.id;
  const fetched = useQuery({
    queryKey: ['files.fetch', { profileId, fileId: file.id }],
    queryFn: () => call('files.fetch', { profileId, fileId: file.id }),
    enabled: kind !== 'other',
  });
  // A file fetched now is kept offline from now on: the details that said otherwise are stale.
  const client = useQueryClient();
  const justDownloaded = fetched.data !== undefined && !file.downloaded;
  useEffect(() => {
    if (!justDownloaded) return;
    for (const name of ['transactions.get', 'expenses.get'])
      void client.invalidateQueries({ queryKey: [name] });
  }, [justDownloaded, client]);

  if (kind === 'other')
    return (
      <p className="muted preview-note">No preview for this type of file ({file.mimeType ?? 'unknown'}).</p>
    );
  if (fetched.error)
    return (
      <div className="preview-problem" role="alert">
        <p>{fetchProblem(fetched.error, file.downloaded)}</p>
        <button type="button" onClick={() => void fetched.refetch()} disabled={fetched.isFetching}>
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
  const { url } = fetched.data;
  return (
    <div className="preview" data-testid="file-preview">
      {kind === 'image' ? (
        <ImageView url={url} label={label} />
      ) : (
        <Suspense
          fallback={
            <p className="muted preview-note" role="status">
              Opening the PDF…
            </p>
          }
        >
          <PdfView key={url} url={url} label={label} />
        </Suspense>
      )}
    </div>
  );
}

function ImageView({ url, label }: { url: string; label: string }) {
  return <img className="preview-image" src={url} alt={`Receipt ${label}`} />;
}
