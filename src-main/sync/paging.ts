import type { z } from 'zod';
import type { ResourceContext } from './types';
import { hasMorePages, listEnvelope } from './wire';

export const PAGE_SIZE = 100;

/**
 * One page of a GET list (`page`, `page_size`). Records stay unparsed here: each is parsed on
 * its own, so one bad record is reported and skipped instead of failing its whole page.
 */
export async function fetchPage(
  context: ResourceContext,
  path: string,
  page: number,
  query: Record<string, string> = {},
) {
  const answer = await context.client.request({
    method: 'GET',
    path,
    query: { ...query, page, page_size: PAGE_SIZE },
    schema: listEnvelope,
    signal: context.signal,
  });
  return {
    records: answer.data,
    hasMore: hasMorePages(answer, PAGE_SIZE),
    total: answer.meta?.pagination.totalItems,
  };
}

/** How often a list that changed while it was paged is read again before giving up. */
const READS = 3;

/**
 * Every record of a (small) list, all pages. Pages are offsets, so a record added or removed
 * upstream between two pages shifts another past us, or onto a page twice: a list whose
 * `totalItems` moved while it was paged is read again, up to three times. `complete` says
 * whether the last read saw one list from start to end; only then may what it lacks be taken
 * for deleted.
 */
export async function fetchAllPages(
  context: ResourceContext,
  path: string,
  query: Record<string, string> = {},
): Promise<{ records: unknown[]; complete: boolean }> {
  let all: unknown[] = [];
  for (let read = 1; read <= READS; read += 1) {
    all = [];
    let first: number | undefined;
    let steady = true;
    for (let page = 1; ; page += 1) {
      const { records, hasMore, total } = await fetchPage(context, path, page, query);
      all.push(...records);
      if (page === 1) first = total;
      else if (total !== first) steady = false;
      if (!hasMore) break;
    }
    if (steady) return { records: all, complete: true };
  }
  return { records: all, complete: false };
}

/**
 * Each record of a page parsed on its own (a failure is reported by `parseRecord`), and the
 * ids of those that failed: they exist upstream, so a complete read must not take them for
 * deleted. A record without an id counts as '' (it matches no row).
 */
export function parseEach<T>(
  context: ResourceContext,
  schema: z.ZodType<T>,
  raws: readonly unknown[],
): { parsed: Array<{ record: T; raw: unknown }>; unread: string[] } {
  const parsed: Array<{ record: T; raw: unknown }> = [];
  const unread: string[] = [];
  for (const raw of raws) {
    const record = context.parseRecord(schema, raw);
    if (record !== null) parsed.push({ record, raw });
    else {
      const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
      unread.push(typeof id === 'string' ? id : '');
    }
  }
  return { parsed, unread };
}
