import type { ReviewChange } from '../../src-shared/search';
import type { TargetSql } from './targets';

/**
 * Each review change as SQL statements over a target (targets.ts). Parameters: `@kind`,
 * `@now` (ISO 8601 UTC), the change's own (`@reason`, `@note`, `@tags` as a JSON array) and
 * the target's. The number of records changed is the `changes` of the statement marked
 * `counts`; the other statements carry out the rest of the change.
 *
 * Every statement changes only what actually changes (marking a reviewed record reviewed
 * again keeps its first `reviewed_at`), and every change stamps its facet's `*_changed_at`,
 * which the import's "newer wins" merge compares.
 */

export interface Statement {
  sql: string;
  counts: boolean;
}

/** Inserts a mark row per target id, or updates the existing one where `when` holds. */
function upsert(target: TargetSql, columns: Record<string, string>, when: string): string {
  const names = Object.keys(columns);
  return `INSERT INTO review_marks (kind, record_id, ${names.join(', ')}, updated_at)
    SELECT @kind, s.id, ${names.map((name) => columns[name]).join(', ')}, @now FROM (${target.sql}) s WHERE 1
    ON CONFLICT(kind, record_id) DO UPDATE SET
      ${names.map((name) => `${name} = excluded.${name}`).join(', ')},
      updated_at = max(review_marks.updated_at, excluded.updated_at)
    WHERE ${when}`;
}

/** Updates existing mark rows of target ids where `when` holds. */
function update(target: TargetSql, set: string, when: string): string {
  return `UPDATE review_marks SET ${set}, updated_at = max(updated_at, @now)
    WHERE kind = @kind AND (${when}) AND record_id IN (${target.sql})`;
}

const TAGS = 'SELECT value FROM json_each(@tags)';

export function changeStatements(target: TargetSql, change: ReviewChange): Statement[] {
  switch (change.action) {
    case 'setReviewed':
      return [
        {
          sql: upsert(
            target,
            { reviewed_at: '@now', reviewed_changed_at: '@now' },
            'review_marks.reviewed_at IS NULL',
          ),
          counts: true,
        },
      ];
    case 'clearReviewed':
      return [
        {
          sql: update(target, 'reviewed_at = NULL, reviewed_changed_at = @now', 'reviewed_at IS NOT NULL'),
          counts: true,
        },
      ];
    case 'flag':
      return [
        {
          sql: upsert(
            target,
            { flagged: '1', flag_reason: '@reason', flag_changed_at: '@now' },
            'review_marks.flagged = 0 OR review_marks.flag_reason IS NOT excluded.flag_reason',
          ),
          counts: true,
        },
      ];
    case 'unflag':
      return [
        {
          sql: update(target, 'flagged = 0, flag_reason = NULL, flag_changed_at = @now', 'flagged = 1'),
          counts: true,
        },
      ];
    case 'setNote':
      return noteText(change.note) === null
        ? [{ sql: update(target, 'note = NULL, note_changed_at = @now', 'note IS NOT NULL'), counts: true }]
        : [
            {
              sql: upsert(
                target,
                { note: '@note', note_changed_at: '@now' },
                'review_marks.note IS NOT excluded.note',
              ),
              counts: true,
            },
          ];
    case 'addTags':
      return [
        // Records missing at least one of the tags: those are the ones that change.
        {
          sql: upsert(
            target,
            { tags_changed_at: '@now' },
            `EXISTS (SELECT 1 FROM json_each(@tags) j WHERE NOT EXISTS (SELECT 1 FROM review_tags r
               WHERE r.kind = @kind AND r.record_id = excluded.record_id AND r.tag = j.value COLLATE NOCASE))`,
          ),
          counts: true,
        },
        {
          sql: `INSERT INTO review_tags (kind, record_id, tag, added_at)
            SELECT @kind, s.id, j.value, @now FROM (${target.sql}) s, json_each(@tags) j WHERE 1
            ON CONFLICT DO NOTHING`,
          counts: false,
        },
      ];
    case 'removeTags':
      return [
        {
          sql: update(
            target,
            'tags_changed_at = @now',
            `EXISTS (SELECT 1 FROM review_tags r WHERE r.kind = @kind AND r.record_id = review_marks.record_id
               AND r.tag COLLATE NOCASE IN (${TAGS}))`,
          ),
          counts: true,
        },
        {
          sql: `DELETE FROM review_tags WHERE kind = @kind AND tag COLLATE NOCASE IN (${TAGS})
            AND record_id IN (${target.sql})`,
          counts: false,
        },
      ];
  }
}

/** A note of only white space is no note. */
export function noteText(note: string | null): string | null {
  return note === null || note.trim() === '' ? null : note;
}

/** The change's own parameters. */
export function changeParams(change: ReviewChange): Record<string, unknown> {
  switch (change.action) {
    case 'flag':
      return { reason: change.reason };
    case 'setNote':
      return noteText(change.note) === null ? {} : { note: change.note };
    case 'addTags':
    case 'removeTags':
      return { tags: JSON.stringify(change.tags) };
    default:
      return {};
  }
}
