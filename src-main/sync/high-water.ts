import { z } from 'zod';
import { fetchPage, parseEach } from './paging';
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
 *
 * Pages are offsets, and a record changed during the pass moves to the end of a list sorted
 * by `updateTime`: every record after it moves up one place, and the first of the next page
 * would slide onto the page already read and be missed for good (it did not change, so no
 * overlap brings it back). So while the pages come back in `updateTime` order, the next one
 * is asked from the last `updateTime` read (`from`, page 1), not by its number: what is
 * behind that point can no longer shift anything past us. Records of that very time come
 * again and are passed over (by id, while they still have that time); a page all of one
 * time, or a page out of that order (a server sorting otherwise), goes on by page number.
 */

const OVERLAP_MS = 10 * 60 * 1000;

const Cursor = z.object({
  since: z.string().nullable(),
  /** Where the next page starts: the last `updateTime` read, once the pass has moved on. */
  from: z.string().nullable().default(null),
  /** Ids already read whose `updateTime` is `from`: the next page lists them again. */
  atFrom: z.array(z.string()).default([]),
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

/**
 * The `updateTime` to ask the next page from, when this page came back sorted by it and ends
 * later than it began from; null when the next page must be asked by its number.
 */
function nextFrom(times: ReadonlyArray<string | null | undefined>, from: string | null): string | null {
  let previous = from === null ? Number.NEGATIVE_INFINITY : Date.parse(from);
  let last: string | null = null;
  for (const time of times) {
    const instant = typeof time === 'string' ? Date.parse(time) : Number.NaN;
    if (Number.isNaN(instant) || instant < previous) return null;
    previous = instant;
    last = time ?? null;
  }
  return last !== null && (from === null || Date.parse(last) > Date.parse(from)) ? last : null;
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

/** A raw record's `updateTime`, parsed or not: the order of the page is the server's. */
function updateTimeOf(raw: unknown): string | null {
  const time = typeof raw === 'object' && raw !== null ? (raw as { updateTime?: unknown }).updateTime : null;
  return typeof time === 'string' ? time : null;
}

function idOf(raw: unknown): string {
  const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : null;
  return typeof id === 'string' ? id : '';
}

function sameInstant(a: string | null, b: string): boolean {
  return a !== null && Date.parse(a) === Date.parse(b);
}

export async function pullSinceHighWater<T>(context: ResourceContext, spec: HighWaterSpec<T>): Promise<void> {
  const checkpoint = context.checkpoint();
  const resumed = Cursor.safeParse(checkpoint?.cursor);
  let cursor = resumed.success
    ? resumed.data
    : {
        since: checkpoint?.highWaterMark ?? null,
        from: null,
        atFrom: [],
        page: 1,
        startedAt: context.now().toISOString(),
        maxSeen: null,
      };

  for (;;) {
    const from = cursor.from ?? cursor.since;
    const { records: raws, hasMore } = await fetchPage(
      context,
      spec.path,
      cursor.page,
      from ? { update_time__gte: from } : {},
    );
    const again = new Set(cursor.atFrom);
    const fresh =
      again.size === 0 || from === null
        ? raws
        : raws.filter((raw) => !(again.has(idOf(raw)) && sameInstant(updateTimeOf(raw), from)));
    const { parsed } = parseEach(context, spec.schema, fresh);
    const extra = spec.enrich ? await spec.enrich(parsed.map((entry) => entry.record)) : undefined;
    const maxSeen = parsed.reduce<string | null>(
      (max, { record }) => later(max, spec.updateTime(record) ?? null),
      cursor.maxSeen,
    );
    const syncedAt = context.now().toISOString();

    const ceiling = new Date(Date.parse(cursor.startedAt) - OVERLAP_MS).toISOString();
    const keyset = hasMore ? nextFrom(raws.map(updateTimeOf), from) : null;
    const next = !hasMore
      ? null
      : keyset !== null
        ? {
            ...cursor,
            from: keyset,
            atFrom: raws.filter((raw) => sameInstant(updateTimeOf(raw), keyset)).map(idOf),
            page: 1,
            maxSeen,
          }
        : { ...cursor, page: cursor.page + 1, maxSeen };
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
