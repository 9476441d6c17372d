import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';

/** When a colleague's marks of `writeColleagueReview` were made and exported. */
export const COLLEAGUE_AT = '2026-05-04T10:00:00.000Z';

/**
 * Writes to `file` a colleague's review file of `count` marks on transactions no copy holds
 * (fresh ids): each reviewed, with `note` a note "Seen by Anna", with `tags` the tag "Q3 audit",
 * all made and exported at COLLEAGUE_AT. Returns `file`.
 */
export function writeColleagueReview(
  file: string,
  count: number,
  parts: { note?: boolean; tags?: boolean } = {},
): string {
  const at = COLLEAGUE_AT;
  writeFileSync(
    file,
    JSON.stringify({
      format: 'satchel-review',
      version: 1,
      exportedAt: at,
      organisationId: null,
      marks: Array.from({ length: count }, () => ({
        kind: 'transaction',
        id: randomUUID(),
        reviewed: { at, changedAt: at },
        ...(parts.note ? { note: { text: 'Seen by Anna', changedAt: at } } : {}),
        ...(parts.tags ? { tags: { values: ['Q3 audit'], changedAt: at } } : {}),
      })),
    }),
  );
  return file;
}

/**
 * Writes to `file` a colleague's review file of `count` notes "Seen by Anna" alone (no reviewed
 * mark, no tags) on transactions no copy holds, written at COLLEAGUE_AT and exported an hour
 * later. Returns `file`.
 */
export function writeColleagueNotes(file: string, count: number): string {
  writeFileSync(
    file,
    JSON.stringify({
      format: 'satchel-review',
      version: 1,
      exportedAt: '2026-05-04T11:00:00.000Z',
      organisationId: null,
      marks: Array.from({ length: count }, () => ({
        kind: 'transaction',
        id: randomUUID(),
        note: { text: 'Seen by Anna', changedAt: COLLEAGUE_AT },
      })),
    }),
  );
  return file;
}
