import { keepPreviousData, useQueries, useQuery, type QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import type {
  TransactionFilters,
  TransactionRow,
  TransactionSearchResult,
  TransactionSorting,
} from '../../../src-shared/search';
import { call } from '../../lib/satchel';

export const PAGE_SIZE = 100;

/** The order the table opens in: the v0 default, newest booking first. */
export const DEFAULT_SORTING: TransactionSorting = { field: 'bookingDate', direction: 'DESC' };

function searchInput(
  profileId: string,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  page: number,
  withTotals: boolean,
) {
  return { profileId, search: { filters, sorting, pagination: { page, pageSize: PAGE_SIZE }, withTotals } };
}

/**
 * A search result read page by page as the table scrolls. The first page comes without totals
 * and the totals (count and sums of the whole result) in a second request sent right after it:
 * the core answers in order, so the first rows show before the whole result is counted. Until
 * the count arrives, the table holds the first page's rows. Then only the pages that cover the
 * visible rows are asked for. Pages are TanStack queries: cached, shared, invalidated by events.
 * `total` is how many rows the table holds; `counted`, the totals of this search once known.
 */
export function useFirstPage(profileId: string, filters: TransactionFilters, sorting: TransactionSorting) {
  const rows = useQuery({
    queryKey: ['transactions.search', searchInput(profileId, filters, sorting, 1, false)],
    queryFn: () => call('transactions.search', searchInput(profileId, filters, sorting, 1, false)),
    placeholderData: keepPreviousData,
  });
  const totalsInput = {
    profileId,
    search: { filters, sorting, pagination: { page: 1, pageSize: 1 }, withTotals: true },
  };
  const totals = useQuery({
    queryKey: ['transactions.search', totalsInput],
    queryFn: () => call('transactions.search', totalsInput),
    placeholderData: keepPreviousData,
  });
  // The count of exactly this search, or null while it is counted: a previous search's count,
  // kept as placeholder data, is not it.
  const counted = !totals.isPlaceholderData ? (totals.data?.totals ?? null) : null;
  return { rows, totals, total: provisionalTotal(rows, totals), counted };
}

/**
 * Asks for the first page the table opens with, before the app knows it will show it: at start
 * the remembered organisation is known before the list of organisations arrives, so its rows
 * are on their way one round trip sooner. A stale id only costs an answer nobody reads.
 */
export function prefetchFirstPage(client: QueryClient, profileId: string): void {
  const input = searchInput(profileId, {}, DEFAULT_SORTING, 1, false);
  void client.prefetchQuery({
    queryKey: ['transactions.search', input],
    queryFn: () => call('transactions.search', input),
  });
}

function provisionalTotal(
  rows: { data?: { rows: unknown[] } | undefined; isPlaceholderData: boolean },
  totals: { data?: TransactionSearchResult | undefined; isPlaceholderData: boolean },
): number {
  const counted = totals.data?.totals?.count;
  if (counted !== undefined && !totals.isPlaceholderData) return counted;
  const shown = rows.data?.rows.length;
  // A short first page is the whole result; a full one holds its rows until the count comes.
  if (shown !== undefined && !rows.isPlaceholderData) return shown;
  return counted ?? 0;
}

/** The rows of the pages covering `visible`, from the first page (with totals) and the others. */
export function useTransactionPages(
  profileId: string,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  first: ReturnType<typeof useFirstPage>,
  visible: { start: number; end: number },
) {
  const { rows: firstRows, total } = first;
  const pageNumbers = useMemo(() => {
    const pages: number[] = [];
    if (total === 0) return pages;
    const from = Math.floor(visible.start / PAGE_SIZE) + 1;
    const to = Math.floor(Math.min(visible.end, total - 1) / PAGE_SIZE) + 1;
    for (let page = Math.max(2, from); page <= to; page++) pages.push(page);
    return pages;
  }, [visible.start, visible.end, total]);
  const others = useQueries({
    queries: pageNumbers.map((page) => ({
      queryKey: ['transactions.search', searchInput(profileId, filters, sorting, page, false)],
      queryFn: () => call('transactions.search', searchInput(profileId, filters, sorting, page, false)),
    })),
  });

  // Gathered again only when a page's data changes: the table recomputes its rows from this.
  const stamp = others.map((query) => query.dataUpdatedAt).join(',');
  const rows = useMemo(() => {
    const loaded: Array<{ index: number; row: TransactionRow }> = [];
    const add = (page: number, list: TransactionRow[] | undefined) =>
      list?.forEach((row, offset) => loaded.push({ index: (page - 1) * PAGE_SIZE + offset, row }));
    if (!firstRows.isPlaceholderData) add(1, firstRows.data?.rows);
    others.forEach((query, position) => add(pageNumbers[position] ?? 0, query.data?.rows));
    return loaded;
    // `others` is a new array each render; `stamp` says when its data changed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [firstRows.data, firstRows.isPlaceholderData, pageNumbers, stamp]);

  return {
    total,
    totals: first.counted,
    rows,
    loading: firstRows.isLoading || (firstRows.isPlaceholderData && firstRows.isFetching),
    error: firstRows.error ?? first.totals.error ?? others.find((query) => query.error)?.error ?? null,
  };
}

/**
 * Where transaction `id` is in the result of `filters` in `sorting` order (from 0), or null when
 * the result does not hold it: one question to the core, however deep the record is.
 */
export async function positionOf(
  profileId: string,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  id: string,
): Promise<number | null> {
  const { index } = await call('transactions.position', { profileId, filters, sorting, id });
  return index;
}
