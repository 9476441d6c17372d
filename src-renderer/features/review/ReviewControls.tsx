import { useEffect, useId, useRef, useState } from 'react';
import { useReadOnly, writeControl } from '../../lib/read-only';
import type { RecordKind, ReviewState } from '../../../src-shared/search';
import { formatTime } from '../../lib/format';
import { useModifierShortcut } from '../../lib/platform';
import { byIds, useReview } from './useReview';

export type ReviewFocus = 'flag' | 'note' | null;

/**
 * Reviewed, flag with a reason, note and tags of one record. `focus` asks for the flag reason
 * or the note field (the f and n shortcuts); Enter saves a reason or a tag, Ctrl+Enter a note.
 * Once a flag is saved its field is gone: the focus goes back to where f was pressed (the
 * list or the pane), or to this section's heading, so the review keys work on without a click.
 * Remove flag and a tag's × go with their change: the reason field, or the next tag's × (else
 * the tag field), takes the focus in their place.
 */
export function ReviewControls({
  profileId,
  kind,
  id,
  review,
  focus,
  onFocused,
}: {
  profileId: string;
  kind: RecordKind;
  id: string;
  review: ReviewState;
  focus: ReviewFocus;
  onFocused(): void;
}) {
  const uid = useId();
  const shortcut = useModifierShortcut();
  const apply = useReview(profileId);
  const target = byIds(kind, [id]);
  const [reason, setReason] = useState('');
  const [note, setNote] = useState(review.note ?? '');
  const [tag, setTag] = useState('');
  const reasonRef = useRef<HTMLInputElement>(null);
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const tagInputRef = useRef<HTMLInputElement>(null);
  const tagListRef = useRef<HTMLUListElement>(null);
  // Where the focus was when the f shortcut asked for the reason field.
  const flaggedFrom = useRef<HTMLElement | null>(null);
  // A control that goes away with the change it makes (Remove flag, a tag's ×) takes the focus
  // with it: once the change is shown, the control in its place gets it instead of <body>.
  const refocus = useRef<{ to: 'reason' } | { to: 'tag'; index: number; count: number } | null>(null);
  useEffect(() => {
    const wanted = refocus.current;
    if (!wanted) return;
    if (wanted.to === 'reason' && review.flagged) return;
    if (wanted.to === 'tag' && review.tags.length >= wanted.count) return;
    refocus.current = null;
    const now = document.activeElement;
    if (now && now !== document.body) return; // the user has moved on
    if (wanted.to === 'reason') reasonRef.current?.focus();
    else {
      // The next tag's ×, else the one before, else the field that adds a tag.
      const buttons = tagListRef.current?.querySelectorAll('button') ?? [];
      (buttons[Math.min(wanted.index, buttons.length - 1)] ?? tagInputRef.current)?.focus();
    }
  }, [review.flagged, review.tags]);

  // A note changed elsewhere (another row, a sync of marks) replaces the text being shown.
  const [shownNote, setShownNote] = useState({ id, note: review.note });
  if (shownNote.id !== id || shownNote.note !== review.note) {
    setShownNote({ id, note: review.note });
    setNote(review.note ?? '');
  }
  useEffect(() => {
    if (focus === 'flag') {
      const from = document.activeElement;
      flaggedFrom.current = from instanceof HTMLElement && from !== document.body ? from : null;
      reasonRef.current?.focus();
    }
    if (focus === 'note') noteRef.current?.focus();
    if (focus) onFocused();
  }, [focus, onFocused]);

  const error = apply.error?.message;
  // Read-only copy: every control here stays, off, with the reason (lib/read-only.ts).
  const readOnly = useReadOnly();
  const noteChanged = note !== (review.note ?? '');
  return (
    <section className="review-controls" aria-labelledby={`${uid}-title`}>
      <h3 id={`${uid}-title`} tabIndex={-1} ref={headingRef}>
        Review
      </h3>
      <div className="actions">
        <button
          type="button"
          aria-pressed={review.reviewedAt !== null}
          className={review.reviewedAt ? 'toggle on' : 'toggle'}
          {...writeControl(readOnly)}
          onClick={() =>
            apply.mutate({ target, change: { action: review.reviewedAt ? 'clearReviewed' : 'setReviewed' } })
          }
        >
          {review.reviewedAt ? '✓ Reviewed' : 'Mark reviewed'}
        </button>
        {review.reviewedAt && <span className="muted">{formatTime(review.reviewedAt)}</span>}
      </div>

      {review.flagged ? (
        <div className="actions flag-line">
          <span className="badge badge-flag">Flagged: {review.flagReason}</span>
          <button
            type="button"
            {...writeControl(readOnly)}
            onClick={() => {
              refocus.current = { to: 'reason' };
              apply.mutate(
                { target, change: { action: 'unflag' } },
                { onError: () => (refocus.current = null) },
              );
            }}
          >
            Remove flag
          </button>
        </div>
      ) : (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            apply.mutate(
              { target, change: { action: 'flag', reason } },
              {
                onSuccess: () => {
                  setReason('');
                  // Unless the user has moved on, the focus leaves with the reason field.
                  const now = document.activeElement;
                  if (now && now !== document.body && now !== reasonRef.current) return;
                  const from = flaggedFrom.current;
                  flaggedFrom.current = null;
                  (from?.isConnected ? from : headingRef.current)?.focus();
                },
              },
            );
          }}
        >
          <label htmlFor={`${uid}-reason`}>Flag reason</label>
          <input
            id={`${uid}-reason`}
            ref={reasonRef}
            value={reason}
            placeholder="e.g. Receipt missing"
            onChange={(event) => setReason(event.target.value)}
          />
          <button type="submit" {...writeControl(readOnly, reason.trim() === '')}>
            Flag
          </button>
        </form>
      )}

      <form
        className="note-form"
        onSubmit={(event) => {
          event.preventDefault();
          apply.mutate({ target, change: { action: 'setNote', note: note.trim() === '' ? null : note } });
        }}
      >
        <label htmlFor={`${uid}-note`}>Note</label>
        <textarea
          id={`${uid}-note`}
          ref={noteRef}
          rows={3}
          value={note}
          aria-describedby={`${uid}-note-hint`}
          onChange={(event) => setNote(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              event.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <p className="hint" id={`${uid}-note-hint`}>
          {shortcut('Enter')} saves.
        </p>
        <div className="actions">
          <button type="submit" {...writeControl(readOnly, !noteChanged)}>
            Save note
          </button>
        </div>
      </form>

      <div className="tags">
        <span className="label" id={`${uid}-tags`}>
          Tags
        </span>
        <ul aria-labelledby={`${uid}-tags`} ref={tagListRef}>
          {review.tags.map((existing, index) => (
            <li key={existing} className="tag">
              {existing}
              <button
                type="button"
                aria-label={`Remove tag ${existing}`}
                {...writeControl(readOnly)}
                onClick={() => {
                  refocus.current = { to: 'tag', index, count: review.tags.length };
                  apply.mutate(
                    { target, change: { action: 'removeTags', tags: [existing] } },
                    { onError: () => (refocus.current = null) },
                  );
                }}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            apply.mutate(
              { target, change: { action: 'addTags', tags: [tag] } },
              { onSuccess: () => setTag('') },
            );
          }}
        >
          <label htmlFor={`${uid}-tag`} className="visually-hidden">
            New tag
          </label>
          <input
            id={`${uid}-tag`}
            ref={tagInputRef}
            value={tag}
            placeholder="Add a tag"
            onChange={(event) => setTag(event.target.value)}
          />
          <button type="submit" {...writeControl(readOnly, tag.trim() === '')}>
            Add
          </button>
        </form>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
