import { createColumnHelper } from '@tanstack/react-table';
import type { BankAccountSummary } from '../../../src-shared/details';
import type { TransactionRow, TransactionSortField } from '../../../src-shared/search';
import { formatDate, formatMoney, humanize } from '../../lib/format';

export interface GridItem {
  index: number;
  row: TransactionRow;
}

const column = createColumnHelper<GridItem>();

/** Column widths of the CSS grid each row lays out with (select, date, …, reviewed). */
export const GRID_COLUMNS =
  '36px 112px minmax(140px, 1.2fr) minmax(160px, 2fr) 140px 96px minmax(110px, 1fr) 84px 116px';

export function transactionColumns(
  accounts: Map<string, BankAccountSummary>,
  selected: Set<string>,
  toggle: (id: string) => void,
) {
  return [
    column.display({
      id: 'select',
      header: () => <span className="visually-hidden">Selected</span>,
      cell: ({ row }) => (
        <input
          type="checkbox"
          tabIndex={-1}
          aria-label={`Select ${row.original.row.counterparty ?? row.original.row.id}`}
          checked={selected.has(row.original.row.id)}
          onChange={() => toggle(row.original.row.id)}
          onClick={(event) => event.stopPropagation()}
        />
      ),
    }),
    column.accessor((item) => item.row.bookingDate, {
      id: 'bookingDate',
      header: 'Booking date',
      cell: (info) => formatDate(info.getValue()),
    }),
    column.accessor((item) => item.row.counterparty, {
      id: 'counterparty',
      header: 'Counterparty',
      cell: (info) => info.getValue() ?? '—',
    }),
    column.accessor((item) => item.row.description, {
      id: 'description',
      header: 'Description',
      cell: (info) => info.getValue() ?? '—',
    }),
    column.accessor((item) => item.row.amount, {
      id: 'amount',
      header: 'Amount',
      cell: (info) => (
        <span className={info.getValue().minor < 0 ? 'amount negative' : 'amount'}>
          {formatMoney(info.getValue())}
        </span>
      ),
    }),
    column.accessor((item) => item.row.transactionType, {
      id: 'transactionType',
      header: 'Type',
      cell: (info) => humanize(info.getValue()),
    }),
    column.accessor((item) => item.row.bankAccountId, {
      id: 'bankAccountId',
      header: 'Account',
      cell: (info) => accounts.get(info.getValue())?.name ?? info.getValue(),
    }),
    column.accessor((item) => item.row.matched, {
      id: 'matched',
      header: 'Matched',
      cell: (info) => (info.getValue() ? 'Yes' : 'No'),
    }),
    column.accessor((item) => item.row.review, {
      id: 'reviewed',
      header: 'Review',
      enableSorting: false,
      cell: (info) => {
        const review = info.getValue();
        return (
          <span className="marks">
            {review.reviewedAt ? (
              <span className="badge badge-ok">✓ Reviewed</span>
            ) : (
              <span className="muted">—</span>
            )}
            {review.flagged && (
              <span className="badge badge-flag" title={review.flagReason ?? undefined}>
                Flag
              </span>
            )}
            {review.note && (
              <span className="badge" title={review.note}>
                Note
              </span>
            )}
          </span>
        );
      },
    }),
  ];
}

export const SORTABLE = new Set<string>([
  'bookingDate',
  'counterparty',
  'description',
  'amount',
  'transactionType',
  'bankAccountId',
  'matched',
] satisfies TransactionSortField[]);
