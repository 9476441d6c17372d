import type { ResourceContext } from './types';
import { listEnvelope } from './wire';

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
  const hasMore = answer.meta?.pagination.hasMore ?? false;
  return { records: answer.data, hasMore };
}

/** Every record of a (small) list, all pages. */
export async function fetchAllPages(
  context: ResourceContext,
  path: string,
  query: Record<string, string> = {},
) {
  const all: unknown[] = [];
  for (let page = 1; ; page += 1) {
    const { records, hasMore } = await fetchPage(context, path, page, query);
    all.push(...records);
    if (!hasMore) return all;
  }
}
