import { useState } from 'react';
import type { ReviewChange, TransactionFilters, TransactionSorting } from '../../../src-shared/search';
import { formatCount } from '../../lib/format';
import { useModifierShortcut } from '../../lib/platform';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { DownloadDialog, type ScopeChoice } from '../files/DownloadDialog';
import { filesCount } from '../files/format';
import { ResultReview, SelectionReview } from '../review/ResultReview';
import { byIds, useReview } from '../review/useReview';
import { ExportDialog } from '../export/ExportDialog';

/**
 * Bulk review: the selected rows, or every transaction the search finds (after a
 * confirmation); files of either downloaded; the whole result exported as CSV. What acts on
 * the whole result waits for its count.
 */
export function BulkBar({
  profileId,
  selected,
  total,
  filters,
  sorting,
  onClear,
}: {
  profileId: string;
  selected: Set<string>;
  /** How many transactions the search finds; null while they are counted. */
  total: number | null;
  filters: TransactionFilters;
  sorting: TransactionSorting;
  onClear(): void;
}) {
  const review = useReview(profileId);
  const shortcut = useModifierShortcut();
  // A download records its queue in the offline copy: off, with the reason, when it is read-only
  // (rather than a dialog whose Start download is off).
  const readOnly = useReadOnly();
  const [done, setDone] = useState<string | null>(null);
  const [download, setDownload] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const [exportFailed, setExportFailed] = useState<string | null>(null);
  const ids = [...selected];
  const downloadChoices: ScopeChoice[] = [
    ...(ids.length > 0
      ? [
          {
            id: 'selection',
            label:
              ids.length === 1
                ? 'The selected transaction'
                : `The ${formatCount(ids.length)} selected transactions`,
            scope: { by: 'ids', kind: 'transaction', ids },
          } satisfies ScopeChoice,
        ]
      : []),
    {
      id: 'result',
      label:
        total === 1
          ? 'The 1 transaction of this search'
          : `All ${formatCount(total ?? 0)} transactions of this search`,
      scope: { by: 'transactionSearch', filters },
    },
  ];
  const run = (target: Parameters<typeof review.mutate>[0]['target'], change: ReviewChange) =>
    review.mutate(
      { target, change },
      {
        onSuccess: ({ changed }) => setDone(`${formatCount(changed)} changed.`),
      },
    );
  return (
    <div className="bulk-bar" role="toolbar" aria-label="Bulk review">
      <SelectionReview
        count={ids.length}
        onMark={(action) => run(byIds('transaction', ids), { action })}
        onClear={onClear}
      >
        <button type="button" {...writeControl(readOnly)} onClick={() => setDownload('selection')}>
          Download files…
        </button>
      </SelectionReview>
      <ResultReview
        profileId={profileId}
        target={{ by: 'transactionSearch', filters }}
        total={total}
        noun={{ one: 'transaction', other: 'transactions' }}
        onDone={setDone}
      >
        <button type="button" {...writeControl(readOnly, !total)} onClick={() => setDownload('result')}>
          Download files of this result…
        </button>
        <button
          type="button"
          disabled={!total}
          onClick={() => {
            setExportFailed(null);
            setExporting(true);
          }}
        >
          Export as CSV…
        </button>
      </ResultReview>
      {download && (
        <DownloadDialog
          profileId={profileId}
          choices={downloadChoices}
          initialChoice={download}
          onClose={() => setDownload(null)}
          onStarted={(job, _resumed, waitingForNetwork) =>
            setDone(
              waitingForNetwork
                ? `The download of ${filesCount(job.files.total)} waits for the network and starts by itself when it is back; follow it in Files (${shortcut('4')}).`
                : `Downloading ${filesCount(job.files.total)}; follow it in Files (${shortcut('4')}).`,
            )
          }
        />
      )}
      {exporting && (
        <ExportDialog
          profileId={profileId}
          search={{ kind: 'transaction', filters, sorting }}
          total={total ?? 0}
          onClose={() => setExporting(false)}
          onDone={setDone}
          onFailed={setExportFailed}
        />
      )}
      {done && (
        <span className="muted" role="status">
          {done}
        </span>
      )}
      {exportFailed && (
        <span className="form-error" role="alert">
          {exportFailed}
        </span>
      )}
      {review.error && (
        <span className="form-error" role="alert">
          {review.error.message}
        </span>
      )}
    </div>
  );
}
