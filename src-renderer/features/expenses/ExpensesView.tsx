import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { ProfileSummary } from '../../../src-shared/profiles';
import type { ExpenseFilters, ExpenseSortField } from '../../../src-shared/search';
import { TriState, SearchField } from '../../components/fields';
import { Pager, useKeptTotal } from '../../components/Pager';
import { useListKeys, useNewPageAtTop } from '../../components/useListKeys';
import { useTypedSearch } from '../../components/useTypedSearch';
import { formatCount, formatDate, formatMoney, humanize } from '../../lib/format';
import { isPlainKey } from '../../lib/keys';
import { useCommand } from '../../lib/query';
import { ExportDialog } from '../export/ExportDialog';
import { ReviewControls, type ReviewFocus } from '../review/ReviewControls';
import { ResultReview, SelectionReview } from '../review/ResultReview';
import { ReviewMarks } from '../review/ReviewMarks';
import { byIds, useReview } from '../review/useReview';
import type { Opening } from '../attention/groups';
import { BookedOnFilter } from './BookedOnFilter';
import { DateCell, ExpenseFiles, ExpenseLines, LinkedTransactionFact, OneLineCell } from './ExpenseParts';
import { focusList } from '../../lib/list-focus';
import './expenses.css';

const PAGE_SIZE = 50;

/** Expenses with their lines and files: a page at a time, a detail pane, the same review keys. */
export function ExpensesView({
  profile,
  initialFilters = {},
  onOpen = () => undefined,
}: {
  profile: ProfileSummary;
  /** A list opened from "Needs attention". */
  initialFilters?: ExpenseFilters | undefined;
  /** Opens another area with a search applied: the expense's bank transaction. */
  onOpen?(opening: Opening): void;
}) {
  const id = useId();
  const profileId = profile.id;
  const { text: initialText = '', ...initialRest } = initialFilters;
  const { text, setText, searched: debounced, page, setPage } = useTypedSearch(initialText);
  const [filters, setFilters] = useState<Omit<ExpenseFilters, 'text'>>(initialRest);
  const [sort, setSort] = useState<{ field: ExpenseSortField; direction: 'ASC' | 'DESC' }>({
    field: 'expenseTime',
    direction: 'DESC',
  });
  const [exporting, setExporting] = useState(false);
  const [exportFailed, setExportFailed] = useState<string | null>(null);
  const [listMessage, setListMessage] = useState<string | null>(null);
  // The selection belongs to one result: other filters, text or order start with none selected.
  const resultKey = JSON.stringify([filters, debounced, sort]);
  const [selection, setSelection] = useState<{ key: string; ids: Set<string> }>({
    key: resultKey,
    ids: new Set(),
  });
  const selected = selection.key === resultKey ? selection.ids : new Set<string>();
  const setSelected = (ids: Set<string>) => setSelection({ key: resultKey, ids });
  const toggleSelected = (expenseId: string) => {
    const next = new Set(selected);
    if (!next.delete(expenseId)) next.add(expenseId);
    setSelected(next);
  };
  const [paneOpen, setPaneOpen] = useState(false);
  const [focus, setFocus] = useState<ReviewFocus>(null);
  const grid = useRef<HTMLTableElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const filter = (next: Omit<ExpenseFilters, 'text'>) => {
    setFilters(next);
    setPage(1);
  };

  const currentFilters: ExpenseFilters = { ...filters, ...(debounced ? { text: debounced } : {}) };
  const search = useCommand(
    'expenses.search',
    {
      profileId,
      search: {
        filters: currentFilters,
        sorting: sort,
        pagination: { page, pageSize: PAGE_SIZE },
      },
    },
    { keepPrevious: true },
  );
  const pagerTotal = useKeptTotal(search.data?.total);
  // While another search or page is read the rows on screen stay (placeholder data), so the list
  // does not empty and fill again and the pane stays open; nothing may count them as its answer.
  const rows = search.data?.rows ?? [];
  const answer = search.isPlaceholderData ? undefined : search.data;
  const review = useReview(profileId);
  const open = (index: number, withFocus: ReviewFocus = null) => {
    if (!rows[index]) return;
    setPaneOpen(true);
    setFocus(withFocus);
    if (!withFocus) requestAnimationFrame(() => heading.current?.focus());
  };
  const reviewKey = (event: KeyboardEvent<HTMLElement>, index: number) => {
    const row = rows[index];
    if (!row || !isPlainKey(event)) return;
    const target = byIds('expense', [row.id]);
    if (event.key === ' ') {
      event.preventDefault();
      review.mutate({ target, change: { action: row.review.reviewedAt ? 'clearReviewed' : 'setReviewed' } });
    } else if (event.key === 'f') {
      event.preventDefault();
      if (row.review.flagged) review.mutate({ target, change: { action: 'unflag' } });
      else open(index, 'flag');
    } else if (event.key === 'n') {
      event.preventDefault();
      open(index, 'note');
    } else if (event.key === 'x') {
      event.preventDefault();
      toggleSelected(row.id);
    } else if (event.key === 'Escape') setPaneOpen(false);
  };
  const markSelected = (action: 'setReviewed' | 'clearReviewed') =>
    review.mutate(
      { target: byIds('expense', [...selected]), change: { action } },
      { onSuccess: ({ changed }) => setListMessage(`${formatCount(changed)} changed.`) },
    );
  const keys = useListKeys(rows.length, open, (event, index) => reviewKey(event, index));
  useNewPageAtTop(grid, page, answer !== undefined, keys.setActive, paneOpen);
  // The answer of another search, order or page: the pane stays on its expense when that is in
  // it (highlighted where it now is), and closes when it is not. The same search read again
  // after a change (a review mark) keeps the highlighted place instead: the pane shows the
  // expense now there, and goes only when none is left.
  const answerKey = JSON.stringify([resultKey, page]);
  const [shown, setShown] = useState({ data: answer, key: answerKey });
  if (answer && answer !== shown.data) {
    setShown({ data: answer, key: answerKey });
    const before = paneOpen && shown.key !== answerKey ? shown.data?.rows[keys.active] : undefined;
    if (before) {
      const index = answer.rows.findIndex((row) => row.id === before.id);
      if (index < 0) setPaneOpen(false);
      else if (index !== keys.active) keys.setActive(index);
    }
  }
  const activeRow = rows[keys.active];
  // The pane shows the active row while it is open.
  const openId = paneOpen && activeRow ? activeRow.id : null;

  const detail = useCommand('expenses.get', { profileId, id: openId ?? '-' }, { enabled: openId !== null });
  const close = () => {
    setPaneOpen(false);
    if (grid.current) focusList(grid.current);
  };
  // The pane also goes when its expense leaves the result (Space under "Reviewed: No" on the
  // last one, a search it is not in): the focus it had falls to the page, so the list takes it
  // and the keys go on working.
  const paneShown = openId !== null;
  const paneWasShown = useRef(false);
  useEffect(() => {
    const closed = paneWasShown.current && !paneShown;
    paneWasShown.current = paneShown;
    const focused = document.activeElement;
    if (closed && (!focused || focused === document.body) && grid.current) focusList(grid.current);
  }, [paneShown]);
  const sortBy = (field: ExpenseSortField) => {
    setPage(1);
    setSort((current) => ({
      field,
      direction: current.field === field && current.direction === 'DESC' ? 'ASC' : 'DESC',
    }));
  };
  const ariaSort = (field: ExpenseSortField) =>
    sort.field === field ? (sort.direction === 'ASC' ? 'ascending' : 'descending') : undefined;

  return (
    <section className="area area-fill" data-area="expenses">
      <div className="area-head">
        <h1 id="area-title">Expenses</h1>
        <p className="muted">{profile.name}</p>
      </div>
      <form
        role="search"
        aria-label="Filter expenses"
        className="filter-bar"
        onSubmit={(e) => e.preventDefault()}
      >
        <div className="filter-row">
          <SearchField
            id={`${id}-text`}
            label="Search"
            placeholder="Description or supplier  (/)"
            searches="Searches the description, booking text, merchant, supplier and each line's description. Press / to come here."
            value={text}
            onChange={setText}
            list={grid}
          />
          <TriState
            id={`${id}-reviewed`}
            label="Reviewed"
            value={filters.reviewed}
            onChange={(v) => filter({ ...filters, reviewed: v })}
          />
          <TriState
            id={`${id}-flagged`}
            label="Flagged"
            value={filters.flagged}
            onChange={(v) => filter({ ...filters, flagged: v })}
          />
          <TriState
            id={`${id}-note`}
            label="Has a note"
            value={filters.hasNote}
            onChange={(v) => filter({ ...filters, hasNote: v })}
          />
          <TriState
            id={`${id}-file`}
            label="Has a receipt"
            value={filters.hasFile}
            onChange={(v) => filter({ ...filters, hasFile: v })}
          />
          <BookedOnFilter
            id={`${id}-booked`}
            profileId={profileId}
            value={{
              ...(filters.bookedOn ? { bookedOn: filters.bookedOn } : {}),
              ...(filters.expenseAccountId !== undefined
                ? { expenseAccountId: filters.expenseAccountId }
                : {}),
            }}
            onChange={(booking) => {
              const { bookedOn: _item, expenseAccountId: _account, ...rest } = filters;
              filter({ ...rest, ...booking });
            }}
          />
        </div>
      </form>
      <div className="bulk-bar" role="toolbar" aria-label="Expense list">
        <SelectionReview count={selected.size} onMark={markSelected} onClear={() => setSelected(new Set())} />
        <ResultReview
          profileId={profileId}
          target={{ by: 'expenseSearch', filters: currentFilters }}
          // Null while the search on screen is counted: the bulk actions wait, saying so.
          total={answer ? answer.total : search.error ? 0 : null}
          noun={{ one: 'expense', other: 'expenses' }}
          onDone={setListMessage}
        >
          <button
            type="button"
            disabled={!answer || answer.total === 0}
            onClick={() => {
              setExportFailed(null);
              setExporting(true);
            }}
          >
            Export as CSV…
          </button>
        </ResultReview>
        {listMessage && (
          <span className="muted" role="status">
            {listMessage}
          </span>
        )}
      </div>
      {exporting && (
        <ExportDialog
          profileId={profileId}
          search={{
            kind: 'expense',
            filters: currentFilters,
            sorting: sort,
          }}
          total={answer?.total ?? 0}
          onClose={() => setExporting(false)}
          onDone={setListMessage}
          onFailed={setExportFailed}
        />
      )}
      {exportFailed && (
        <p className="form-error" role="alert">
          {exportFailed}
        </p>
      )}
      {search.error && (
        <p className="form-error" role="alert">
          {search.error.message}
        </p>
      )}
      <div className={openId ? 'split open' : 'split'}>
        <div className="list-column">
          <table
            ref={grid}
            className="list-grid"
            role="grid"
            aria-label="Expenses"
            tabIndex={0}
            // As in Transactions: the highlighted row is the active descendant, and aria-selected
            // says which rows are selected (x, the checkboxes) for a bulk change.
            aria-multiselectable="true"
            aria-activedescendant={activeRow ? `ex-row-${keys.active}` : undefined}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && openId) {
                event.preventDefault();
                setPaneOpen(false);
              } else keys.onKeyDown(event);
            }}
            data-testid="expenses-grid"
          >
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">Selected</span>
                </th>
                <th scope="col" aria-sort={ariaSort('expenseTime')}>
                  <button type="button" className="sort" onClick={() => sortBy('expenseTime')}>
                    Date
                  </button>
                </th>
                <th scope="col">Description</th>
                <th scope="col" className="without-pane party-heading">
                  Supplier or merchant
                </th>
                <th scope="col" className="without-pane without-narrow">
                  Status
                </th>
                <th scope="col" className="number" aria-sort={ariaSort('amount')}>
                  <button type="button" className="sort" onClick={() => sortBy('amount')}>
                    Amount
                  </button>
                </th>
                <th scope="col" className="number without-narrow-pane without-narrow">
                  Files
                </th>
                <th scope="col">Review</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr
                  key={row.id}
                  id={`ex-row-${index}`}
                  data-active={index === keys.active || undefined}
                  aria-selected={selected.has(row.id)}
                  onClick={() => {
                    keys.setActive(index);
                    grid.current?.focus();
                  }}
                  onDoubleClick={() => {
                    keys.setActive(index);
                    open(index);
                  }}
                >
                  <td className="select">
                    <input
                      type="checkbox"
                      tabIndex={-1}
                      aria-label={`Select ${row.description || row.bookingText || row.id}`}
                      checked={selected.has(row.id)}
                      onChange={() => toggleSelected(row.id)}
                      onClick={(event) => event.stopPropagation()}
                    />
                  </td>
                  <DateCell iso={row.expenseTime} />
                  <OneLineCell className="expense-description" text={row.description || row.bookingText} />
                  <OneLineCell
                    className="expense-party without-pane"
                    text={row.supplierName ?? row.merchantName}
                  />
                  <td className="nowrap without-pane without-narrow">{humanize(row.status)}</td>
                  <td className="number">
                    <span className="amount">{formatMoney(row.amount)}</span>
                  </td>
                  <td className="number without-narrow-pane without-narrow">{row.fileCount}</td>
                  <td className="nowrap">
                    <ReviewMarks review={row.review} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {answer && answer.total === 0 && <p className="empty">No expense matches.</p>}
          {pagerTotal !== undefined && (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={pagerTotal}
              onPage={setPage}
              label="Expenses"
              one="expense"
              many="expenses"
            />
          )}
        </div>
        {openId && (
          <aside
            className="pane"
            aria-labelledby="expense-pane-title"
            data-testid="expense-pane"
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.preventDefault();
                close();
              } else if (!(event.target as HTMLElement).closest('button, a, input, textarea, select'))
                // The review keys of the list act on the expense shown, as in Transactions' pane.
                reviewKey(event, keys.active);
            }}
          >
            <header className="pane-header">
              <button type="button" aria-label="Close details (Esc)" onClick={close}>
                ×
              </button>
              <h2 id="expense-pane-title" tabIndex={-1} ref={heading}>
                {detail.data?.expense.description || detail.data?.expense.merchantName || 'Expense'}
              </h2>
            </header>
            {detail.data ? (
              <>
                <p className="pane-amount amount">{formatMoney(detail.data.expense.amount)}</p>
                <dl className="facts">
                  <dt>Date</dt>
                  <dd>{formatDate(detail.data.expense.expenseTime)}</dd>
                  <dt>Type</dt>
                  <dd>{humanize(detail.data.expense.type)}</dd>
                  <dt>Status</dt>
                  <dd>{humanize(detail.data.expense.status)}</dd>
                  <dt>Supplier</dt>
                  <dd>{detail.data.expense.supplierName ?? '—'}</dd>
                  <dt>Merchant</dt>
                  <dd>{detail.data.expense.merchantName ?? '—'}</dd>
                  <dt>Booking text</dt>
                  <dd>{detail.data.expense.bookingText || '—'}</dd>
                  <dt>Bank transaction</dt>
                  <dd>
                    <LinkedTransactionFact
                      id={detail.data.bankTransactionId}
                      transaction={detail.data.bankTransaction}
                      onShow={(transaction) =>
                        onOpen({
                          area: 'transactions',
                          filters: {
                            ids: [transaction.id],
                            ...(transaction.deletedAt !== null ? { includeDeleted: true } : {}),
                          },
                        })
                      }
                    />
                  </dd>
                </dl>
                <h3>Lines</h3>
                <ExpenseLines lines={detail.data.lines} />
                <h3>Receipts and invoices</h3>
                <ExpenseFiles profileId={profileId} files={detail.data.files} />
                <ReviewControls
                  profileId={profileId}
                  kind="expense"
                  id={detail.data.expense.id}
                  review={detail.data.expense.review}
                  focus={focus}
                  onFocused={() => setFocus(null)}
                />
              </>
            ) : (
              <p className="muted">{detail.error ? detail.error.message : 'Loading…'}</p>
            )}
          </aside>
        )}
      </div>
    </section>
  );
}
