import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { TransactionFilters, TransactionRow, TransactionSorting } from '../../../src-shared/search';
import { call } from '../../lib/satchel';

export const PAGE_SIZE = 100;

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
 * A search result read page by page as the table scrolls: the first page brings the totals
 * (count and sums of the whole result), then only the pages that cover the visible rows are
 * asked for. Pages are TanStack queries, so they are cached, shared and invalidated by events.
 */
export function useFirstPage(profileId: string, filters: TransactionFilters, sorting: TransactionSorting) {
  return useQuery({
    queryKey: ['transactions.search', searchInput(profileId, filters, sorting, 1, true)],
    queryFn: () => call('transactions.search', searchInput(profileId, filters, sorting, 1, true)),
    placeholderData: keepPreviousData,
  });
}

/** The rows of the pages covering `visible`, from the first page (with totals) and the others. */
export function useTransactionPages(
  profileId: string,
  filters: TransactionFilters,
  sorting: TransactionSorting,
  first: ReturnType<typeof useFirstPage>,
  visible: { start: number; end: number },
) {
  const total = first.data?.totals?.count ?? 0;
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
    if (!first.isPlaceholderData) add(1, first.data?.rows);
    others.forEach((query, position) => add(pageNumbers[position] ?? 0, query.data?.rows));
    return loaded;
    // `others` is a new array each render; `stamp` says when its data changed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [first.data, first.isPlaceholderData, pageNumbers, stamp]);

  return {
    total,
    totals: first.data?.totals,
    rows,
    loading: first.isLoading || (first.isPlaceholderData && first.isFetching),
    error: first.error ?? others.find((query) => query.error)?.error ?? null,
  };
}
