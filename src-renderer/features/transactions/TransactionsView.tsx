import { flexRender, getCoreRowModel, useReactTable, type Row } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { ProfileSummary } from '../../../src-shared/profiles';
import type { TransactionFilters, TransactionSorting } from '../../../src-shared/search';
import { formatCount, formatMoney } from '../../lib/format';
import { isPlainKey } from '../../lib/keys';
import { useCommand } from '../../lib/query';
import { useWidth } from '../../components/useWidth';
import type { ReviewFocus } from '../review/ReviewControls';
import { byIds, useReview } from '../review/useReview';
import { BulkBar } from './BulkBar';
import {
  cellTitle,
  CLOSE_CELLS,
  gridColumns,
  gridLayout,
  LEFT_OUT,
  SORTABLE,
  transactionColumns,
  type GridItem,
  type GridLayout,
} from './columns';
import { FilterBar } from './FilterBar';
import { TransactionPane } from './TransactionPane';
import { DEFAULT_SORTING, positionOf, useFirstPage, useTransactionPages } from './useTransactionPages';

/** Fixed row height: 1,000,000 rows × 30 px stays under Chromium's ~33.5 million px element limit. */
export const ROW_HEIGHT = 30;

/**
 * Scrolls the grid just enough for row `index` to show whole below the header row, which stays
 * at the top of the box (sticky) and so covers the box's first pixels: from above, the row
 * lands under the header; from below, on the box's bottom edge (the virtualiser's own scrolling
 * takes the whole box for rows, so a row from below ended under the bottom edge). Rows are
 * ROW_HEIGHT high, so where one is needs no drawing; the box's size and scroll are read now.
 */
function revealRow(grid: HTMLElement | null, index: number): void {
  if (!grid) return;
  const head = grid.querySelector('.grid-head')?.getBoundingClientRect().height ?? 0;
  const rows = grid.clientHeight - head;
  const top = index * ROW_HEIGHT;
  if (top < grid.scrollTop) grid.scrollTop = top;
  else if (top + ROW_HEIGHT > grid.scrollTop + rows) grid.scrollTop = top + ROW_HEIGHT - rows;
}

export function TransactionsView({
  profile,
  initialFilters,
}: {
  profile: ProfileSummary;
  initialFilters?: TransactionFilters | undefined;
}) {
  const profileId = profile.id;
  const [filters, setFilters] = useState<TransactionFilters>(initialFilters ?? {});
  const [sorting, setSorting] = useState<TransactionSorting>(DEFAULT_SORTING);
  const [active, setActive] = useState(0);
  const [openId, setOpenId] = useState<string | null>(null);
  const [paneFocus, setPaneFocus] = useState<ReviewFocus>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // A filter changed in the form and not applied yet: the result on screen is not counted.
  const [filtersPending, setFiltersPending] = useState(false);
  const gridRef = useRef<HTMLDivElement>(null);
  const paneHeading = useRef<HTMLHeadingElement>(null);
  const focusPaneHeading = useRef(false);
  // The transaction an open pane showed when the search or the order changed: the pane stays on
  // it while the new result is read, and then on its row wherever that is (null: none sought).
  const [seeking, setSeeking] = useState<string | null>(null);

  // The rows are asked for first: the core answers in order.
  const first = useFirstPage(profileId, filters, sorting);
  const accountsQuery = useCommand('bankAccounts.list', { profileId });
  const accountList = useMemo(() => accountsQuery.data?.accounts ?? [], [accountsQuery.data]);
  const accounts = useMemo(() => new Map(accountList.map((account) => [account.id, account])), [accountList]);
  const total = first.total;
  const review = useReview(profileId);

  const onFilters = useCallback((next: TransactionFilters) => {
    setFilters((current) => (JSON.stringify(current) === JSON.stringify(next) ? current : next));
  }, []);
  // A new result starts at its top, with nothing selected; an open pane keeps its transaction,
  // which is looked for in the new result (no row is highlighted meanwhile).
  const openIdNow = useRef(openId);
  openIdNow.current = openId;
  useEffect(() => {
    setSeeking(openIdNow.current);
    setActive(openIdNow.current ? -1 : 0);
    setSelected(new Set());
    gridRef.current?.scrollTo({ top: 0 });
  }, [filters, sorting]);

  // Opened from elsewhere with a search (an expense's "Show in Transactions", a list of "Needs
  // attention"): the control that opened it is gone with its area, so the grid takes the focus
  // and the review keys work at once.
  const opened = useRef(initialFilters !== undefined);
  useEffect(() => {
    if (!opened.current) return;
    opened.current = false;
    const focused = document.activeElement;
    if (!focused || focused === document.body) gridRef.current?.focus();
  }, []);

  // Its functions change identity as it scrolls; this component is not compiler-memoised for it.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => gridRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const firstItem = items[0]?.index ?? 0;
  const lastItem = items.at(-1)?.index ?? 0;
  const pages = useTransactionPages(profileId, filters, sorting, first, { start: firstItem, end: lastItem });

  const toggleSelected = useCallback((id: string) => {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);
  const columns = useMemo(
    () => transactionColumns(accounts, selected, toggleSelected),
    [accounts, selected, toggleSelected],
  );
  // In a narrow window, alone or beside the pane, the grid shows fewer columns (columns.tsx).
  const gridWidth = useWidth(gridRef, openId !== null);
  const layout: GridLayout = gridLayout(gridWidth, openId !== null);
  const table = useReactTable<GridItem>({
    data: pages.rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (item) => String(item.index),
    manualSorting: true,
    // Rows arrive page by page: paging and its resets belong to the virtualiser, not the table.
    manualPagination: true,
    autoResetAll: false,
    enableSortingRemoval: false,
    state: {
      sorting: [{ id: sorting.field, desc: sorting.direction === 'DESC' }],
      columnVisibility: LEFT_OUT[layout],
    },
    onSortingChange: (updater) => {
      const current = [{ id: sorting.field, desc: sorting.direction === 'DESC' }];
      const [next] = typeof updater === 'function' ? updater(current) : updater;
      if (next && SORTABLE.has(next.id))
        setSorting({ field: next.id as TransactionSorting['field'], direction: next.desc ? 'DESC' : 'ASC' });
    },
  });
  const shownColumns = table.getVisibleLeafColumns().map((leaf) => leaf.id);
  // Beside the pane the sorted column may be left out (the booking date beside a narrow pane):
  // its header cannot show the order then, so a note above the grid says it and reverses it.
  const sortedColumn = table.getColumn(sorting.field);
  const hiddenSort =
    sortedColumn && !sortedColumn.getIsVisible() && typeof sortedColumn.columnDef.header === 'string'
      ? sortedColumn.columnDef.header.toLowerCase()
      : null;
  const reverseSort = () =>
    setSorting((current) => ({ ...current, direction: current.direction === 'DESC' ? 'ASC' : 'DESC' }));
  const { template, minWidth } = gridColumns(shownColumns, layout);
  const rowsByIndex = new Map<number, Row<GridItem>>();
  for (const row of table.getRowModel().rows) rowsByIndex.set(row.original.index, row);

  const activeRow = rowsByIndex.get(active)?.original.row;

  const move = (to: number) => {
    if (pages.total === 0) return;
    const next = Math.max(0, Math.min(pages.total - 1, to));
    setSeeking(null);
    setActive(next);
    revealRow(gridRef.current, next);
  };
  const open = (focus: ReviewFocus = null) => {
    if (!activeRow) return;
    setOpenId(activeRow.id);
    setPaneFocus(focus);
    if (focus) return;
    // Already open on this row, nothing renders again: the pane takes the focus now.
    if (openId === activeRow.id) paneHeading.current?.focus();
    else focusPaneHeading.current = true;
  };
  const close = () => {
    setOpenId(null);
    gridRef.current?.focus();
  };
  useEffect(() => {
    if (openId && focusPaneHeading.current) {
      focusPaneHeading.current = false;
      paneHeading.current?.focus();
    }
  });
  // The pane follows the active row while it is open.
  useEffect(() => {
    if (openId && activeRow && activeRow.id !== openId) setOpenId(activeRow.id);
  }, [activeRow, openId]);
  // The new result of another search or order, counted: the open pane's transaction is
  // highlighted where it now is (looked for past the first page if need be), or the pane closes
  // when the result does not hold it, the grid taking the focus if the pane had it.
  const firstAnswer = first.rows.isPlaceholderData ? undefined : first.rows.data;
  const counted = first.counted;
  useEffect(() => {
    if (!seeking || !firstAnswer || !counted) return;
    if (seeking !== openId) {
      // Closed or moved on meanwhile: nothing to look for; the grid highlights a row again.
      setSeeking(null);
      setActive((index) => Math.max(0, index));
      return;
    }
    let current = true;
    const found = (index: number | null) => {
      if (!current) return;
      setSeeking(null);
      if (index !== null) {
        setActive(index);
        revealRow(gridRef.current, index);
        return;
      }
      const pane = paneHeading.current?.closest('aside');
      const hadFocus = pane?.contains(document.activeElement) ?? false;
      setOpenId(null);
      setActive(0);
      if (hadFocus) gridRef.current?.focus();
    };
    const onFirstPage = firstAnswer.rows.findIndex((row) => row.id === seeking);
    if (onFirstPage >= 0) found(onFirstPage);
    else if (counted.count <= firstAnswer.rows.length) found(null);
    else
      positionOf(profileId, filters, sorting, seeking).then(found, () => {
        if (current) setSeeking(null);
      });
    return () => {
      current = false;
    };
  }, [seeking, openId, firstAnswer, counted, profileId, filters, sorting]);
  // A result with no rows has none for the pane to show or mark: it closes, and the grid takes
  // the focus if the pane had it.
  const noRows = !first.rows.isPlaceholderData && first.rows.data?.rows.length === 0;
  useEffect(() => {
    if (!noRows || !openId) return;
    const pane = paneHeading.current?.closest('aside');
    const hadFocus = pane?.contains(document.activeElement) ?? false;
    setOpenId(null);
    if (hadFocus) gridRef.current?.focus();
  }, [noRows, openId]);

  const reviewKeys = (event: KeyboardEvent<HTMLElement>): boolean => {
    if (!activeRow || !isPlainKey(event)) return false;
    const target = byIds('transaction', [activeRow.id]);
    if (event.key === ' ') {
      review.mutate({
        target,
        change: { action: activeRow.review.reviewedAt ? 'clearReviewed' : 'setReviewed' },
      });
    } else if (event.key === 'f') {
      if (activeRow.review.flagged) review.mutate({ target, change: { action: 'unflag' } });
      else open('flag');
    } else if (event.key === 'n') {
      open('note');
    } else if (event.key === 'x') {
      toggleSelected(activeRow.id);
    } else return false;
    event.preventDefault();
    return true;
  };

  const onGridKey = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget) return;
    const page = Math.max(1, Math.floor((gridRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 2);
    const moves: Record<string, number> = {
      ArrowDown: active + 1,
      j: active + 1,
      ArrowUp: active - 1,
      k: active - 1,
      PageDown: active + page,
      PageUp: active - page,
      Home: 0,
      End: pages.total - 1,
    };
    if (event.key in moves && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      move(moves[event.key] ?? 0);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      open();
    } else if (event.key === 'Escape' && openId) {
      event.preventDefault();
      setOpenId(null);
    } else reviewKeys(event);
  };
  const onPaneKey = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
    } else if (!(event.target as HTMLElement).closest('button, a, input, textarea, select'))
      reviewKeys(event);
  };

  const headerGroup = table.getHeaderGroups()[0];
  const activeId = activeRow ? `tx-row-${active}` : undefined;
  return (
    <section className="area area-fill" data-area="transactions">
      <div className="area-head">
        <h1 id="area-title">Transactions</h1>
        <p className="muted">{profile.name}</p>
      </div>
      <FilterBar
        accounts={accountList}
        onChange={onFilters}
        onPending={setFiltersPending}
        initial={initialFilters}
        list={gridRef}
      />
      {/* A new search's figures replace the old ones only once counted; until then it says so. */}
      <div className="totals" role="status" aria-live="polite" data-testid="totals">
        {pages.totals ? (
          <>
            <strong>{formatCount(pages.totals.count)}</strong>{' '}
            {pages.totals.count === 1 ? 'transaction' : 'transactions'}
            {pages.totals.sums.map((sum) => (
              <span key={sum.currency} className="total-sum amount">
                {formatMoney(sum)}
              </span>
            ))}
          </>
        ) : first.totals.error ? null : (
          'Counting…'
        )}
      </div>
      <BulkBar
        profileId={profileId}
        selected={selected}
        total={filtersPending ? null : (first.counted?.count ?? null)}
        filters={filters}
        sorting={sorting}
        onClear={() => setSelected(new Set())}
      />
      {pages.error && (
        <p className="form-error" role="alert">
          {pages.error.message}
        </p>
      )}
      {hiddenSort && (
        <p className="sort-note" data-testid="sort-note">
          <span>
            Sorted by {hiddenSort} <span aria-hidden="true">{sorting.direction === 'DESC' ? '↓' : '↑'}</span>
            <span className="visually-hidden">
              {sorting.direction === 'DESC' ? ', descending' : ', ascending'}
            </span>
          </span>
          <button type="button" onClick={reverseSort}>
            Reverse order
          </button>
        </p>
      )}
      <div className={openId ? 'split open' : 'split'}>
        <div
          ref={gridRef}
          className={CLOSE_CELLS.has(layout) ? 'grid narrow' : 'grid'}
          role="grid"
          aria-label="Transactions"
          aria-rowcount={pages.total + 1}
          aria-colcount={shownColumns.length}
          aria-multiselectable="true"
          aria-activedescendant={activeId}
          aria-busy={pages.loading || undefined}
          tabIndex={0}
          onKeyDown={onGridKey}
          data-testid="transactions-grid"
        >
          <div role="rowgroup" className="grid-head" style={{ minWidth }}>
            <div
              role="row"
              aria-rowindex={1}
              className="grid-row"
              style={{ gridTemplateColumns: template, minWidth }}
            >
              {headerGroup?.headers.map((header, index) => {
                const sorted = header.column.getIsSorted();
                const sortable = SORTABLE.has(header.column.id);
                return (
                  <div
                    key={header.id}
                    role="columnheader"
                    aria-colindex={index + 1}
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                    className={header.column.id === 'amount' ? 'cell number' : 'cell'}
                  >
                    {sortable ? (
                      <button
                        type="button"
                        className="sort"
                        onClick={() =>
                          setSorting((current) => ({
                            field: header.column.id as TransactionSorting['field'],
                            direction:
                              current.field === header.column.id && current.direction === 'DESC'
                                ? 'ASC'
                                : 'DESC',
                          }))
                        }
                      >
                        {flexRender(header.column.columnDef.header, header.getContext())}
                        <span aria-hidden="true" className="sort-mark">
                          {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                        </span>
                      </button>
                    ) : (
                      flexRender(header.column.columnDef.header, header.getContext())
                    )}
                  </div>
                );
              })}
            </div>
          </div>
          <div role="rowgroup" className="grid-body" style={{ height: virtualizer.getTotalSize(), minWidth }}>
            {items.map((item) => {
              const row = rowsByIndex.get(item.index);
              const data = row?.original.row;
              return (
                <div
                  key={item.key}
                  id={`tx-row-${item.index}`}
                  role="row"
                  aria-rowindex={item.index + 2}
                  aria-selected={data ? selected.has(data.id) : false}
                  data-active={item.index === active || undefined}
                  data-reviewed={data?.review.reviewedAt ? true : undefined}
                  className="grid-row"
                  style={{
                    gridTemplateColumns: template,
                    minWidth,
                    transform: `translateY(${item.start}px)`,
                    height: ROW_HEIGHT,
                  }}
                  onClick={() => {
                    setActive(item.index);
                    gridRef.current?.focus();
                  }}
                  onDoubleClick={() => {
                    setActive(item.index);
                    if (data) {
                      setOpenId(data.id);
                      focusPaneHeading.current = true;
                    }
                  }}
                >
                  {row ? (
                    row.getVisibleCells().map((cell, index) => (
                      <div
                        key={cell.id}
                        role="gridcell"
                        aria-colindex={index + 1}
                        className={cell.column.id === 'amount' ? 'cell number' : 'cell'}
                        title={data ? cellTitle(cell.column.id, data, accounts) : undefined}
                      >
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </div>
                    ))
                  ) : (
                    <div role="gridcell" aria-colindex={1} className="cell loading-cell">
                      Loading…
                    </div>
                  )}
                </div>
              );
            })}
          </div>
          {!pages.loading && pages.total === 0 && (
            <p className="empty">No transaction matches these filters.</p>
          )}
        </div>
        {openId && (
          <TransactionPane
            ref={paneHeading}
            profileId={profileId}
            id={openId}
            accounts={accounts}
            focus={paneFocus}
            onFocused={() => setPaneFocus(null)}
            onClose={close}
            onKeyDown={onPaneKey}
          />
        )}
      </div>
    </section>
  );
}
