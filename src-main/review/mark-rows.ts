import { prepared } from '../search/sql';
import type { CacheDb } from '../store';

/**
 * A record's review mark and tags as stored (`review_marks`, `review_tags`), read and written
 * whole: what an import merges into and what undoing one puts back.
 */

export interface MarkRow {
  kind: 'transaction' | 'expense';
  record_id: string;
  reviewed_at: string | null;
  reviewed_changed_at: string | null;
  flagged: number;
  flag_reason: string | null;
  flag_changed_at: string | null;
  note: string | null;
  note_changed_at: string | null;
  tags_changed_at: string | null;
  updated_at: string;
}

export interface TagRow {
  tag: string;
  added_at: string;
}

const MARK_COLUMNS = [
  'kind',
  'record_id',
  'reviewed_at',
  'reviewed_changed_at',
  'flagged',
  'flag_reason',
  'flag_changed_at',
  'note',
  'note_changed_at',
  'tags_changed_at',
  'updated_at',
] as const;

export function readMarkRow(cache: CacheDb, kind: string, id: string): MarkRow | undefined {
  return prepared(cache.sqlite, 'SELECT * FROM review_marks WHERE kind = ? AND record_id = ?').get(
    kind,
    id,
  ) as MarkRow | undefined;
}

export function writeMarkRow(cache: CacheDb, row: MarkRow): void {
  prepared(
    cache.sqlite,
    `INSERT INTO review_marks (${MARK_COLUMNS.join(', ')}) VALUES (${MARK_COLUMNS.map((c) => `@${c}`).join(', ')})
       ON CONFLICT(kind, record_id) DO UPDATE SET ${MARK_COLUMNS.slice(2)
         .map((c) => `${c} = excluded.${c}`)
         .join(', ')}`,
  ).run(row);
}

export function deleteMarkRow(cache: CacheDb, kind: string, id: string): void {
  prepared(cache.sqlite, 'DELETE FROM review_marks WHERE kind = ? AND record_id = ?').run(kind, id);
  writeTagRows(cache, kind, id, []);
}

/** The record's tags in a stable order, with when each was added. */
export function readTagRows(cache: CacheDb, kind: string, id: string): TagRow[] {
  return prepared(
    cache.sqlite,
    'SELECT tag, added_at FROM review_tags WHERE kind = ? AND record_id = ? ORDER BY tag COLLATE NOCASE, tag',
  ).all(kind, id) as TagRow[];
}

/** Replaces the record's tags; a second spelling of one tag (another ASCII case) is dropped. */
export function writeTagRows(cache: CacheDb, kind: string, id: string, tags: readonly TagRow[]): void {
  prepared(cache.sqlite, 'DELETE FROM review_tags WHERE kind = ? AND record_id = ?').run(kind, id);
  const insert = prepared(
    cache.sqlite,
    'INSERT INTO review_tags (kind, record_id, tag, added_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  for (const { tag, added_at } of tags) insert.run(kind, id, tag, added_at);
}
