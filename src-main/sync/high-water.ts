import { z } from 'zod';
import { fetchPage } from './paging';
import type Database from 'better-sqlite3';
import type { ResourceContext } from './types';

/**
 * Pulls a list filtered by `update_time__gte` since the last high-water mark, page by page,
 * each page committed with a cursor so a kill resumes at the page it stopped on.
 *
 * The next high-water mark is the greatest `updateTime` stored, but never later than ten
 * minutes before this pull began (by our clock): a record changed while we were paging may
 * sit on a page we had already passed, and the overlap makes the next sync see it. Records
 * read twice are simply written twice.
 */

const OVERLAP_MS = 10 * 60 * 1000;

const Cursor = z.object({
  since: z.string().nullable(),
  page: z.number().int().min(1),
  startedAt: z.string(),
  maxSeen: z.string().nullable(),
});

/** Timestamps compared as instants, not as text ("…00Z" and "…00.000Z" are the same). */
function later(a: string | null, b: string | null): string | null {
  if (a === null || Number.isNaN(Date.parse(a))) return b;
  if (b === null || Number.isNaN(Date.parse(b))) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

function earlier(a: string, b: string): string {
  return Date.parse(b) < Date.parse(a) ? b : a;
}

export interface HighWaterSpec<T> {
  path: string;
  schema: z.ZodType<T>;
  updateTime(record: T): string | null | undefined;
  /** Writes one page of parsed records (with their raw JSON) inside the page transaction. */
  write(db: Database.Database, records: Array<{ record: T; raw: unknown }>, syncedAt: string): number;
  /** Optional extra reading per page before it is committed (file metadata of expenses). */
  enrich?(records: T[]): Promise<(db: Database.Database) => void>;
}

export async function pullSinceHighWater<T>(context: ResourceContext, spec: HighWaterSpec<T>): Promise<void> {
  const checkpoint = context.checkpoint();
  const resumed = Cursor.safeParse(checkpoint?.cursor);
  let cursor = resumed.success
    ? resumed.data
    : {
        since: checkpoint?.highWaterMark ?? null,
        page: 1,
        startedAt: context.now().toISOString(),
        maxSeen: null,
      };

  for (;;) {
    const { records: raws, hasMore } = await fetchPage(
      context,
      spec.path,
      cursor.page,
      cursor.since ? { update_time__gte: cursor.since } : {},
    );
    const parsed = raws.flatMap((raw) => {
      const record = context.parseRecord(spec.schema, raw);
      return record === null ? [] : [{ record, raw }];
    });
    const extra = spec.enrich ? await spec.enrich(parsed.map((entry) => entry.record)) : undefined;
    const maxSeen = parsed.reduce<string | null>(
      (max, { record }) => later(max, spec.updateTime(record) ?? null),
      cursor.maxSeen,
    );
    const syncedAt = context.now().toISOString();

    const ceiling = new Date(Date.parse(cursor.startedAt) - OVERLAP_MS).toISOString();
    const next = hasMore ? { ...cursor, page: cursor.page + 1, maxSeen } : null;
    const checkpoint = next
      ? { cursor: next }
      : {
          cursor: null,
          highWaterMark: maxSeen === null ? cursor.since : later(cursor.since, earlier(maxSeen, ceiling)),
          completedAt: syncedAt,
        };
    context.commitPage((_tx, db) => {
      extra?.(db);
      return spec.write(db, parsed, syncedAt);
    }, checkpoint);
    if (!next) return;
    cursor = next;
  }
}
