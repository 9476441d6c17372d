import type { RecordKind } from '../../src-shared/search';
import type { SqlPart } from './sql';

/**
 * The review filters, common to transactions and expenses: membership of the record's id in
 * the small sets of reviewed, flagged, noted or tagged ids of its kind. Each set comes from
 * a partial index (see store/tables/review.ts), so "reviewed: yes" costs as much as there are
 * reviewed records, and "reviewed: no" is a probe per candidate row.
 */

export interface ReviewFilters {
  reviewed?: boolean | undefined;
  flagged?: boolean | undefined;
  hasNote?: boolean | undefined;
  tag?: string | undefined;
}

/** `kind` comes from a closed enum and is inlined, so the planner sees it as a constant. */
function member(idColumn: string, wanted: boolean, subquery: string): string {
  return `${idColumn} ${wanted ? 'IN' : 'NOT IN'} (${subquery})`;
}

export function reviewConditions(kind: RecordKind, idColumn: string, filters: ReviewFilters): SqlPart[] {
  const marks = (condition: string) =>
    `SELECT record_id FROM review_marks WHERE kind = '${kind}' AND ${condition}`;
  const parts: SqlPart[] = [];
  if (filters.reviewed !== undefined)
    parts.push({ sql: member(idColumn, filters.reviewed, marks('reviewed_at IS NOT NULL')), params: {} });
  if (filters.flagged !== undefined)
    parts.push({ sql: member(idColumn, filters.flagged, marks('flagged = 1')), params: {} });
  if (filters.hasNote !== undefined)
    parts.push({ sql: member(idColumn, filters.hasNote, marks('note IS NOT NULL')), params: {} });
  if (filters.tag !== undefined) {
    parts.push({
      sql: member(
        idColumn,
        true,
        `SELECT record_id FROM review_tags WHERE kind = '${kind}' AND tag = @r_tag COLLATE NOCASE`,
      ),
      params: { r_tag: filters.tag },
    });
  }
  return parts;
}

/** Columns of the review state beside a record: `m` is review_marks LEFT JOINed on the id. */
export function reviewColumns(kind: RecordKind, idColumn: string): string {
  return `m.reviewed_at AS reviewedAt, m.flagged AS flagged, m.flag_reason AS flagReason, m.note AS note,
    (SELECT json_group_array(tag) FROM (SELECT tag FROM review_tags g
       WHERE g.kind = '${kind}' AND g.record_id = ${idColumn} ORDER BY g.tag COLLATE NOCASE)) AS tags`;
}

export function reviewJoin(kind: RecordKind, idColumn: string): string {
  return `LEFT JOIN review_marks m ON m.kind = '${kind}' AND m.record_id = ${idColumn}`;
}

export interface ReviewColumns {
  reviewedAt: string | null;
  flagged: number | null;
  flagReason: string | null;
  note: string | null;
  tags: string;
}

export function reviewState(row: ReviewColumns) {
  return {
    reviewedAt: row.reviewedAt,
    flagged: row.flagged === 1,
    flagReason: row.flagReason,
    note: row.note,
    tags: JSON.parse(row.tags) as string[],
  };
}
