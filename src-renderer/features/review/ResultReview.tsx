import { useId, useState, type ReactNode } from 'react';
import { useReadOnly, writeControl } from '../../lib/read-only';
import type { ReviewChange, ReviewTarget } from '../../../src-shared/search';
import { formatCount, formatCounted } from '../../lib/format';
import { useReview } from './useReview';

/**
 * "Mark all N reviewed…" and "Unmark all…" for a whole search result, each after a
 * confirmation that names the number; the change runs in the core a slice at a time (the
 * status bar follows it). While the confirmation shows, it replaces these buttons and
 * `children` (the result's other actions). Until the result is counted (`total` null) both
 * wait, saying so; a confirmation goes when the search or its count changes under it, as the
 * number it names would no longer be the one changed.
 */
export function ResultReview({
  profileId,
  target,
  total,
  noun,
  onDone,
  children,
}: {
  profileId: string;
  /** The search whose result is changed. */
  target: Extract<ReviewTarget, { by: 'transactionSearch' | 'expenseSearch' }>;
  /** How many records the search finds; null while they are counted. */
  total: number | null;
  /** What the result holds, one and more: "transaction", "transactions". */
  noun: { one: string; other: string };
  onDone(message: string): void;
  children?: ReactNode;
}) {
  const uid = useId();
  const review = useReview(profileId);
  const readOnly = useReadOnly();
  const [asked, setConfirm] = useState<{ change: ReviewChange; key: string; total: number } | null>(null);
  // What the confirmation was asked for: this search with this count.
  const key = JSON.stringify([target, total]);
  if (asked && asked.key !== key && !review.isPending) setConfirm(null);
  const confirm = asked && (asked.key === key || review.isPending) ? asked : null;
  const run = (change: ReviewChange) =>
    review.mutate(
      { target, change },
      {
        onSuccess: ({ changed }) => {
          onDone(`${formatCount(changed)} changed.`);
          setConfirm(null);
        },
      },
    );
  const ask = (change: ReviewChange) => {
    if (total !== null) setConfirm({ change, key, total });
  };
  return (
    <>
      {confirm ? (
        <span className="confirm" role="group" aria-label="Confirm the bulk change">
          {confirm.change.action === 'setReviewed' ? 'Mark' : 'Unmark'}{' '}
          {confirm.total === 1 ? `the 1 ${noun.one}` : `all ${formatCounted(confirm.total, noun)}`}?
          <button
            type="button"
            className="primary"
            autoFocus
            // Not `disabled`: the button keeps the keyboard focus while the change runs.
            aria-disabled={review.isPending}
            onClick={() => {
              if (!review.isPending) run(confirm.change);
            }}
          >
            {review.isPending ? 'Changing…' : `Yes, change ${formatCount(confirm.total)}`}
          </button>
          <button type="button" onClick={() => setConfirm(null)}>
            Cancel
          </button>
        </span>
      ) : (
        <>
          <button
            type="button"
            aria-describedby={total === null ? `${uid}-counting` : undefined}
            {...writeControl(readOnly, !total)}
            onClick={() => ask({ action: 'setReviewed' })}
          >
            {total === null ? 'Mark all reviewed…' : `Mark all ${formatCount(total)} reviewed…`}
          </button>
          <button
            type="button"
            aria-describedby={total === null ? `${uid}-counting` : undefined}
            {...writeControl(readOnly, !total)}
            onClick={() => ask({ action: 'clearReviewed' })}
          >
            Unmark all…
          </button>
          {total === null && (
            <span className="muted" id={`${uid}-counting`}>
              Counting…
            </span>
          )}
          {children}
        </>
      )}
      {review.error && (
        <span className="form-error" role="alert">
          {review.error.message}
        </span>
      )}
    </>
  );
}

/**
 * The selected rows' part of a bulk bar: how many, "Mark selected reviewed" and "… not
 * reviewed", `children` (other actions on the selection), "Clear selection"; with nothing
 * selected, how to select.
 */
export function SelectionReview({
  count,
  onMark,
  onClear,
  children,
}: {
  count: number;
  onMark(action: 'setReviewed' | 'clearReviewed'): void;
  onClear(): void;
  children?: ReactNode;
}) {
  const off = writeControl(useReadOnly());
  if (count === 0)
    return <span className="muted">Select rows with x or their box, or change the whole result:</span>;
  return (
    <>
      <span>{formatCount(count)} selected</span>
      <button type="button" {...off} onClick={() => onMark('setReviewed')}>
        Mark selected reviewed
      </button>
      <button type="button" {...off} onClick={() => onMark('clearReviewed')}>
        Mark selected not reviewed
      </button>
      {children}
      <button type="button" onClick={onClear}>
        Clear selection
      </button>
    </>
  );
}
