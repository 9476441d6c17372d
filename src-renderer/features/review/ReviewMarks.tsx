import type { ReviewState } from '../../../src-shared/search';

/**
 * A record's review marks in a list row: reviewed, flagged and noted, side by side. The check
 * alone is on screen so that flag and note fit beside it (about 112 px); the word is read out.
 * The flag reason and the note show as the badges' tooltips.
 */
export function ReviewMarks({ review }: { review: ReviewState }) {
  return (
    <span className="marks">
      {review.reviewedAt ? (
        <span className="badge badge-ok" title="Reviewed">
          ✓<span className="visually-hidden"> Reviewed</span>
        </span>
      ) : (
        <span className="muted">—</span>
      )}
      {review.flagged && (
        <span className="badge badge-flag" title={review.flagReason ?? undefined}>
          Flag
        </span>
      )}
      {review.note && (
        <span className="badge" title={review.note}>
          Note
        </span>
      )}
    </span>
  );
}
