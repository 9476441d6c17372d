import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { flagCheck } from './columns';

/**
 * Review state: what the accountant decided about a transaction or an expense. It lives in
 * the cache file but never in the synced rows, keyed by the API's record id, so no sync,
 * re-read window, deletion mark or repair (`rebuild`, re-sync from scratch) can touch it.
 * No foreign keys for the same reason: a mark outlives its record vanishing and returning,
 * and an imported mark may arrive before its record does.
 *
 * Each facet (reviewed, flag, note, tags) has its own `*_changed_at`, set on every change,
 * clearing included: merging a colleague's export compares facet by facet, so their flag
 * and my note both survive, and a cleared mark (a null value with a newer timestamp) wins
 * over an older set one. Timestamps are ISO 8601 UTC with milliseconds and compare as text.
 *
 * `review_marks` is a `WITHOUT ROWID` table (migration 0013, hand-written: drizzle cannot
 * declare one): its rows are stored in the order of (kind, record id), the order a bulk change
 * works in, whatever order the marks were made in (docs/store.md, "Decisions").
 */

const KINDS = sql.raw(`('transaction', 'expense')`);

export const reviewMarks = sqliteTable(
  'review_marks',
  {
    kind: text('kind', { enum: ['transaction', 'expense'] }).notNull(),
    recordId: text('record_id').notNull(),
    /** When the record was marked reviewed; null when it is not (or no longer) reviewed. */
    reviewedAt: text('reviewed_at'),
    reviewedChangedAt: text('reviewed_changed_at'),
    flagged: integer('flagged', { mode: 'boolean' }).notNull().default(false),
    flagReason: text('flag_reason'),
    flagChangedAt: text('flag_changed_at'),
    note: text('note'),
    noteChangedAt: text('note_changed_at'),
    /** The tag set itself is in review_tags; this dates its last change. */
    tagsChangedAt: text('tags_changed_at'),
    /** The latest of the facet timestamps. */
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.recordId] }),
    check('review_marks_kind', sql`"kind" in ${KINDS}`),
    flagCheck('review_marks', 'flagged'),
    check('review_marks_flag_reason', sql`"flagged" = 0 or "flag_reason" is not null`),
    // The review filters ask "which ids of this kind are reviewed / flagged / noted": small
    // partial indexes that hold exactly those ids.
    index('review_marks_reviewed_idx')
      .on(t.kind, t.recordId)
      .where(sql`"reviewed_at" is not null`),
    index('review_marks_flagged_idx')
      .on(t.kind, t.recordId)
      .where(sql`"flagged" = 1`),
    index('review_marks_note_idx')
      .on(t.kind, t.recordId)
      .where(sql`"note" is not null`),
  ],
);

/** One row per tag of a record. A tag is unique per record regardless of ASCII case. */
export const reviewTags = sqliteTable(
  'review_tags',
  {
    kind: text('kind', { enum: ['transaction', 'expense'] }).notNull(),
    recordId: text('record_id').notNull(),
    tag: text('tag').notNull(),
    addedAt: text('added_at').notNull(),
  },
  (t) => [
    check('review_tags_kind', sql`"kind" in ${KINDS}`),
    uniqueIndex('review_tags_unique').on(t.kind, t.recordId, sql`"tag" COLLATE NOCASE`),
    // The tag filter: every record of a kind with a tag.
    index('review_tags_tag_idx').on(t.kind, sql`"tag" COLLATE NOCASE`, t.recordId),
  ],
);
